"""The analysis layer's refusals: ``AnalysisError`` with an ``AnalysisCode`` (or a
code of the games layer, such as ``game_not_finished`` and ``not_seated``, where the
meaning is the same)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from core.errors import ApiError, CoreCode, StrOrPromise, register_enum


class AnalysisCode(StrEnum):
    SEAT_REQUIRED = "seat_required"
    ANALYSIS_BUDGET_EXHAUSTED = "analysis_budget_exhausted"
    ANALYSIS_NOT_REQUESTED = "analysis_not_requested"
    HINTS_PRACTICE_ONLY = "hints_practice_only"
    HINT_NOT_YOUR_TURN = "hint_not_your_turn"


ANALYSIS_CODES: dict[str, tuple[int, StrOrPromise]] = {
    AnalysisCode.SEAT_REQUIRED: (422, _("You have no seat at this game: name the seat to analyse (`seat`).")),
    AnalysisCode.ANALYSIS_BUDGET_EXHAUSTED: (
        429,
        _(
            "You have asked for as many new analyses as your account may for now: try again after `retry_after` "
            "seconds (analyses already made cost nothing)."
        ),
    ),
    AnalysisCode.ANALYSIS_NOT_REQUESTED: (
        404,
        _("Nobody has asked for an analysis of that seat yet: ask with POST .../analysis/."),
    ),
    AnalysisCode.HINTS_PRACTICE_ONLY: (403, _("Hints are given in practice games only.")),
    AnalysisCode.HINT_NOT_YOUR_TURN: (409, _("A hint is for your own turn: it is not your turn now.")),
}

register_enum(AnalysisCode, ANALYSIS_CODES)

#: The codes' titles (the code in words, as ``core.errors.register_error_code`` makes
#: them), marked for the translation catalogue like ``core.error_titles``.
TITLES = (
    gettext_noop("Seat required"),
    gettext_noop("Analysis budget exhausted"),
    gettext_noop("Analysis not requested"),
    gettext_noop("Hints practice only"),
    gettext_noop("Hint not your turn"),
)


class AnalysisError(ApiError):
    """A refusal about an analysis or a hint; keyword arguments become members of the problem body."""

    def __init__(self, code: AnalysisCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
