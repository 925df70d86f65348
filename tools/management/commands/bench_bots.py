"""``manage.py bench_bots``: how fast server bots answer, with one real worker.

Needs PostgreSQL (``DATABASE_URL``) and Redis (``REDIS_URL``): the command starts
one Celery worker process itself (``--no-worker`` if one is running already),
plays on the configured database with throw-away accounts and games that it
deletes afterwards (``--keep`` keeps them).

1. Reply latency: a human (played by this command through the same service as
   the API) and a bot of each ``--strategies`` (default greedy), bot delay 0. For each human move: from the moment
   the human's move has committed to the moment the bot's move is visible: its
   commit announced on the game's Redis channel (the notice that wakes waiting
   clients), and checked in the database. Prints p50 and p99.
2. Throughput: N simultaneous four-bot matches (default 50, double-9, 10 rounds),
   started together; prints how long until all have finished.

The last two lines are ``bot_reply_p50_ms: N`` and ``bot_reply_p99_ms: N``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
import uuid
from typing import Any

from celery import current_app as app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from bots.strategies import STRATEGIES
from core import notify
from core.processes import celery_command
from games import services
from games.engine import Match
from games.models import Game, GameStatus, Move
from live.hub import game_channel
from players.models import User

POLL_SECONDS = 0.0005


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = "Measure server-bot reply latency (p50/p99) and 50 simultaneous bot matches, with a real worker."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--samples", type=int, default=300, help="Human moves to time (default 300).")
        parser.add_argument("--matches", type=int, default=50, help="Simultaneous four-bot matches (default 50).")
        parser.add_argument("--rounds", type=int, default=None, help="Rounds per bot match (default: all 10).")
        parser.add_argument(
            "--concurrency",
            type=int,
            default=1,
            help="Processes of the one worker (default 1: the solo pool; more: prefork).",
        )
        parser.add_argument(
            "--strategies",
            default="greedy",
            help="Comma-separated strategies whose reply latency is measured, each on its own duels "
            "(default greedy; e.g. greedy,easy,medium,hard,strong). The last lines are the first one's.",
        )
        parser.add_argument("--no-worker", action="store_true", help="Use a worker that is already running.")
        parser.add_argument("--keep", action="store_true", help="Keep the accounts and games made.")

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql" or not settings.REDIS_URL:
            raise CommandError("bench_bots needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).")
        tag = uuid.uuid4().hex[:8]
        human = User.objects.create_user(username=f"bench-{tag}", password=None)
        worker = None
        if not options["no_worker"]:
            # A queue of its own: no other worker on this Redis takes the bench's tasks.
            app.conf.task_default_queue = f"bench-{tag}"
            worker = self._start_worker(options["concurrency"], app.conf.task_default_queue)
        strategies = [name.strip() for name in options["strategies"].split(",") if name.strip()]
        unknown = [name for name in strategies if name not in STRATEGIES]
        if not strategies or unknown:
            raise CommandError(f"--strategies: unknown {unknown}; there are {', '.join(sorted(STRATEGIES))}")
        try:
            by_strategy = {name: self._reply_latency(human, options["samples"], name) for name in strategies}
            latencies = by_strategy[strategies[0]]
            elapsed, moves = self._bot_matches(human, options["matches"], options["rounds"])
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(20)
            if not options["keep"]:
                services.games_purge(creator=human)
                human.delete()
        out = self.stdout.write
        out(
            f"bot_matches: {options['matches']} four-bot matches, {moves} moves in {elapsed:.1f} s "
            f"({moves / elapsed:.0f} bot moves/s)"
        )
        for name, replies in by_strategy.items():
            out(
                f"bot_reply[{name}]: {len(replies)} replies, mean {statistics.fmean(replies):.1f} ms, "
                f"p50 {_percentile(replies, 0.50):.1f} ms, p99 {_percentile(replies, 0.99):.1f} ms"
            )
        out(f"bot_reply_samples: {len(latencies)}")
        out(f"bot_reply_mean_ms: {statistics.fmean(latencies):.1f}")
        out(f"bot_reply_p50_ms: {_percentile(latencies, 0.50):.1f}")
        out(f"bot_reply_p99_ms: {_percentile(latencies, 0.99):.1f}")

    def _start_worker(self, concurrency: int, queue: str) -> subprocess.Popen[bytes]:
        log = open(os.environ.get("BENCH_WORKER_LOG", os.devnull), "wb")  # noqa: SIM115 - lives as long as the worker
        worker = subprocess.Popen(
            celery_command("worker", pool="solo" if concurrency == 1 else "prefork", concurrency=concurrency),
            stdout=log,
            stderr=log,
            env={**os.environ, "CELERY_QUEUE": queue},
        )
        time.sleep(5)  # let it connect
        if worker.poll() is not None:
            raise CommandError("the Celery worker did not start")
        self.stdout.write(f"worker started (pid {worker.pid}, concurrency {concurrency})")
        return worker

    def _new_duel(self, human: User, strategy: str) -> Game:
        game = services.game_create(creator=human, ruleset={"set_max": 9, "players": 2})
        services.game_add_bot(game_id=game.pk, by=human, strategy=strategy)
        return services.game_start(game_id=game.pk, by=human)

    def _wait(self, game_id: int, predicate: Any, timeout: float = 10.0) -> Game:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            game = Game.objects.only("id", "seq", "status", "turn_seat", "state").get(pk=game_id)
            if predicate(game):
                return game
            time.sleep(POLL_SECONDS)
        raise CommandError(f"game {game_id}: the bot did not answer within {timeout} s (is a worker running?)")

    def _reply_latency(self, human: User, samples: int, strategy: str) -> list[float]:
        """Waits for the bot through the server's own notice (Redis pub/sub,
        published after the bot's move commits): no busy polling that would steal
        the worker's CPU on a small machine."""
        import redis

        latencies: list[float] = []
        pubsub = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
        game = self._new_duel(human, strategy)
        pubsub.subscribe(game_channel(game.pk))
        while len(latencies) < samples:
            game = self._wait(game.pk, lambda g: g.status != GameStatus.RUNNING or g.turn_seat == 0)
            if game.status != GameStatus.RUNNING:
                pubsub.unsubscribe()
                game = self._new_duel(human, strategy)
                pubsub.subscribe(game_channel(game.pk))
                continue
            move = Match.from_dict(game.state).legal_moves(0)[0].to_dict()
            result = services.move_submit(game_id=game.pk, player=human, move=move, expected_seq=game.seq)
            committed = time.perf_counter()  # move_submit returns after the commit
            if result.game.turn_seat != 1:  # the human drew a playable tile, or the round/match ended
                continue
            human_seq = result.game.seq
            deadline = time.monotonic() + 10
            while True:
                # None also comes for (ignored) subscribe confirmations: wait on until the deadline.
                message = pubsub.get_message(timeout=max(0.0, deadline - time.monotonic()))
                if message is not None:
                    notice = notify.message_of(message["data"])
                    if isinstance(notice, dict) and notice.get("game") == game.pk and notice["seq"] > human_seq:
                        break
                elif time.monotonic() > deadline:
                    game = Game.objects.get(pk=game.pk)
                    raise CommandError(
                        f"game {game.pk}: no bot move within 10 s of seq {human_seq} "
                        f"(now seq {game.seq}, seat {game.turn_seat} to move; is a worker running?)"
                    )
            latencies.append((time.perf_counter() - committed) * 1000)
            if not Move.objects.filter(game_id=game.pk, number=result.move.number + 1).exists():
                raise CommandError("notified of a bot move that is not in the database")
        pubsub.close()
        return latencies

    def _bot_matches(self, human: User, count: int, rounds: int | None) -> tuple[float, int]:
        ruleset = {"set_max": 9, "players": 4, "rounds": rounds}
        games = []
        for _ in range(count):
            game = services.game_create(creator=human, ruleset=ruleset, sit=False)
            for strategy in ("greedy", "random", "greedy", "random"):
                services.game_add_bot(game_id=game.pk, by=human, strategy=strategy)
            games.append(game.pk)
        start = time.perf_counter()
        for game_id in games:
            services.game_start(game_id=game_id, by=human)
        deadline = time.monotonic() + 1800
        while Game.objects.filter(pk__in=games, status=GameStatus.RUNNING).exists():
            if time.monotonic() > deadline:
                raise CommandError("the bot matches did not finish within 30 minutes")
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        return elapsed, Move.objects.filter(game_id__in=games).count()
