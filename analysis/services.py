"""Every write of the analysis app: asking for an analysis (with the account's
budget), running it (the task's work), and the hint of a practice game's turn."""

from __future__ import annotations

import logging
import math
import time
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from analysis.errors import AnalysisCode, AnalysisError
from analysis.models import Analysis, AnalysisStatus
from analysis.selectors import analysis_seat
from bots import analysis as judge
from games import selectors as game_selectors
from games.engine import Match, seat_view
from games.errors import GameCode, GameError
from games.models import Game, GameStatus, Move
from live import account_feeds
from players.models import User

log = logging.getLogger(__name__)

ANALYSE_TASK = "analysis.analyse"
PENDING = (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)
#: The account stream hears of a running analysis's progress at most this often.
PROGRESS_INTERVAL_SECONDS = 0.5


def _finished(game: Game) -> None:
    if game.status != GameStatus.FINISHED:
        raise GameError(GameCode.GAME_NOT_FINISHED, gettext("Only a finished game can be analysed."))


def _charge(user: User) -> None:
    """Refuse a new analysis beyond the account's budget: ``ANALYSIS_MAX_PENDING``
    queued or running at once, ``ANALYSIS_PER_DAY`` in 24 hours. Called with the
    account's row locked, so two requests at once cannot both slip under it."""
    mine = Analysis.objects.filter(requested_by=user)
    if mine.filter(status__in=PENDING).count() >= settings.ANALYSIS_MAX_PENDING:
        raise AnalysisError(
            AnalysisCode.ANALYSIS_BUDGET_EXHAUSTED,
            gettext("%(count)s of your analyses are still running: wait for one to finish.")
            % {"count": settings.ANALYSIS_MAX_PENDING},
            retry_after=30,
        )
    since = timezone.now() - timedelta(days=1)
    recent = list(mine.filter(requested_at__gte=since).order_by("requested_at").values_list("requested_at", flat=True))
    if len(recent) >= settings.ANALYSIS_PER_DAY:
        wait = (recent[len(recent) - settings.ANALYSIS_PER_DAY] - since).total_seconds()
        raise AnalysisError(
            AnalysisCode.ANALYSIS_BUDGET_EXHAUSTED,
            gettext("You have asked for %(count)s new analyses in the last 24 hours.")
            % {"count": settings.ANALYSIS_PER_DAY},
            retry_after=max(1, math.ceil(wait)),
        )


def _send(analysis_id: int) -> None:
    """Queue the analysis on its own queue; a broker that is down leaves it queued
    (it is sent again when someone asks for it after ``ANALYSIS_STALE_SECONDS``)."""
    try:
        current_app.send_task(ANALYSE_TASK, (analysis_id,), queue=settings.ANALYSIS_QUEUE)
    except Exception as error:
        log.warning("could not queue analysis %s (%s): it is sent again when asked for", analysis_id, error)


def _stale(analysis: Analysis) -> bool:
    limit = timedelta(seconds=settings.ANALYSIS_STALE_SECONDS)
    return analysis.status in PENDING and timezone.now() - analysis.updated_at > limit


def analysis_request(*, game_id: int, user: User, seat: int | None) -> tuple[Analysis, bool]:
    """Ask for the analysis of a seat of a finished game: the stored one if it exists
    (shared, free), else a new one queued (charged to ``user``). ``user`` is told of
    its progress on the account stream. Returns it and whether it was new."""
    game = game_selectors.game_get(game_id=game_id)
    number = analysis_seat(game=game, user=user, seat=seat)
    _finished(game)
    created = False
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().filter(game=game, seat=number).first()
        if analysis is None:
            User.objects.select_for_update().filter(pk=user.pk).first()  # one budget check at a time per account
            _charge(user)
            try:
                with transaction.atomic():
                    analysis = Analysis.objects.create(game=game, seat=number, requested_by=user)
                created = True
            except IntegrityError:  # someone else asked at the same moment: theirs is shared
                analysis = Analysis.objects.select_for_update().get(game=game, seat=number)
        resend = created or _stale(analysis)
        if resend and not created:
            analysis.status = AnalysisStatus.QUEUED
            analysis.save(update_fields=["status", "updated_at"])
        analysis.watchers.add(user)
        if resend:
            pk = analysis.pk
            transaction.on_commit(lambda: _send(pk))
        account_feeds.notify_accounts([user.pk])
    return analysis, created


def _record(game: Game) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any] | None]:
    moves = Move.objects.filter(game=game).order_by("number").values_list("seat", "payload")
    setup = None if game.setup is None else {"hands": game.setup["hands"], "boneyard": game.setup.get("boneyard")}
    return [(seat, payload) for seat, payload in moves], setup


def _notify(analysis: Analysis) -> None:
    account_feeds.notify_accounts(analysis.watchers.values_list("pk", flat=True))


def analysis_run(*, analysis_id: int) -> None:
    """Judge every decision of the analysis's seat (the task's work). Idempotent: a
    finished analysis is left as it is; one cut short (a worker lost) starts again."""
    with transaction.atomic():
        analysis = Analysis.objects.select_for_update().select_related("game").filter(pk=analysis_id).first()
        if analysis is None or analysis.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return
        game = analysis.game
        moves, setup = _record(game)
        total = judge.count_decisions(game.ruleset, game.seed, setup, moves, analysis.seat)
        Analysis.objects.filter(pk=analysis.pk).update(
            status=AnalysisStatus.RUNNING, done=0, total=total, updated_at=timezone.now()
        )
        _notify(analysis)
    started = time.process_time()
    told = [time.monotonic()]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - told[0] < PROGRESS_INTERVAL_SECONDS:
            return
        told[0] = now
        Analysis.objects.filter(pk=analysis_id).update(done=done, updated_at=timezone.now())
        _notify(analysis)

    try:
        result = judge.analyse(
            game.ruleset, game.seed, setup, moves, analysis.seat, deals=settings.ANALYSIS_DEALS, progress=progress
        )
    except Exception as error:
        log.exception("analysis %s failed", analysis_id)
        Analysis.objects.filter(pk=analysis_id).update(
            status=AnalysisStatus.FAILED,
            error=repr(error)[:1000],
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
        _notify(analysis)
        return
    Analysis.objects.filter(pk=analysis_id).update(
        status=AnalysisStatus.DONE,
        done=total,
        result=result,
        cpu_seconds=time.process_time() - started,
        finished_at=timezone.now(),
        updated_at=timezone.now(),
    )
    _notify(analysis)


def hint(*, game_id: int, user: User) -> dict[str, Any]:
    """The best move, from the caller's view alone, for its turn in a practice game."""
    game = game_selectors.game_get(game_id=game_id)
    seat = game_selectors.seat_of(list(game.seats.all()), user)
    if seat is None:
        raise GameError(GameCode.NOT_SEATED, gettext("You have no seat at this game."))
    if not game.practice:
        raise AnalysisError(AnalysisCode.HINTS_PRACTICE_ONLY, gettext("Hints are given in practice games only."))
    if game.status == GameStatus.OPEN:
        raise GameError(GameCode.GAME_NOT_STARTED, gettext("The game has not started yet."))
    if game.status != GameStatus.RUNNING:
        raise GameError(GameCode.GAME_FINISHED, gettext("The game is over."))
    match = Match.from_dict(game.state)
    if match.turn != seat.number or seat.bot_controlled:
        raise AnalysisError(AnalysisCode.HINT_NOT_YOUR_TURN, gettext("It is not your turn now."))
    view = seat_view(match, seat.number)
    return {"seat": seat.number, "seq": game.seq, **judge.hint(view, match.move_count + 1)}
