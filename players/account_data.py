"""What the apps built on players hold about an account, for "download my data"
(``GET /me/data/``) and "delete my account" (``POST /me/delete/``).

players imports none of those apps; each registers a section when it starts
(``AppConfig.ready``)::

    account_data.register(AccountSection(
        name="chat",                        # its key in the download
        serializer=MyDataChatOutput,        # the shape of one item (an output serializer)
        export=chat_export,                 # (user) -> list of items (the serializer's output)
        erase=chat_erase,                   # (user) -> None: what deleting the account removes
        refuse=None,                        # (user) -> ApiError | None: why it cannot be deleted yet
        description="The messages you wrote in table chats.",
    ))

The policy (docs/account.md): deleting an account keeps the account's row as an
anonymous placeholder (``deleted-<id>``, no password, no tokens, inactive, marked
``deleted_at``) so that the finished games it played keep their seat and still
replay; each section's ``erase`` removes what goes with the person (ratings,
chat messages, reports made, warnings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rest_framework import serializers

from core.errors import ApiError
from players.serializers import AccountOutput, TokenOutput


@dataclass(frozen=True)
class AccountSection:
    name: str
    serializer: type[serializers.Serializer]
    export: Callable[[Any], list[Any]]  # what ``serializer`` reads: rows or dicts
    description: str
    erase: Callable[[Any], None] | None = None
    refuse: Callable[[Any], ApiError | None] | None = None
    order: int = field(default=0)


_SECTIONS: dict[str, AccountSection] = {}
#: Keys the download's own parts use.
RESERVED = frozenset({"profile", "devices", "exported_at"})


def register(section: AccountSection) -> None:
    """Add ``section`` (registering a name again replaces it)."""
    if section.name in RESERVED:
        raise ValueError(f"account data section {section.name!r} uses a name the download keeps")
    _SECTIONS[section.name] = section
    export_output.cache_clear()


def sections() -> list[AccountSection]:
    return sorted(_SECTIONS.values(), key=lambda s: (s.order, s.name))


def export(user: Any) -> dict[str, list[Any]]:
    """Every section's items about ``user`` (for ``export_output()`` to write out)."""
    return {section.name: section.export(user) for section in sections()}


def refusal(user: Any) -> ApiError | None:
    """The first reason a section gives why ``user`` cannot be deleted now, or None."""
    for section in sections():
        if section.refuse is not None and (found := section.refuse(user)) is not None:
            return found
    return None


def erase(user: Any) -> None:
    """Remove what every section says goes with the account (in the caller's transaction)."""
    for section in sections():
        if section.erase is not None:
            section.erase(user)


@cache
def export_output() -> type[serializers.Serializer]:
    """The download's shape (for the contract): the players' own parts and a list per section."""
    fields: dict[str, Any] = {
        "exported_at": serializers.DateTimeField(),
        "profile": AccountOutput(),
        "devices": TokenOutput(many=True, help_text="Your active API tokens (signed-in devices), never their secrets."),
    }
    for section in sections():
        fields[section.name] = section.serializer(many=True, help_text=section.description)
    fields["__doc__"] = "Everything the server holds about your account (`GET /me/data/`)."
    return type("AccountDataOutput", (serializers.Serializer,), fields)
