"""Reports worked as groups: every open report about one target (an account, a
game, a chat message: the same ``target_key``) is one case in the queue. An
outcome resolves the whole group at once (the measure is taken once, on the
report acted on; the others are resolved with the same outcome and audited as
``report_resolve``). Also: reassigning and unassigning a report, and the
moderators' internal discussion of a report (``ReportComment``).

Each function checks the ``moderation.moderate`` permission and audits in the
same transaction, as ``moderation.services`` does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import ApiError, CoreCode
from moderation import chat_cleanup, services
from moderation.errors import ModerationError
from moderation.guard import (
    MODERATE_PERMISSION,
    audit,
    report_locked_open,
    report_mark_resolved,
    require_moderator,
    require_reason,
)
from moderation.models import AuditAction, Report, ReportComment, ReportOutcome, ReportReason, ReportStatus
from players.models import User

#: The outcomes a group can be resolved with (the names the report page posts).
OUTCOMES = ("dismiss", "warn", "mute", "suspend", "abort", "remove")


@dataclass(frozen=True)
class ReportGroup:
    """The open reports about one target, oldest first."""

    reports: list[Report]

    @property
    def count(self) -> int:
        return len(self.reports)

    @property
    def reasons(self) -> list[tuple[str, int]]:
        """Each reason (in words) with how many reports give it, most first."""
        counts = Counter(report.get_reason_display() for report in self.reports)
        return counts.most_common()

    @property
    def reporters(self) -> list[str]:
        return [report.reporter.username for report in self.reports]


def report_group(report: Report) -> ReportGroup:
    """The open (or assigned) reports about ``report``'s target, itself included."""
    reports = (
        Report.objects.filter(target_key=report.target_key)
        .exclude(status=ReportStatus.RESOLVED)
        .select_related("reporter")
        .order_by("created_at", "id")
    )
    return ReportGroup(list(reports))


def with_group_size(reports: QuerySet[Report]) -> QuerySet[Report]:
    """``reports``, each with ``open_on_target``: how many open reports its target has."""
    open_ones = (
        Report.objects.filter(target_key=OuterRef("target_key"))
        .exclude(status=ReportStatus.RESOLVED)
        .order_by()
        .values("target_key")
        .annotate(n=Count("id"))
        .values("n")
    )
    return reports.annotate(open_on_target=Subquery(open_ones))


def report_group_resolve(
    *,
    report_id: int,
    by: User,
    outcome: str,
    reason: str,
    until: datetime | None = None,
    player: User | None = None,
    group: bool = True,
    remove_hours: int = 0,
) -> list[Report]:
    """Take ``outcome`` on report ``report_id`` (one measure: one warning, one
    sanction) and, with ``group``, resolve every other open report about the same
    target with it. A suspension with ``remove_hours`` also removes the suspended
    account's chat messages of the last that many hours (``chat_cleanup``, audited
    apart). One transaction: all of them or none. Answers the reports resolved,
    the one acted on first."""
    require_moderator(by)
    if outcome not in OUTCOMES:
        raise ApiError(gettext("Choose an outcome."), code=CoreCode.VALIDATION_ERROR)
    with transaction.atomic():
        main = report_locked_open(report_id)
        others = (
            list(
                Report.objects.select_for_update()
                .filter(target_key=main.target_key)
                .exclude(status=ReportStatus.RESOLVED)
                .exclude(pk=main.pk)
                .order_by("created_at", "id")
            )
            if group
            else []
        )
        _take(outcome, report_id=main.pk, by=by, reason=reason, until=until, player=player)
        main.refresh_from_db()
        if outcome == "suspend" and remove_hours:
            chat_cleanup.chat_remove_by_author(
                author=services.report_player_of(main, player), by=by, reason=reason, hours=remove_hours
            )
        for report in others:
            report_mark_resolved(report, by=by, outcome=main.outcome, reason=main.resolution)
            audit(
                by=by,
                action=AuditAction.REPORT_RESOLVE,
                reason=main.resolution,
                player=report.account,
                game_id=report.game_id,
                details={"report": report.pk, "with": main.pk, "outcome": main.outcome},
            )
    return [main, *others]


