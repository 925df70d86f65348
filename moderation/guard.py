"""What every moderation action is built from: the permission check, the
required reason, the audit entry, and the locked reads of a report or an account.

``moderation.services`` and the modules beside it (``chat_cleanup``,
``report_groups``, ``sanction_lift``) call these inside their transactions, so an
action and its ``AuditEntry`` are stored together or not at all.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext

from core.errors import ApiError, CoreCode
from moderation.errors import ModerationCode, ModerationError
from moderation.models import AuditEntry, Report, ReportStatus
from players.models import User

MODERATE_PERMISSION = "moderation.moderate"


def require_moderator(user: User) -> None:
    """Acting (not looking) needs the ``moderation.moderate`` permission; the games
    services also insist on staff."""
    if not (user.is_staff and user.has_perm(MODERATE_PERMISSION)):
        raise ApiError(gettext("Only staff with the moderate permission may do that."), code=CoreCode.PERMISSION_DENIED)


def require_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ApiError(
            gettext("A reason is required for this action."),
            code=CoreCode.VALIDATION_ERROR,
            extra={"errors": {"reason": [gettext("This field is required.")]}},
        )
    return reason


def audit(
    *,
    by: User | None,
    action: str,
    reason: str,
    game_id: int | None = None,
    player: User | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    return AuditEntry.objects.create(
        moderator=by, action=action, game_id=game_id, player=player, reason=reason, details=details or {}
    )


def report_locked_open(report_id: int) -> Report:
    report = Report.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise ModerationError(
            CoreCode.NOT_FOUND, gettext("There is no report %(report_id)s.") % {"report_id": report_id}
        )
    if report.status == ReportStatus.RESOLVED:
        raise ModerationError(
            ModerationCode.REPORT_RESOLVED,
            gettext("Report %(report_id)s is resolved already.") % {"report_id": report_id},
        )
    return report


def report_mark_resolved(report: Report, *, by: User, outcome: str, reason: str) -> Report:
    report.status, report.outcome, report.resolution = ReportStatus.RESOLVED, outcome, reason
    report.resolved_by, report.resolved_at = by, timezone.now()
    if report.assignee is None:
        report.assignee, report.assigned_at = by, report.resolved_at
    report.save()
    return report


def user_locked(user_id: int) -> User:
    return User.objects.select_for_update().get(pk=user_id)
