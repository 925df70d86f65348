"""What moderation knows, read: mutes in force, a player's reports and warnings,
an account's history and the report queue's counts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import TruncDate, TruncWeek
from django.utils import timezone
from django.utils.translation import gettext

from chat.models import ChatMessage, MessageState
from games.models import Game, Move, MoveSource
from moderation.errors import ModerationCode, ModerationError
from moderation.models import (
    Appeal,
    AppealStatus,
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
    return ModerationError(
        ModerationCode.MUTED, gettext("A moderator has muted your account."), until=until, reason=mute.reason
    )


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


# -- the moderators' dashboard (moderation.admin.dashboard) ------------------------

#: Open reports' ages, in hours: up to each bound (the last: older).
REPORT_AGE_BOUNDS = (1, 6, 24, 72, 168)


@dataclass(frozen=True)
class DashboardFigures:
    days: list[date]  # the last ``days`` days, oldest first (UTC)
    weeks: list[date]  # the Mondays of the last ``weeks`` weeks
    reports_by_reason: dict[str, list[int]]  # reason -> reports per day
    open_by_age: list[int]  # open or assigned reports per age bucket (REPORT_AGE_BOUNDS, then older)
    sanctions_by_kind: dict[str, list[int]]  # kind -> sanctions started per week
    games_per_day: list[int]  # games created
    players_per_day: list[int]  # accounts that made a move (server bots' moves do not count)
    messages_removed_per_day: list[int]


def _per_day(rows: Iterable[tuple[date, int]], days: list[date]) -> list[int]:
    counts = dict(rows)
    return [int(counts.get(day, 0)) for day in days]


def dashboard_figures(*, now: datetime | None = None, days: int = 30, weeks: int = 12) -> DashboardFigures:
    """What the dashboard draws, each figure one grouped query."""
    now = now or timezone.now()
    today = now.astimezone(UTC).date()
    day_list = [today - timedelta(days=n) for n in range(days - 1, -1, -1)]
    since = datetime.combine(day_list[0], time.min, tzinfo=UTC)
    monday = today - timedelta(days=today.weekday())
    week_list = [monday - timedelta(weeks=n) for n in range(weeks - 1, -1, -1)]
    week_since = datetime.combine(week_list[0], time.min, tzinfo=UTC)

    by_reason: dict[str, dict[date, int]] = {}
    rows = (
        Report.objects.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values_list("reason", "day")
        .annotate(n=Count("id"))
    )
    for reason, day, n in rows:
        by_reason.setdefault(reason, {})[day] = n
    open_ages = [0] * (len(REPORT_AGE_BOUNDS) + 1)
    for created in Report.objects.exclude(status=ReportStatus.RESOLVED).values_list("created_at", flat=True):
        hours = (now - created).total_seconds() / 3600
        open_ages[next((i for i, bound in enumerate(REPORT_AGE_BOUNDS) if hours < bound), len(REPORT_AGE_BOUNDS))] += 1
    by_kind: dict[str, dict[date, int]] = {}
    sanction_rows = (
        Sanction.objects.filter(starts_at__gte=week_since)
        .annotate(week=TruncWeek("starts_at", tzinfo=UTC))
        .values_list("kind", "week")
        .annotate(n=Count("id"))
    )
    for kind, week, n in sanction_rows:
        by_kind.setdefault(kind, {})[week.date() if isinstance(week, datetime) else week] = n
    games = (
        Game.objects.filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values_list("day")
        .annotate(n=Count("id"))
    )
    players = (
        Move.objects.filter(created_at__gte=since, source=MoveSource.PLAYER, actor__isnull=False)
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values_list("day")
        .annotate(n=Count("actor", distinct=True))
    )
    removed = (
        ChatMessage.objects.filter(removed_at__gte=since)
        .annotate(day=TruncDate("removed_at", tzinfo=UTC))
        .values_list("day")
        .annotate(n=Count("id"))
    )
    return DashboardFigures(
        days=day_list,
        weeks=week_list,
        reports_by_reason={reason: _per_day(counts.items(), day_list) for reason, counts in sorted(by_reason.items())},
        open_by_age=open_ages,
        sanctions_by_kind={kind: _per_day(counts.items(), week_list) for kind, counts in sorted(by_kind.items())},
        games_per_day=_per_day(games, day_list),
        players_per_day=_per_day(players, day_list),
        messages_removed_per_day=_per_day(removed, day_list),
    )


def waiting_counts() -> dict[str, int]:
    """What waits for a moderator beside the open reports (the dashboard): the chat
    messages the filter held, and the appeals not answered yet."""
    return {
        "held_messages": ChatMessage.objects.filter(state=MessageState.HELD).count(),
        "open_appeals": Appeal.objects.filter(status=AppealStatus.OPEN).count(),
    }


def sanction_ending(sanction: Sanction, *, now: datetime | None = None) -> tuple[datetime, str] | None:
    """When and how a sanction ended (``players.standing.SANCTION_ENDINGS``), or None
    while it is in force. Its own end counts when it came first - also before beat
    lifts it, or when a moderator lifted it afterwards; a lift by the moderator who
    answered the appeal with "lift" is the appeal's."""
    now = now or timezone.now()
    ends_at, lifted_at = sanction.ends_at, sanction.lifted_at
    if ends_at is not None and ends_at <= now and (lifted_at is None or ends_at <= lifted_at):
        return ends_at, "expired"
    if lifted_at is None:
        return None
    appeal = sanction.appeal_or_none
    if (
        appeal is not None
        and appeal.status == AppealStatus.LIFTED
        and sanction.lifted_by_id is not None
        and sanction.lifted_by_id == appeal.answered_by_id
    ):
        return lifted_at, "appeal"
    return lifted_at, "lifted"


def _standing_row(sanction: Sanction) -> dict[str, Any]:
    appeal = sanction.appeal_or_none
    return {
        "id": sanction.pk,
        "kind": sanction.kind,
        "reason": sanction.reason,
        "starts_at": sanction.starts_at,
        "ends_at": sanction.ends_at,
        "appeal": None
        if appeal is None
        else {
            "status": appeal.status,
            "text": appeal.text,
            "answer": appeal.answer,
            "created_at": appeal.created_at,
        },
    }


def standing_sanctions(user: User) -> list[dict[str, Any]]:
    """The sanctions in force on ``user`` with their appeal, as ``players.standing``
    tells them to the player (``/me/``, the log-in refusal)."""
    return [
        _standing_row(sanction)
        for sanction in Sanction.objects.filter(_in_force(), player_id=user.pk).select_related("appeal")
    ]


def standing_ended_sanctions(user: User, since: datetime, now: datetime) -> list[dict[str, Any]]:
    """The sanctions on ``user`` that ended between ``since`` and ``now``, with when
    and how (``sanction_ending``) and their appeal, as ``players.standing`` tells
    them to the player (``/me/``'s ``ended_sanctions``)."""
    candidates = (
        Sanction.objects.filter(player_id=user.pk)
        .filter(Q(lifted_at__gte=since) | Q(ends_at__gte=since, ends_at__lte=now))
        .select_related("appeal")
    )
    rows = []
    for sanction in candidates:
        ending = sanction_ending(sanction, now=now)
        if ending is None or not since <= ending[0] <= now:
            continue
        rows.append({**_standing_row(sanction), "ended_at": ending[0], "ended_how": ending[1]})
    return rows
