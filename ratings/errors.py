"""The ratings layer's refusals: ``RatingError`` with a ``RatingCode`` (or a
``CoreCode`` such as ``not_found``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, register_enum


class RatingCode(StrEnum):
    GAME_NOT_RATED = "game_not_rated"
    INVALID_CURSOR = "invalid_cursor"


register_enum(
    RatingCode,
    {
        RatingCode.GAME_NOT_RATED: (
            409,
            _("The game is not rated (a practice or unrated game): it changed no rating, so there is nothing to void."),
            _("Game not rated"),
        ),
        RatingCode.INVALID_CURSOR: (
            422,  # the contract's shape, refused for what the server knows: as every such refusal
            _("The cursor is not one a leaderboard page gave: follow the page's next link as it is."),
            _("Invalid cursor"),
        ),
    },
)


class RatingError(ApiError):
    def __init__(self, code: RatingCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
