"""What happens after a game's transaction commits: live notices, follow-up tasks.

Every state change ends here (``services._publish_on_commit``). A task carries the
game id and the seq it expects; it re-locks the game and does nothing if the game
has moved on, so a duplicate or late task is harmless. Deadlines live in the
database: a timer is only scheduled when it is short (well inside the broker's
visibility timeout), and the periodic sweep (``games.tasks.sweep``) catches every
timer and bot turn that was lost or never scheduled.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

log = logging.getLogger(__name__)

# Timers longer than this are left to the sweep: a Redis broker redelivers long
# countdowns past its visibility timeout (Celery's documented caveat).
MAX_COUNTDOWN_SECONDS = 600


@dataclass(frozen=True)
class FollowUp:
    game_id: int
    seq: int
    bot_turn: bool
    bot_delay_ms: int
    deadline: datetime | None
    user_ids: tuple[int, ...] | None = None  # the seated accounts; None: look them up


def after_commit(plan: FollowUp) -> None:
    from bots.tasks import play_bot_turn
    from games import live
    from games.models import Seat
    from games.tasks import turn_timeout

    try:
        players = plan.user_ids
        if players is None:
            players = Seat.objects.filter(game_id=plan.game_id, player__isnull=False).values_list("player_id", flat=True)
        live.publish(game_id=plan.game_id, seq=plan.seq, user_ids=list(players))
    except Exception:  # waiters re-read the database: a lost notice only delays them
        log.exception("could not publish game %s seq %s", plan.game_id, plan.seq)
    try:
        if plan.bot_turn:
            play_bot_turn.apply_async((plan.game_id, plan.seq), countdown=plan.bot_delay_ms / 1000 or None)
        elif plan.deadline is not None:
            countdown = max(0.0, (plan.deadline - timezone.now()).total_seconds())
            if countdown <= MAX_COUNTDOWN_SECONDS:
                turn_timeout.apply_async((plan.game_id, plan.seq), countdown=countdown)
    except Exception:  # the broker is down: the move stands, the sweep re-sends the work
        log.exception("could not send follow-up for game %s seq %s; the sweep will retry", plan.game_id, plan.seq)
