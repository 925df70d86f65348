"""``manage.py bench_matching --players 4 --seekers 200``: how fast quick play
matches a burst of seeks.

Creates ``--seekers`` throw-away accounts, then posts one seek each from
``--threads`` threads released together by a barrier (all at once, or paced at
``--rate`` seeks per second), through the same service
the API calls (``matchmaking.services.seek_create``: validation, the seat check,
the insert, the task sent on commit - not the HTTP layer). Every seek asks for the
same table (``--players``, ``--preset``, casual, no clock, a long wait), so all of
them can be matched and none times out.

The matcher runs in one real Celery worker process that the command starts (on a
queue of its own, ``--concurrency`` processes; it needs PostgreSQL and Redis) and
that takes the ``matchmaking.match`` tasks the seeks send on commit (coalesced: a
seek sends one only when no run is due yet, ``services.match_soon``) - exactly as
in production; or, with ``--inline``, in ``--concurrency`` threads of this process
that call ``services.seeks_match()`` in a loop, as the task does.

Prints the seek-to-matched time (``matched_at - created_at``, both written by
this machine's clock) at p50/p99 - with the wait for partners - and, per table,
the time from its last seek to the match (the matcher's own delay), and tables and seeks matched per
second from the first seek to the last match. Deletes its accounts, seeks and
games afterwards (``--keep`` keeps them).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import redis
from celery import current_app as app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection

from core.processes import celery_command
from games import services as game_services
from games.models import Seat
from matchmaking import services
from matchmaking.models import Seek, SeekStatus
from matchmaking.presets import PRESETS
from players.models import User

READY_TIMEOUT_SECONDS = 30


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Command(BaseCommand):
    help = "Measure quick play's matching: p50/p99 seek-to-matched time and matches per second."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--players", type=int, default=4, help="Seats per table (default 4).")
        parser.add_argument("--seekers", type=int, default=200, help="Accounts seeking at once (default 200).")
        parser.add_argument("--preset", default="double-9", choices=list(PRESETS))
        parser.add_argument("--threads", type=int, default=16, help="Threads posting seeks (default 16).")
        parser.add_argument(
            "--rate", type=float, default=0.0, help="Seeks per second, paced (default 0: all at once, a burst)."
        )
        parser.add_argument("--concurrency", type=int, default=1, help="Worker processes or inline matcher threads.")
        parser.add_argument("--inline", action="store_true", help="Run the matcher in this process, no worker.")
        parser.add_argument("--timeout", type=float, default=120.0, help="Give up after this many seconds.")
        parser.add_argument("--keep", action="store_true", help="Keep the accounts, seeks and games.")
        parser.add_argument(
            "--compare",
            type=int,
            default=0,
            metavar="N",
            help="N runs of each, in turn, of the matcher as it was before (services.seeks_match(legacy=True): "
            "one lock, a transaction and five games changes a table) and as it is; implies --inline.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["compare"]:
            self._run(options, legacy=False)
            return
        options["inline"] = True
        for number in range(options["compare"]):
            for legacy in (False, True) if number % 2 else (True, False):
                self.stdout.write(f"== {'before (legacy)' if legacy else 'after'}, run {number + 1}")
                self._run(options, legacy=legacy)

    def _run(self, options: dict[str, Any], *, legacy: bool) -> None:
        players, count = options["players"], options["seekers"]
        if count % players:
            raise CommandError("--seekers must be a multiple of --players (every seek can then be matched).")
        if not options["inline"] and (connection.vendor != "postgresql" or not settings.REDIS_URL):
            raise CommandError("a real worker needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); or --inline.")
        tag = uuid.uuid4().hex[:8]
        accounts = self._accounts(tag, count)
        worker = None
        queue = f"bench-matching-{tag}"
        stop = threading.Event()
        matchers: list[threading.Thread] = []
        try:
            if options["inline"]:
                matchers = [
                    threading.Thread(target=self._match_loop, args=(stop, legacy))
                    for _ in range(options["concurrency"])
                ]
            else:
                app.conf.task_default_queue = queue
                worker = self._start_worker(options["concurrency"], queue)
            started = time.monotonic()
            for thread in matchers:
                thread.start()
            self._post(accounts, players, options["preset"], options["threads"], options["rate"])
            posted = time.monotonic() - started
            self._wait_matched(accounts, options["timeout"])
            rows = list(
                Seek.objects.filter(user__in=accounts).values_list("created_at", "matched_at", "game_id", "status")
            )
            # Nobody seated twice: each account holds one seat, at the game its seek names.
            seats = list(Seat.objects.filter(player__in=accounts).values_list("player_id", "game_id"))
            matched_in = dict(Seek.objects.filter(user__in=accounts).values_list("user_id", "game_id"))
            twice = len(seats) - len({player for player, _ in seats})
            elsewhere = sum(1 for player, game in seats if matched_in.get(player) != game)
        finally:
            stop.set()
            for thread in matchers:
                thread.join(30)
            if worker is not None:
                worker.terminate()
                worker.wait(20)
                client = redis.Redis.from_url(settings.REDIS_URL)
                # the deadlines' tasks left on its queue, and the matcher's marks (services.match_soon)
                client.delete(queue, *client.keys(f"{queue}:*"))
            if not options["keep"]:
                self._clean(accounts)
        how = "inline threads" if options["inline"] else "a Celery worker"
        self._report(
            rows, players, count, posted, how + (f", {options['rate']:g} seeks/s" if options["rate"] else ", a burst")
        )
        self.stdout.write(f"seated_twice: {twice}, seated_elsewhere_than_matched: {elsewhere}")

    def _accounts(self, tag: str, count: int) -> list[User]:
        users = []
        for i in range(count):
            user = User(username=f"bench-mm-{tag}-{i}")
            user.set_unusable_password()
            users.append(user)
        User.objects.bulk_create(users)
        return list(User.objects.filter(username__startswith=f"bench-mm-{tag}-").order_by("pk"))

    def _post(self, accounts: list[User], players: int, preset: str, threads: int, rate: float) -> None:
        """Every account seeks, from ``threads`` threads released together: at once, or
        the n-th seek at n / ``rate`` seconds (pacing the load, not synchronising)."""
        barrier = threading.Barrier(threads)
        errors: list[BaseException] = []
        start = time.monotonic() + 0.5

        def post(share: list[tuple[int, User]]) -> None:
            try:
                barrier.wait(30)
                for number, user in share:
                    if rate:
                        time.sleep(max(0.0, start + number / rate - time.monotonic()))
                    services.seek_create(user=user, players=players, preset=preset, wait_seconds=600)
            except BaseException as error:
                errors.append(error)
            finally:
                connection.close()

        numbered = list(enumerate(accounts))
        workers = [threading.Thread(target=post, args=(numbered[i::threads],)) for i in range(threads)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        if errors:
            raise CommandError(f"{len(errors)} seek(s) failed, the first: {errors[0]!r}")

    def _match_loop(self, stop: threading.Event, legacy: bool = False) -> None:
        """What the task does, again and again until told to stop."""
        try:
            while not stop.is_set():
                close_old_connections()
                services.seeks_match(legacy=legacy)
        finally:
            connection.close()

    def _wait_matched(self, accounts: list[User], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not Seek.objects.filter(user__in=accounts, status=SeekStatus.WAITING).exists():
                return
            time.sleep(0.05)  # polling the outcome, not synchronising anything
        raise CommandError(f"seeks still waiting after {timeout} s (is the worker running? see BENCH_WORKER_LOG)")

    def _start_worker(self, concurrency: int, queue: str) -> subprocess.Popen[bytes]:
        log_path = Path(os.environ.get("BENCH_WORKER_LOG") or tempfile.mkstemp(suffix=".log")[1])
        log = log_path.open("wb")
        worker = subprocess.Popen(
            celery_command(
                "worker", pool="solo" if concurrency == 1 else "prefork", concurrency=concurrency, log_level="info"
            ),
            stdout=log,
            stderr=log,
            env={**os.environ, "CELERY_QUEUE": queue},
        )
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while " ready." not in log_path.read_text(errors="replace"):
            if worker.poll() is not None or time.monotonic() > deadline:
                worker.kill()
                raise CommandError(f"the Celery worker did not start: see {log_path}")
            time.sleep(0.05)
        self.stdout.write(f"worker started (pid {worker.pid}, concurrency {concurrency}, log {log_path})")
        return worker

    def _clean(self, accounts: list[User]) -> None:
        for user in accounts:
            game_services.games_purge(creator=user)
        User.objects.filter(pk__in=[u.pk for u in accounts]).delete()  # their seeks go with them

    def _report(self, rows: list[tuple[Any, ...]], players: int, count: int, posted: float, how: str) -> None:
        matched = [(created, at) for created, at, game, status in rows if status == SeekStatus.MATCHED]
        games = {game for *_, game, status in rows if status == SeekStatus.MATCHED}
        waits = [(at - created).total_seconds() * 1000 for created, at in matched]
        span = (max(at for _, at in matched) - min(created for created, _ in matched)).total_seconds()
        out = self.stdout.write
        out(f"bench_matching: {count} seekers, {players} players a table, matcher in {how}")
        out(f"posted: {count} seeks in {posted:.2f} s ({count / posted:.0f} seeks/s)")
        out(f"matched: {len(matched)} seeks into {len(games)} tables in {span:.2f} s")
        out(f"seek_to_matched_mean_ms: {statistics.fmean(waits):.1f}")
        out(f"seek_to_matched_p50_ms: {_percentile(waits, 0.50):.1f}")
        out(f"seek_to_matched_p99_ms: {_percentile(waits, 0.99):.1f}")
        # From the last seek of a table (when the table could first be made) to the match:
        # the matcher's own delay, without the wait for partners.
        last: dict[Any, Any] = {}
        matched_at: dict[Any, Any] = {}
        for created, at, game, status in rows:
            if status == SeekStatus.MATCHED:
                last[game] = max(last.get(game, created), created)
                matched_at[game] = at
        delays = [(matched_at[game] - created).total_seconds() * 1000 for game, created in last.items()]
        out(f"table_complete_to_matched_p50_ms: {_percentile(delays, 0.50):.1f}")
        out(f"table_complete_to_matched_p99_ms: {_percentile(delays, 0.99):.1f}")
        out(f"tables_per_second: {len(games) / span:.1f}")
        out(f"seeks_matched_per_second: {len(matched) / span:.1f}")
