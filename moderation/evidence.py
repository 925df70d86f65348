"""What a moderator needs at hand to judge a report (read only).

* A game's moves with their times to the second and each move's think time (the
  time since the move before it, or since the start for the first), so "plays
  instantly" or "stalls" can be checked; each seat's turn-clock timeouts.
* An account's recent games (with its timeouts and whether it resigned), its
  timeouts and resignations in all, and the reports against it and by it.
* Retaliation: a report made by someone shortly (``RETALIATION_WINDOW``) after the
  target of their report had reported them is flagged as possibly retaliatory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q

from games.models import Game, Move, MoveSource, Seat
from moderation.models import Report
from players.models import User

#: A report made this soon after its author was reported by its target is flagged.
RETALIATION_WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class MoveRow:
    number: int
    round: int
    seat: int
    at: datetime
    think_seconds: float | None  # None: no earlier move nor start to measure from
    source: str
    move: Move


def move_rows(game: Game, *, last: int | None = None) -> list[MoveRow]:
    """The game's moves in order (the last ``last`` of them), each with its think time."""
    moves = list(game.moves.order_by("number"))
    rows: list[MoveRow] = []
    before: datetime | None = game.started_at
    for move in moves:
        think = (move.created_at - before).total_seconds() if before is not None else None
        if move.round and rows and rows[-1].round != move.round:
            think = None  # a new hand: the deal came between
        rows.append(MoveRow(move.number, move.round, move.seat, move.created_at, think, move.source, move))
        before = move.created_at
    return rows[-last:] if last else rows


def seat_timeouts(game: Game) -> dict[int, int]:
    """Seat number -> how many of its moves the turn clock made."""
    counts = game.moves.filter(source=MoveSource.TIMEOUT).values_list("seat").annotate(n=Count("id"))
    found = dict(counts)
    return {seat.number: found.get(seat.number, 0) for seat in game.seats.all()}


def _timeout_moves(user: User) -> Any:
    """The turn clock's moves for ``user``'s seats."""
    mine = Seat.objects.filter(game=OuterRef("game"), number=OuterRef("seat"), player=user)
    return Move.objects.filter(source=MoveSource.TIMEOUT).filter(Exists(mine))


@dataclass(frozen=True)
class GameRow:
    game: Game
    seat: int
    timeouts: int
    resigned: bool
    away: bool


@dataclass(frozen=True)
class ReportRow:
    report: Report
    retaliation: Report | None  # the earlier report this one may answer


@dataclass(frozen=True)
class AccountEvidence:
    games: list[GameRow]
    games_total: int
    timeouts_total: int
    resignations_total: int
    reports_against: list[ReportRow]
    reports_by: list[ReportRow]


def account_evidence(user: User, *, limit: int = 10) -> AccountEvidence:
    """An account's recent games, timeouts, resignations and reports (newest first)."""
    seats = list(
        Seat.objects.filter(player=user).select_related("game").order_by("-game__created_at", "-game_id")[:limit]
    )
    per_game = dict(
        _timeout_moves(user)
        .filter(game_id__in=[seat.game_id for seat in seats])
        .values_list("game_id")
        .annotate(n=Count("id"))
    )
    against = Report.objects.filter(account=user).select_related("reporter", "account").order_by("-created_at")
    by = Report.objects.filter(reporter=user).select_related("reporter", "account").order_by("-created_at")
    return AccountEvidence(
        games=[GameRow(s.game, s.number, per_game.get(s.game_id, 0), s.resigned, s.away) for s in seats],
        games_total=Seat.objects.filter(player=user).count(),
        timeouts_total=_timeout_moves(user).count(),
        resignations_total=Seat.objects.filter(player=user, resigned=True).count(),
        reports_against=[ReportRow(r, retaliation_of(r)) for r in against[:limit]],
        reports_by=[ReportRow(r, retaliation_of(r)) for r in by[:limit]],
    )


def _targets(report: Report) -> list[int]:
    """The accounts a report is against: the account (or a message's author), or a game's players."""
    if report.account_id is not None:
        return [report.account_id]
    if report.game_id is not None:
        return list(
            Seat.objects.filter(game_id=report.game_id, player__isnull=False)
            .exclude(player_id=report.reporter_id)
            .values_list("player_id", flat=True)
        )
    return []


def retaliation_of(report: Report) -> Report | None:
    """The report against ``report``'s author, by one of its targets, made within
    ``RETALIATION_WINDOW`` before it (the latest such), or None."""
    targets = _targets(report)
    if not targets:
        return None
    against_author = Q(account_id=report.reporter_id) | Q(
        game__seats__player_id=report.reporter_id, account__isnull=True
    )
    return (
        Report.objects.filter(against_author, reporter_id__in=targets)
        .filter(created_at__gte=report.created_at - RETALIATION_WINDOW, created_at__lte=report.created_at)
        .exclude(pk=report.pk)
        .select_related("reporter")
        .order_by("-created_at", "-id")
        .first()
    )
