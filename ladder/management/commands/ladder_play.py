"""``manage.py ladder_play --rounds N``: play N ladder rounds to the end, in this process.

For measuring the server's levels against each other: each round is a real ladder
round (``ladder.services.round_play``: rated games, counted on the ladder) of the
built-in levels only - outside bots are not seated, as nobody would move them here -
and every bot turn is played right here through ``games.services.bot_move``, no
worker needed. The follow-up tasks the moves would send go to an in-memory broker
(``--send-tasks`` sends them to the configured broker, where a running worker may
race this command for the turns: harmless, but it muddles the timing).

Prints, per level, its games, wins (a shared win counts), win rate and average
placing (1 = first), overall and by table size; their ratings (the games are rated:
``ratings`` rates them as they finish); and how long it all took.
"""

from __future__ import annotations

import secrets
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from celery import current_app
from django.core.management.base import BaseCommand, CommandError

from games import services as game_services
from games.models import Game, GameStatus, Seat
from ladder import services
from ladder.models import TABLE_SIZES, LadderEntry
from ratings import selectors as rating_selectors


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    places: list[int] = field(default_factory=list)

    def add(self, *, won: bool, place: int) -> None:
        self.games += 1
        self.wins += won
        self.places.append(place)

    def cells(self) -> str:
        if not self.games:
            return f"{0:>5} {'-':>6} {'-':>6}"
        return f"{self.games:>5} {100 * self.wins / self.games:>5.1f}% {sum(self.places) / self.games:>6.2f}"


def placings(totals: list[int], winners: list[int]) -> list[int]:
    """Each seat's place: 1 for a winner; else 1 + the seats ahead of it (a lower
    total, or a winner)."""
    return [
        1
        if seat in winners
        else 1 + sum(1 for other, total in enumerate(totals) if other != seat and (other in winners or total < mine))
        for seat, mine in enumerate(totals)
    ]


@contextmanager
def memory_broker() -> Iterator[None]:
    """Send this process's tasks to an in-memory broker for the duration."""
    app: Any = current_app
    previous = (app.conf.broker_write_url, app.conf.broker_read_url)
    app.conf.update(broker_write_url="memory://", broker_read_url="memory://")
    app._pool, app.amqp._producer_pool = None, None  # the next send connects anew
    try:
        yield
    finally:
        app.conf.update(broker_write_url=previous[0], broker_read_url=previous[1])
        app._pool, app.amqp._producer_pool = None, None


def play_out(game_id: int) -> int:
    """Play the game's bot turns until it ends; returns the moves played."""
    moves = 0
    seq = Game.objects.values_list("seq", flat=True).get(pk=game_id)
    while True:
        result = game_services.bot_move(game_id=game_id, expected_seq=seq)
        if result is None:
            status, seq_now = Game.objects.values_list("status", "seq").get(pk=game_id)
            if status != GameStatus.RUNNING:
                return moves
            if seq_now == seq:
                raise CommandError(f"game {game_id} waits for a seat no server bot plays")
            seq = seq_now
            continue
        moves += 1
        if result.game.status != GameStatus.RUNNING:
            return moves
        seq = result.game.seq


class Command(BaseCommand):
    help = "Play N ladder rounds of the server's levels to the end in this process; print each level's results."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--rounds", type=int, default=10, help="Rounds to play (default 10).")
        parser.add_argument(
            "--table-size",
            type=int,
            choices=sorted(TABLE_SIZES),
            default=None,
            help="Only tables of this size (default: 4 and 2 players in turn).",
        )
        parser.add_argument("--seed", default=None, help="Seeds who sits with whom (default: random).")
        parser.add_argument("--send-tasks", action="store_true", help="Send follow-up tasks to the real broker.")

    def handle(self, *args: Any, **options: Any) -> None:
        rounds = options["rounds"]
        if rounds < 1:
            raise CommandError("--rounds must be at least 1")
        seed = options["seed"] or secrets.token_hex(8)
        started = time.perf_counter()
        game_ids: list[int] = []
        moves = 0
        with nullcontext() if options["send_tasks"] else memory_broker():
            for number in range(rounds):
                played = services.round_play(
                    slot=None, seed=f"{seed}:{number}", table_size=options["table_size"], outside=False
                )
                assert played is not None  # only a scheduled slot can be taken already
                ids = list(played.games.values_list("game_id", flat=True))
                for game_id in ids:
                    moves += play_out(game_id)
                game_ids += ids
                self.stdout.write(f"round {number + 1}/{rounds}: {len(ids)} games of {played.table_size}", ending="\n")
        elapsed = time.perf_counter() - started
        self._report(game_ids, moves, elapsed, seed)

    def _report(self, game_ids: list[int], moves: int, elapsed: float, seed: str) -> None:
        levels = dict(LadderEntry.objects.exclude(level="").values_list("user_id", "level"))
        overall: dict[str, Tally] = defaultdict(Tally)
        by_size: dict[tuple[str, int], Tally] = defaultdict(Tally)
        seats: dict[int, list[int | None]] = defaultdict(list)
        for game_id, player_id in (
            Seat.objects.filter(game_id__in=game_ids).order_by("game_id", "number").values_list("game_id", "player_id")
        ):
            seats[game_id].append(player_id)
        for played in Game.objects.filter(pk__in=game_ids, status=GameStatus.FINISHED).only("result"):
            result = played.result or {}
            totals, winners = result["totals"], result["winners"]
            for seat, place in enumerate(placings(totals, winners)):
                level = levels.get(seats[played.pk][seat] or 0, "?")
                overall[level].add(won=seat in winners, place=place)
                by_size[(level, len(totals))].add(won=seat in winners, place=place)
        sizes = sorted(TABLE_SIZES, reverse=True)
        head = f"{'level':<8} {'games':>5} {'win%':>6} {'place':>6}"
        for size in sizes:
            head += f" | {size}p {'games':>5} {'win%':>6} {'place':>6}"
        self.stdout.write(head)
        for level in sorted(overall, key=lambda name: -overall[name].wins / max(1, overall[name].games)):
            line = f"{level:<8} {overall[level].cells()}"
            for size in sizes:
                line += f" |    {by_size[(level, size)].cells()}"
            self.stdout.write(line)
        ratings = rating_selectors.ordinals_by_pool(user_ids=list(levels))
        pools = sorted({pool for per_user in ratings.values() for pool in per_user})
        if pools:
            self.stdout.write("ratings now (openskill ordinal, mu - 3 sigma; games in the pool):")
            for user_id, level in sorted(levels.items(), key=lambda item: item[1]):
                cells = [
                    f"{pool}: {ratings[user_id][pool][0]:6.2f} ({ratings[user_id][pool][1]})"
                    if pool in ratings.get(user_id, {})
                    else f"{pool}: {'-':>6}"
                    for pool in pools
                ]
                self.stdout.write(f"{level:<8} " + "   ".join(cells))
        self.stdout.write(
            f"{len(game_ids)} games, {moves} bot moves in {elapsed:.1f} s "
            f"({moves / elapsed if elapsed else 0:.0f} moves/s); seed {seed}"
        )
