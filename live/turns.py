"""What running games wait for from a worker, read from the database.

The database is the record of what is due; a task on the broker is only a
reminder of it. ``live.dispatch`` re-sends from here what a lost task would have
done (the sweep, a worker that starts), and the health report counts what is late.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import models
from django.utils import timezone

from games.models import Game, GameStatus


@dataclass(frozen=True)
class PendingTurn:
    """Work a running game waits for from a worker: a server bot's move (due once
    the bot delay has passed) or a turn clock (due at the deadline)."""

    game_id: int
    seq: int
    kind: str  # "bot" or "timeout"
    due_at: datetime


def pending_turns() -> list[PendingTurn]:
    """Every running game's pending bot move or turn clock."""
    return pending_clocks() + pending_bot_turns()


def pending_clocks() -> list[PendingTurn]:
    """Every running game's turn clock (due at its deadline)."""
    running = Game.objects.filter(status=GameStatus.RUNNING, turn_deadline__isnull=False)
    return [
        PendingTurn(game_id, seq, "timeout", deadline)
        for game_id, seq, deadline in running.values_list("id", "seq", "turn_deadline")
        if deadline is not None  # (the filter says so; the type does not)
    ]


def pending_bot_turns() -> list[PendingTurn]:
    """Every running game whose seat to move is a server bot (due once the bot delay
    has passed since the last move, or the start)."""
    found: list[PendingTurn] = []
    running = Game.objects.filter(status=GameStatus.RUNNING)
    bots = running.filter(seats__number=models.F("turn_seat"), seats__bot_strategy__gt="")
    for game_id, seq, last, started, delay in bots.values_list(
        "id", "seq", "last_move_at", "started_at", "bot_delay_ms"
    ):
        since = last or started
        if since is not None:
            found.append(PendingTurn(game_id, seq, "bot", since + timedelta(milliseconds=delay)))
    return found


def overdue_turns(
    *,
    now: datetime | None = None,
    bot_grace: timedelta = timedelta(seconds=5),
    clock_grace: timedelta = timedelta(0),
) -> list[PendingTurn]:
    """Pending turns whose follow-up work seems lost: a turn deadline ``clock_grace``
    past, or a bot to move with no move for ``bot_grace`` past its delay."""
    now = now or timezone.now()
    return [t for t in pending_turns() if t.due_at + (bot_grace if t.kind == "bot" else clock_grace) < now]
