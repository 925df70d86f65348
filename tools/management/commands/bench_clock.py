"""``manage.py bench_clock [--games 8] [--timeouts 4] [--turn-seconds 1]``: how late
turn clocks fire on a running server - the deadline to the timeout move committed.

It opens ``--games`` two-player tables (``--turn-seconds`` per turn) whose players
never move, their starts spread over ``--spread`` seconds (so deadlines fall at
every phase of a periodic clock), and waits until each has ``--timeouts`` timeout
moves (at most 5: the third in a row hands a seat to a bot). A worker (and beat,
which runs the turn clock) must be running on the same database and broker:
``make serve``, or the Procfile's processes. Printed: the count, the median, 90th
and 99th percentile and the worst lateness in milliseconds, and the load average.

A timeout's deadline is the game's ``turn_deadline`` read after it started (the
first) or the previous move's time plus the turn's seconds (the later ones: the
deadline is set in the same transaction, well under a millisecond apart).
"""

from __future__ import annotations

import os
import secrets
import statistics
import time
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games import services
from games.models import Game, Move, MoveSource
from players.models import User
from tools.stats import percentile

MAX_TIMEOUTS = 5


class Command(BaseCommand):
    help = "Measure how late turn clocks fire (deadline -> timeout move) on a running worker and beat."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--games", type=int, default=8, help="Tables whose players never move (default 8).")
        parser.add_argument("--timeouts", type=int, default=4, help="Timeouts per table, at most 5 (default 4).")
        parser.add_argument("--turn-seconds", type=int, default=1, help="The tables' turn clock (default 1 s).")
        parser.add_argument("--spread", type=float, default=1.0, help="Seconds over which the tables start.")
        parser.add_argument("--wait", type=float, default=120.0, help="Give up after this many seconds.")

    def handle(self, *args: Any, **options: Any) -> None:
        count, wanted, limit = options["games"], options["timeouts"], options["turn_seconds"]
        if not 1 <= wanted <= MAX_TIMEOUTS:
            raise CommandError(f"--timeouts: 1 to {MAX_TIMEOUTS}")
        tag = secrets.token_hex(3)
        first_deadline: dict[int, datetime] = {}
        for n in range(count):
            alice = User.objects.create(username=f"clock-{tag}-{n}-a")
            bob = User.objects.create(username=f"clock-{tag}-{n}-b")
            game = services.game_create(
                creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1}, turn_time_limit=limit
            )
            services.game_join(game_id=game.pk, player=bob)
            services.game_start(game_id=game.pk, by=alice)
            deadline = Game.objects.values_list("turn_deadline", flat=True).get(pk=game.pk)
            assert deadline is not None
            first_deadline[game.pk] = deadline
            time.sleep(options["spread"] / count)
        self.stdout.write(f"bench_clock: {count} tables, {limit}-s clock, waiting for {wanted} timeouts each")
        give_up = time.monotonic() + options["wait"]
        while True:
            per_game = Counter(
                Move.objects.filter(game_id__in=first_deadline, source=MoveSource.TIMEOUT).values_list(
                    "game_id", flat=True
                )
            )
            short = [g for g in first_deadline if per_game[g] < wanted]
            if not short:
                break
            if time.monotonic() > give_up:
                raise CommandError(f"{len(short)} tables short of {wanted} timeouts after {options['wait']:.0f} s")
            time.sleep(0.2)
        lateness: list[float] = []
        for game_id, deadline in first_deadline.items():
            moves = list(Move.objects.filter(game_id=game_id).order_by("number").values_list("source", "created_at"))
            previous: datetime | None = None
            seen = 0
            for source, created_at in moves:
                due = deadline if previous is None else previous + timedelta(seconds=limit)
                if source == MoveSource.TIMEOUT and seen < wanted:
                    lateness.append((created_at - due).total_seconds() * 1000)
                    seen += 1
                previous = created_at
        load = os.getloadavg()
        self.stdout.write(
            f"lateness ms (n={len(lateness)}): p50 {statistics.median(lateness):.0f}  "
            f"p90 {percentile(lateness, 0.9):.0f}  p99 {percentile(lateness, 0.99):.0f}  "
            f"max {max(lateness):.0f}  min {min(lateness):.0f}"
        )
        self.stdout.write(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
