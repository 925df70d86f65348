"""An account's sanctions as the player meets them (``/me/``, the log-in refusal),
told by the app that keeps them. players imports no such app: moderation registers
a source when it starts (``AppConfig.ready``)::

    standing.register(sanctions_in_force_for_player)

A source takes an account and answers the sanctions in force on it, each a dict
with ``id``, ``kind`` (``suspension`` or ``mute``), ``reason``, ``starts_at``,
``ends_at`` (None: until a moderator lifts it) and ``appeal`` (None, or a dict with
``status``, ``text``, ``answer``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Source = Callable[[Any], list[dict[str, Any]]]

_SOURCES: list[Source] = []


def register(source: Source) -> None:
    if source not in _SOURCES:
        _SOURCES.append(source)


def sanctions(user: Any) -> list[dict[str, Any]]:
    """Every sanction in force on ``user``, as the sources tell them."""
    return [row for source in _SOURCES for row in source(user)]


def suspension(user: Any) -> dict[str, Any] | None:
    """The suspension in force on ``user`` that ends last (None: none is known)."""
    rows = [row for row in sanctions(user) if row["kind"] == "suspension"]
    if not rows:
        return None
    return max(rows, key=lambda row: (row["ends_at"] is None, row["ends_at"] or row["starts_at"]))
