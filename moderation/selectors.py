"""What moderation knows, read: mutes in force, a player's reports and warnings,
an account's history and the report queue's counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from moderation.errors import ModerationCode, ModerationError
from moderation.models import (
    AuditEntry,
    ModeratorNote,
    PlayerWarning,
    Report,
    ReportStatus,
    Sanction,
    SanctionKind,
)
from players.models import User


def _in_force(now: datetime | None = None) -> Q:
    now = now or timezone.now()
    return Q(lifted_at__isnull=True) & (Q(ends_at__isnull=True) | Q(ends_at__gt=now))


def mute_in_force(*, user: User, now: datetime | None = None) -> Sanction | None:
    """The mute that holds longest, or None. A mute past its end counts as over
    even before beat lifts it."""
    mutes = Sanction.objects.filter(_in_force(now), player=user, kind=SanctionKind.MUTE)
    return mutes.filter(ends_at__isnull=True).first() or mutes.order_by("-ends_at").first()


def is_muted(user: User, *, now: datetime | None = None) -> bool:
    """May this account not write messages now? (Chat and any other writing checks this.)"""
    return Sanction.objects.filter(_in_force(now), player=user, kind=SanctionKind.MUTE).exists()


def mute_refusal(user: User, *, now: datetime | None = None) -> ModerationError | None:
    """The refusal to give a muted account that tries to write (code ``muted``,
    with ``until``: an ISO time, or null for a mute until lifted), or None."""
    mute = mute_in_force(user=user, now=now)
    if mute is None:
        return None
    until = mute.ends_at.isoformat() if mute.ends_at else None
    return ModerationError(ModerationCode.MUTED, "A moderator has muted your account.", until=until, reason=mute.reason)


def sanctions_in_force(*, user: User, now: datetime | None = None) -> QuerySet[Sanction]:
    return Sanction.objects.filter(_in_force(now), player=user)


def report_list_mine(*, reporter: User) -> QuerySet[Report]:
    """A player's own reports, newest first (the target's account loaded)."""
    return Report.objects.filter(reporter=reporter).select_related("account").order_by("-created_at", "-id")


def warning_list(*, player: User) -> QuerySet[PlayerWarning]:
    """The warnings a player sees, newest first."""
    return PlayerWarning.objects.filter(player=player).order_by("-created_at", "-id")


def sanction_list(*, player: User) -> QuerySet[Sanction]:
    """The mutes and suspensions a player sees, newest first."""
    return Sanction.objects.filter(player=player).order_by("-starts_at", "-id")


def report_counts() -> dict[str, int]:
    """How many reports are in each state of the queue."""
    counts = dict(Report.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    return {status: counts.get(status, 0) for status in ReportStatus.values}


@dataclass(frozen=True)
class HistoryRow:
    """One line of an account's moderation history."""

    at: datetime
    kind: str  # report, warning, suspension, mute, note, audit
    text: str
    by: str
    obj: object


def account_history(*, user: User) -> list[HistoryRow]:
    """Everything moderation holds about an account, newest first: reports about it,
    warnings, suspensions and mutes, notes, and the audit entries naming it. The
    reporter's name is shown (this is for moderators only)."""
    rows: list[HistoryRow] = []
    for report in Report.objects.filter(account=user).select_related("reporter"):
        outcome = f" -> {report.get_outcome_display()}" if report.outcome else ""
        rows.append(
            HistoryRow(
                report.created_at,
                "report",
                f"{report.get_reason_display()} ({report.get_status_display()}{outcome}): {report.text}",
                report.reporter.username,
                report,
            )
        )
    for warning in PlayerWarning.objects.filter(player=user).select_related("moderator"):
        seen = "acknowledged" if warning.acknowledged_at else "not acknowledged yet"
        rows.append(
            HistoryRow(warning.created_at, "warning", f"{warning.text} ({seen})", warning.moderator.username, warning)
        )
    for sanction in Sanction.objects.filter(player=user).select_related("moderator"):
        until = f"until {sanction.ends_at:%Y-%m-%d %H:%M} UTC" if sanction.ends_at else "indefinite"
        state = f", lifted {sanction.lifted_at:%Y-%m-%d %H:%M} UTC" if sanction.lifted_at else ""
        rows.append(
            HistoryRow(
                sanction.starts_at,
                sanction.kind,
                f"{sanction.reason} ({until}{state})",
                sanction.moderator.username,
                sanction,
            )
        )
    for note in ModeratorNote.objects.filter(player=user).select_related("author"):
        rows.append(HistoryRow(note.created_at, "note", note.text, note.author.username, note))
    shown = {"player_warn", "player_mute", "note_add", "player_suspend"}  # already above as rows of their own
    for entry in AuditEntry.objects.filter(player=user).exclude(action__in=shown).select_related("moderator"):
        by = entry.moderator.username if entry.moderator else "the server"
        text = entry.get_action_display() + (f": {entry.reason}" if entry.reason else "")
        rows.append(HistoryRow(entry.created_at, "audit", text, by, entry))
    rows.sort(key=lambda row: row.at, reverse=True)
    return rows
