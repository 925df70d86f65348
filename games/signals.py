"""What the game record tells the layers above it (live play, ratings, matchmaking
...), which may not be imported from here.

``match_finished`` is sent inside the transaction of the change that finished the
match (``games.services.commit``), with the game row still locked: a receiver's
writes commit or roll back with the final move, so what it derives from a finished
match happens exactly once. A receiver that raises rolls the move back, so
receivers must only do what cannot be refused (and keep it quick: the final move
waits for them). Arguments: ``game`` (the ``Game``, status ``finished``, ``result``
set) and ``seats`` (its ``Seat`` rows in seat order, players loaded).

``committed`` is called after every change's transaction has committed, with the
change's ``FollowUp``; its one hook is live play's ``live.dispatch.after_commit``
(the notice, the follow-up task), registered by ``LiveConfig.ready``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.dispatch import Signal

from core import notify

if TYPE_CHECKING:
    from games.models import Event, GameStatus

match_finished = Signal()


@dataclass(frozen=True)
class FollowUp:
    """What a committed change tells live play: the game, its seq, what is due next
    (a turn deadline is not: the turn clock reads it from the game row)."""

    game_id: int
    seq: int
    bot_turn: bool
    bot_delay_ms: int
    user_ids: tuple[int, ...] | None = None  # the seated accounts; None: look them up
    # The game's status at ``seq`` and the change's events (ending at ``seq``), when the
    # change hands them over; None: the notice reads the last events itself.
    status: GameStatus | str | None = None
    events: tuple[Event, ...] | None = None
    move_sources: tuple[str, ...] = ()  # who made the moves the change recorded (counted once committed)


#: The hooks ``committed`` calls, in order (``on_committed`` adds one).
COMMITTED_HOOKS: list[Callable[[FollowUp], None]] = []


def on_committed(hook: Callable[[FollowUp], None]) -> None:
    """Call ``hook`` after every committed change (once, however often it is added)."""
    if hook not in COMMITTED_HOOKS:
        COMMITTED_HOOKS.append(hook)


def committed(plan: FollowUp) -> None:
    """A change has committed (called by ``transaction.on_commit``): tell the hooks."""
    for hook in COMMITTED_HOOKS:
        hook(plan)


def committed_many(plans: list[FollowUp]) -> None:
    """Many changes committed together (``games.services.commit.game_changes_new``):
    each plan to the hooks, and what their notices publish to Redis in one write."""
    with notify.batched():
        for plan in plans:
            committed(plan)
