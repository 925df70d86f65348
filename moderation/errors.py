"""The moderation app's refusals: ``ModerationError`` with a ``ModerationCode``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, register_enum


class ModerationCode(StrEnum):
    REPORT_EXISTS = "report_exists"
    REPORT_SELF = "report_self"
    REPORT_RESOLVED = "report_resolved"
    MUTED = "muted"
    APPEAL_EXISTS = "appeal_exists"
    APPEAL_OWN_SANCTION = "appeal_own_sanction"


register_enum(
    ModerationCode,
    {
        ModerationCode.REPORT_EXISTS: (
            409,
            _(
                "You have an open report about this target already: it stays in the queue until a moderator "
                "resolves it (`report_id` names it)."
            ),
            _("Report exists"),
        ),
        ModerationCode.REPORT_SELF: (422, _("You cannot report your own account."), _("Report about yourself")),
        ModerationCode.REPORT_RESOLVED: (
            409,
            _("The report is resolved already: its outcome cannot change."),
            _("Report resolved"),
        ),
        ModerationCode.MUTED: (
            403,
            _(
                "The account is muted until `until` (none: until a moderator lifts it), for `reason` (the "
                "moderator's words): it cannot write messages."
            ),
            _("Muted"),
        ),
        ModerationCode.APPEAL_EXISTS: (
            409,
            _("The sanction has an appeal already: one appeal per sanction."),
            _("Appeal exists"),
        ),
        ModerationCode.APPEAL_OWN_SANCTION: (
            403,
            _("An appeal is answered by another moderator than the one who imposed the sanction."),
            _("Appeal against your own sanction"),
        ),
    },
)


class ModerationError(ApiError):
    """A refusal about a report, a warning or a sanction; keyword arguments become
    members of the problem body."""

    def __init__(self, code: ModerationCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
