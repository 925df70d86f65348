"""``manage.py bench_analysis``: what a game analysis costs, and whether bot turns feel it.

1. CPU per analysis: ``--games`` matches (default 20; double-9, four players, every
   round, greedy seats) are played in memory and seat 0 of each is analysed as the
   task does (``bots.analysis.analyse`` with ``ANALYSIS_DEALS`` deals a decision);
   prints the CPU seconds per game (median, p99) and the decisions per game.
2. Bot turns with and without analyses running, in one run: like ``bench_bots``, a
   human (this command, through the services) and a ``--strategy`` bot (default
   strong) duel on double-9, and the bot's reply is timed from the human's commit to
   the bot's commit notice, ``--samples`` times (default 200). Two real workers run,
   as ``manage.py serve`` runs them: the bots' worker on the default queue and the
   analysis worker (niced) on the analysis queue. First with the analysis worker
   idle, then while it runs an analysis (of a finished four-bot match, with so many
   deals a decision that it lasts the whole phase). Prints p50 and p99 of both.

Needs PostgreSQL (``DATABASE_URL``) and Redis (``REDIS_URL``); throw-away accounts and
games are deleted afterwards.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import time
import uuid
from typing import Any

from celery import current_app as app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test import override_settings

from analysis import services as analysis_services
from analysis.models import Analysis, AnalysisStatus
from bots import analysis
from bots.strategies import choose_greedy
from core.processes import celery_command
from games import services
from games.engine import PLAYING, Match, Ruleset, seat_view
from games.models import Game, GameStatus
from players.models import User
from tools.management.commands.bench_bots import Command as BenchBots
from tools.management.commands.bench_bots import _percentile

RULESET = {"set_max": 9, "players": 4}


def played_match(seed: int) -> list[tuple[int, dict[str, Any]]]:
    match, _ = Match.new(Ruleset.from_dict(RULESET), seed)
    rng = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    while match.status == PLAYING:
        seat = match.turn
        move = choose_greedy(seat_view(match, seat), rng)
        moves.append((seat, move))
        match.apply(seat, move)
    return moves


class Command(BaseCommand):
    help = "Measure the CPU of a game analysis (median, p99) and bot-turn latency with and without analyses running."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--games", type=int, default=20, help="Matches analysed for the CPU figures (default 20).")
        parser.add_argument("--samples", type=int, default=200, help="Bot replies timed per phase (default 200).")
        parser.add_argument("--strategy", default="strong", help="The bot whose replies are timed (default strong).")
        parser.add_argument("--skip-cpu", action="store_true", help="Only the bot-turn phases.")

    def handle(self, *args: Any, **options: Any) -> None:
        out = self.stdout.write
        if not options["skip_cpu"]:
            self._cpu(options["games"])
        if connection.vendor != "postgresql" or not settings.REDIS_URL:
            raise CommandError("the bot-turn phases need PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).")
        tag = uuid.uuid4().hex[:8]
        human = User.objects.create_user(username=f"bench-{tag}", password=None)
        queue = f"bench-{tag}"
        app.conf.task_default_queue = queue
        analysis_queue = f"{queue}.analysis"
        workers = [
            self._worker(queue, []),
            # As deployed: nice 10, and an analysis so long (deals a decision) that it outlasts the phase.
            self._worker(analysis_queue, ["nice", "-n", "10"], {"ANALYSIS_DEALS": "1000000"}),
        ]
        bench = BenchBots()
        try:
            time.sleep(float(os.environ.get("BENCH_WORKER_START_SECONDS", "30")))  # both start and connect
            without = bench._reply_latency(human, options["samples"], options["strategy"])
            with self.settings_queue(analysis_queue):
                target = self._finished_match(human)
                record, _ = analysis_services.analysis_request(game_id=target, user=human, seat=0)
            deadline = time.monotonic() + 60
            while Analysis.objects.get(pk=record.pk).status != AnalysisStatus.RUNNING:
                if time.monotonic() > deadline:
                    raise CommandError("the analysis worker did not start the analysis")
                time.sleep(0.1)
            during = bench._reply_latency(human, options["samples"], options["strategy"])
            still = Analysis.objects.get(pk=record.pk).status == AnalysisStatus.RUNNING
        finally:
            for worker in workers:
                worker.terminate()
                try:
                    worker.wait(20)
                except subprocess.TimeoutExpired:  # the analysis worker is in the middle of its long analysis
                    worker.kill()
                    worker.wait(20)
            services.games_purge(creator=human)
            human.delete()
        if not still:
            raise CommandError("the analysis ended before the second phase did: raise its deals")
        name = options["strategy"]
        for label, values in (("without analyses", without), ("with an analysis running", during)):
            out(
                f"bot_reply[{name}] {label}: {len(values)} replies, p50 {_percentile(values, 0.5):.1f} ms, "
                f"p99 {_percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms"
            )

    def _cpu(self, games: int) -> None:
        cpu: list[float] = []
        decisions: list[int] = []
        for seed in range(games):
            moves = played_match(seed)
            started = time.process_time()
            result = analysis.analyse(RULESET, seed, None, moves, 0, deals=settings.ANALYSIS_DEALS)
            cpu.append(time.process_time() - started)
            decisions.append(len(result["decisions"]))
        self.stdout.write(
            f"analysis_cpu: {games} matches (double-9, 4 players, every round), seat 0, "
            f"{settings.ANALYSIS_DEALS} deals a decision: median {statistics.median(cpu):.2f} s, "
            f"p99 {_percentile(cpu, 0.99):.2f} s, max {max(cpu):.2f} s; "
            f"decisions a game median {statistics.median(decisions):.0f}, "
            f"{1000 * sum(cpu) / max(1, sum(decisions)):.1f} ms a decision"
        )

    def settings_queue(self, queue: str) -> Any:
        return override_settings(ANALYSIS_QUEUE=queue)

    def _worker(self, queue: str, prefix: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        log = open(os.environ.get("BENCH_WORKER_LOG", os.devnull), "ab")  # noqa: SIM115 - lives as long as the worker
        return subprocess.Popen(
            [*prefix, *celery_command("worker", "-n", f"{queue}@%h")],
            stdout=log,
            stderr=log,
            env={**os.environ, "CELERY_QUEUE": queue, **(env or {})},
        )

    def _finished_match(self, human: User) -> int:
        game = services.game_create(creator=human, ruleset={**RULESET, "rounds": 2}, sit=False)
        for strategy in ("greedy", "random", "greedy", "random"):
            services.game_add_bot(game_id=game.pk, by=human, strategy=strategy)
        services.game_start(game_id=game.pk, by=human)
        deadline = time.monotonic() + 300
        while Game.objects.get(pk=game.pk).status != GameStatus.FINISHED:
            if time.monotonic() > deadline:
                raise CommandError("the bots' match did not finish")
            time.sleep(0.1)
        return game.pk
