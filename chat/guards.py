"""Who may not write in the chat, as the apps above it say: an app that keeps
sanctions (moderation's mutes) registers a guard when it starts
(``AppConfig.ready``)::

    guards.register("muted", mute_refusal)

A guard takes the writing account and raises an ``ApiError`` or returns one
(the refusal) - or returns None: no objection. The chat imports no such app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.errors import ApiError

Guard = Callable[[Any], ApiError | None]

_GUARDS: dict[str, Guard] = {}


def register(name: str, guard: Guard) -> None:
    """Add ``guard`` (registering a name again replaces it)."""
    _GUARDS[name] = guard


def check(user: Any) -> None:
    """Raise the first refusal a guard gives ``user``."""
    for name in sorted(_GUARDS):
        refusal = _GUARDS[name](user)
        if refusal is not None:
            raise refusal
