"""What happens after a game's transaction commits: live notices, follow-up tasks;
and how lost follow-ups are found again.

Every state change ends in ``after_commit``: a ``game_change`` block that leaves
(``games.services.commit.GameChange``) registers ``games.signals.committed`` with
``transaction.on_commit``, whose hook this is (``LiveConfig.ready`` adds it: the
record below never imports live play). A
task carries the game id and the seq it expects; it re-locks the game and does
nothing if the game has moved on, so a duplicate or late task is harmless.

Only a server bot's turn sends a task. A turn deadline sends nothing: the turn
clock (``live.clock``, run by beat every ``CLOCK_INTERVAL_SECONDS``) reads the
due deadlines from the database and plays them.

A task is only a reminder: what is due lives in the database
(``live.turns``). A bot's task lost with a killed worker, a restarted
broker or a broker that was down when the move committed is sent again by
``resend``: by the periodic sweep (``ops.tasks.sweep``: whatever is overdue) and
by every worker when it starts or reconnects to the broker (``ops.worker``:
every pending bot turn, with countdowns to when it is due). The sweep also sends
a turn clock's own task (``TURN_CLOCK_TASK``) for a deadline ``CLOCK_GRACE`` past
due: the clock is not running.

Tasks are sent by name (``BOT_TURN_TASK``, ``TURN_CLOCK_TASK``): the games
services must not import the tasks that call them (``live.tasks`` is above
them), and the names are the tasks' public identity on the broker anyway.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from celery import current_app
from django.utils import timezone

from core import metrics
from core.breaker import Breaker
from games import selectors
from games.models import Event, GameStatus, Seat
from games.signals import FollowUp
from live import hub, turns
from live.turns import PendingTurn

log = logging.getLogger(__name__)

# Timers longer than this are left to the sweep: a Redis broker redelivers long
# countdowns past its visibility timeout (Celery's documented caveat).
MAX_COUNTDOWN_SECONDS = 600
# The sweep leaves a bot turn this long past its due time before re-sending it
# (its own task is normally on its way).
BOT_GRACE = timedelta(seconds=5)
# ... and a turn clock this long past its deadline (the clock plays it within a
# second when it runs: this one is left over, beat or the clock is not running).
CLOCK_GRACE = timedelta(seconds=5)
#: The names the follow-up tasks are registered under (both in ``live.tasks``; the bot
#: turn's name is kept from when the task lived in the ``bots`` app).
BOT_TURN_TASK = "bots.play_bot_turn"
TURN_CLOCK_TASK = "games.turn_timeout"
#: How many of the game's last events its notice carries (read once per change when
#: the change does not hand them over): enough for the events of one move.
NOTICE_EVENTS = 6

#: The broker as this process sees it: after a failed send, follow-ups are not
#: sent for a second (a move's answer must not wait on a dead broker); what they
#: would have done is due in the database and is re-sent when the broker is back.
BROKER = Breaker("the Celery broker")


def after_commit(plan: FollowUp) -> None:
    """Tell listeners the game moved, then send the bot's task if a server bot is
    to move (a turn deadline needs none: ``live.clock`` reads it)."""
    for source in plan.move_sources:
        metrics.labelled(metrics.MOVES_ACCEPTED, source).inc()
    try:
        players: Iterable[int | None] = plan.user_ids or ()
        if plan.user_ids is None:
            players = Seat.objects.filter(game_id=plan.game_id, player__isnull=False).values_list(
                "player_id", flat=True
            )
        seq, status, events = _notice_events(plan)
        hub.publish(
            game_id=plan.game_id,
            seq=seq,
            user_ids=[p for p in players if p is not None],
            status=status,
            events=events,
            lobby=_lobby_change(status, events),
        )
    except Exception:  # waiters re-read the database: a lost notice only delays them
        log.exception("could not publish game %s seq %s", plan.game_id, plan.seq)
    if plan.bot_turn:
        _send(BOT_TURN_TASK, plan.game_id, plan.seq, plan.bot_delay_ms / 1000)


#: The events by which an open table leaves the lobby.
LOBBY_EXITS = frozenset({"game_started", "game_aborted"})


def _lobby_change(status: str | None, events: tuple[Event, ...]) -> bool:
    """Does the change concern the lobby's open tables (``live.lobby_feed``)? An
    open table's every change, its start and its abort; a bare notice (status
    unknown) too. A running game's moves do not."""
    return status is None or status == GameStatus.OPEN or any(e.type in LOBBY_EXITS for e in events)


def _notice_events(plan: FollowUp) -> tuple[int, str | None, tuple[Event, ...]]:
    """The seq, status and last events the game's notice carries (status None: a
    bare notice). Read in one statement unless the change handed them over; a
    failed read costs the streams a read each, not the notice."""
    if plan.status is not None and plan.events is not None:
        return plan.seq, str(plan.status), plan.events
    try:
        tail = selectors.event_tail(game_id=plan.game_id, count=NOTICE_EVENTS)
    except Exception:
        log.warning("game %s seq %s: publishing a bare notice (could not read its events)", plan.game_id, plan.seq)
        return plan.seq, None, ()
    if tail is None or tail[0] < plan.seq:  # no events yet (or a read that cannot be right)
        return plan.seq, None, ()
    seq, status, events = tail
    return seq, status, tuple(events)


def _send(task: str, game_id: int, seq: int, countdown: float, *, force: bool = False) -> bool:
    """Send one follow-up task; False if the broker is (known to be) down - the
    work stays due in the database and is re-sent when it is back. ``force``:
    try even if the broker failed a moment ago."""
    if BROKER.is_open and not force:
        return False
    try:
        current_app.send_task(task, (game_id, seq), countdown=countdown or None)
    except Exception as error:
        BROKER.failed(error)
        log.warning(
            "could not send follow-up for game %s seq %s (%s); it is re-sent when the broker is back",
            game_id,
            seq,
            error,
        )
        return False
    BROKER.succeeded()
    return True


def resend(turns: Iterable[PendingTurn], *, now: datetime | None = None) -> int:
    """Send the task of each pending turn again: at once if it is due, else with a
    countdown to when it is (unless that is beyond ``MAX_COUNTDOWN_SECONDS``: the
    sweep sends it when due). Stops at the first failed send (the broker is down:
    the next sweep or reconnection tries again). Returns how many were sent."""
    now = now or timezone.now()
    sent = 0
    for turn in turns:
        countdown = max(0.0, (turn.due_at - now).total_seconds())
        if countdown > MAX_COUNTDOWN_SECONDS:
            continue
        task = BOT_TURN_TASK if turn.kind == "bot" else TURN_CLOCK_TASK
        if not _send(task, turn.game_id, turn.seq, countdown, force=True):
            break
        sent += 1
    return sent


def resend_overdue(*, now: datetime | None = None) -> int:
    """The sweep: re-send what is overdue - a bot turn ``BOT_GRACE`` past its due
    time, a turn clock ``CLOCK_GRACE`` past its deadline. Returns how many were sent."""
    now = now or timezone.now()
    return resend(turns.overdue_turns(now=now, bot_grace=BOT_GRACE, clock_grace=CLOCK_GRACE), now=now)


def resend_pending() -> int:
    """A worker that starts (or reconnects): re-send every pending bot turn, so
    none that the last worker held or the broker lost waits for the sweep. (Turn
    clocks have no task to lose: the clock reads them from the database.)"""
    return resend(turns.pending_bot_turns())