def _take(outcome: str, *, report_id: int, by: User, reason: str, until: datetime | None, player: User | None) -> Any:
    if outcome == "dismiss":
        return services.report_dismiss(report_id=report_id, by=by, reason=reason)
    if outcome == "warn":
        return services.report_warn(report_id=report_id, by=by, reason=reason, player=player)
    if outcome == "mute":
        return services.report_mute(report_id=report_id, by=by, reason=reason, until=until, player=player)
    if outcome == "suspend":
        return services.report_suspend(report_id=report_id, by=by, reason=reason, until=until, player=player)
    if outcome == "abort":
        return services.report_abort_game(report_id=report_id, by=by, reason=reason)
    return services.report_remove_message(report_id=report_id, by=by, reason=reason)


def report_reassign(*, report_id: int, by: User, to: User | None) -> Report:
    """Give an open report to the moderator ``to`` (assigned), or with ``to=None``
    put it back in the queue unassigned (open)."""
    require_moderator(by)
    if to is not None and not (to.is_active and to.is_staff and to.has_perm(MODERATE_PERMISSION)):
        raise ApiError(
            gettext("%(username)s is not a moderator.") % {"username": to.username}, code=CoreCode.VALIDATION_ERROR
        )
    with transaction.atomic():
        report = report_locked_open(report_id)
        before = report.assignee.username if report.assignee else None
        if to is None:
            report.status, report.assignee, report.assigned_at = ReportStatus.OPEN, None, None
        else:
            report.status, report.assignee, report.assigned_at = ReportStatus.ASSIGNED, to, timezone.now()
        report.save(update_fields=["status", "assignee", "assigned_at"])
        audit(
            by=by,
            action=AuditAction.REPORT_UNASSIGN if to is None else AuditAction.REPORT_ASSIGN,
            reason="",
            player=report.account,
            game_id=report.game_id,
            details={"report": report.pk, "from": before, "to": to.username if to else None},
        )
    return report


def report_comment_add(*, report_id: int, by: User, text: str) -> ReportComment:
    """A note for the other moderators on a report (open or resolved); players never see it."""
    require_moderator(by)
    text = require_reason(text)
    with transaction.atomic():
        report = Report.objects.select_for_update().filter(pk=report_id).first()
        if report is None:
            raise ModerationError(
                CoreCode.NOT_FOUND, gettext("There is no report %(report_id)s.") % {"report_id": report_id}
            )
        comment = ReportComment.objects.create(report=report, author=by, text=text)
        audit(
            by=by,
            action=AuditAction.REPORT_COMMENT,
            reason=text,
            player=report.account,
            game_id=report.game_id,
            details={"report": report.pk, "comment": comment.pk},
        )
    return comment


@dataclass(frozen=True)
class ReasonStats:
    reason: str  # the reason in words
    code: str
    open: int
    resolved: int
    acted_on: int  # resolved with a measure (not dismissed)


def reason_stats() -> list[ReasonStats]:
    """Reports by reason: open (or assigned), resolved, and resolved with a measure."""
    rows = Report.objects.values_list("reason", "status", "outcome").annotate(n=Count("id"))
    table: dict[str, list[int]] = {}
    for reason, status, outcome, n in rows:
        counts = table.setdefault(reason, [0, 0, 0])
        if status == ReportStatus.RESOLVED:
            counts[1] += n
            if outcome != ReportOutcome.DISMISSED:
                counts[2] += n
        else:
            counts[0] += n
    words = dict(ReportReason.choices)
    return [ReasonStats(str(words.get(code, code)), code, *table.get(code, [0, 0, 0])) for code in ReportReason.values]
