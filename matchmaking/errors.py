"""Quick play's refusals: ``SeekError`` with a ``SeekCode`` (or a ``CoreCode``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, register_enum


class SeekCode(StrEnum):
    SEEK_EXISTS = "seek_exists"
    SEATED_ELSEWHERE = "seated_elsewhere"
    SEEK_CLOSED = "seek_closed"


register_enum(
    SeekCode,
    {
        SeekCode.SEEK_EXISTS: (
            409,
            _("You already have a waiting seek (`seek_id`): cancel it first (DELETE /seeks/{id}/)."),
            _("Seek exists"),
        ),
        SeekCode.SEATED_ELSEWHERE: (
            409,
            _("You hold a seat at a table that is open or running (`game_id`): finish or leave it first."),
            _("Seated elsewhere"),
        ),
        SeekCode.SEEK_CLOSED: (
            409,
            _("The seek is no longer waiting: it was matched, expired or cancelled (`seek_status` says which)."),
            _("Seek closed"),
        ),
    },
)


class SeekError(ApiError):
    """A refusal about a seek; keyword arguments become members of the problem body."""

    def __init__(self, code: SeekCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
