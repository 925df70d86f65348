"""Reads of the analysis app: one analysis as the API shows it, and the account
stream's ``analyses`` feed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext

from analysis.errors import AnalysisCode, AnalysisError
from analysis.models import Analysis, AnalysisStatus
from bots.analysis import THRESHOLDS
from games import selectors as game_selectors
from games.errors import GameCode, GameError
from games.models import Game, Seat
from live import account_feeds
from players.models import User

FEED_EVENTS = {
    "analysis_progress": "An analysis you asked for moved on: `status` and `progress` (sent as it runs, and "
    "once more when it is done or failed; then read it with GET /games/{id}/analysis/?seat=).",
}


def analysis_seat(*, game: Game, user: User, seat: int | None) -> int:
    """The seat ``user`` may have analysed: its own when ``seat`` is None; any seat of
    a finished game that is not a practice game (its record is public), else only its own."""
    seats: list[Seat] = list(game.seats.all())
    mine = game_selectors.seat_of(seats, user)
    if seat is None:
        if mine is None:
            raise AnalysisError(AnalysisCode.SEAT_REQUIRED, gettext("Name the seat to analyse: you have none here."))
        return mine.number
    if not 0 <= seat < game.seat_count:
        raise GameError(GameCode.NO_SUCH_SEAT, gettext("This table has no seat %(seat)s.") % {"seat": seat})
    if game.practice and mine is None:
        raise GameError(GameCode.NOT_SEATED, gettext("Only its players may analyse a practice game."))
    return seat


def analysis_get(*, game_id: int, user: User, seat: int | None) -> Analysis:
    """The analysis of the seat (the caller's own when ``seat`` is None), if anyone asked for it."""
    game = game_selectors.game_get(game_id=game_id)
    number = analysis_seat(game=game, user=user, seat=seat)
    analysis = Analysis.objects.filter(game=game, seat=number).first()
    if analysis is None:
        raise AnalysisError(
            AnalysisCode.ANALYSIS_NOT_REQUESTED, gettext("Nobody has asked for an analysis of that seat yet.")
        )
    return analysis


def analysis_output(analysis: Analysis, *, with_result: bool = True) -> dict[str, Any]:
    return {
        "game": analysis.game_id,
        "seat": analysis.seat,
        "status": analysis.status,
        "progress": {"done": analysis.done, "total": analysis.total},
        "requested_at": analysis.requested_at,
        "finished_at": analysis.finished_at,
        "thresholds": {name: value for name, value in THRESHOLDS},
        "result": analysis.result if with_result and analysis.status == AnalysisStatus.DONE else None,
    }


def feed_items(user: User, keys: Sequence[str], since: datetime | None) -> list[account_feeds.FeedItem]:
    """The analyses ``user`` asked for: running ones, those it knows, those changed since."""
    wanted = Q(status__in=(AnalysisStatus.QUEUED, AnalysisStatus.RUNNING))
    if keys:
        wanted |= Q(pk__in=[int(k) for k in keys if k.isdigit()])
    if since is not None:
        wanted |= Q(updated_at__gte=since)
    rows = Analysis.objects.filter(wanted, watchers=user).order_by("pk")
    return [
        account_feeds.FeedItem(
            key=str(a.pk),
            version=f"{a.status}.{a.done}",
            event="analysis_progress",
            data=analysis_output(a, with_result=False),
            done=a.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED),
        )
        for a in rows
    ]
