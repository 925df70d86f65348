"""``manage.py loadtest``: many matches at once over HTTP against a running server.

Prints moves per second and move latency; the last lines are ``p50_ms: N``,
``moves_per_second: N`` and ``p99_ms: N``. ``--compare-bare`` holds the move path
against a bare locked write on the same server, runs interleaved
(``tools/loadtest/compare.py``): its last lines are ``bare_moves_per_second``,
``real_moves_per_second``, ``ratio_moves_per_second`` and ``ratio_cpu_per_move``.
``--json`` prints the figures as one JSON document instead (progress on stderr).
See ``tools/loadtest/clients.py`` for how the clients play, and the README's
"Load test" section for how to run it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tools.loadtest.compare import run_comparison
from tools.loadtest.cpu import ServerCpu
from tools.loadtest.options import FOLLOW_MODES, IDLE_MODES, LoadTestError, Options
from tools.loadtest.runner import run_loadtest
from tools.loadtest.spawn import spawned_server

BENCH_SETTINGS = "tools.loadtest.bare.settings"  # the project's, plus the bare endpoint


class Command(BaseCommand):
    help = (
        "Play many 2-player matches at once over HTTP against a running server (127.0.0.1 only) and print "
        "moves per second and move latency p50/p99."
    )

    def add_arguments(self, parser: Any) -> None:
        defaults = Options()
        parser.add_argument("--url", default=defaults.url, help="The server (default %(default)s; localhost only).")
        parser.add_argument(
            "--clients",
            type=int,
            default=defaults.clients,
            help="Concurrent clients, an even number: they play in pairs (default %(default)s).",
        )
        parser.add_argument(
            "--duration", type=float, default=defaults.duration, help="Seconds measured (default %(default)s)."
        )
        parser.add_argument(
            "--warmup",
            type=float,
            default=defaults.warmup,
            help="Seconds played before measuring (default %(default)s).",
        )
        parser.add_argument(
            "--games-per-pair",
            type=int,
            default=defaults.games_per_pair,
            help="Duels each pair plays at once (default %(default)s: each partner opens one).",
        )
        parser.add_argument(
            "--follow",
            choices=FOLLOW_MODES,
            default=defaults.follow,
            help="How a client learns the opponent moved (default %(default)s; see tools/loadtest/clients.py).",
        )
        parser.add_argument(
            "--set",
            dest="set_max",
            type=int,
            choices=(6, 9),
            default=defaults.set_max,
            help="Double-N set (default %(default)s).",
        )
        parser.add_argument(
            "--idle-streams",
            type=int,
            default=0,
            help="Hold this many event streams (or long-polls) open on idle games during the run.",
        )
        parser.add_argument(
            "--idle-mode",
            choices=IDLE_MODES,
            default=defaults.idle_mode,
            help="sse: GET .../stream/; longpoll: GET .../events/?after=&wait= (default %(default)s).",
        )
        parser.add_argument(
            "--idle-wait", type=int, default=defaults.idle_wait, help="Long-poll wait in seconds (default %(default)s)."
        )
        parser.add_argument(
            "--idle-games",
            type=int,
            default=defaults.idle_games,
            help="Idle tables the streams are spread over (default %(default)s).",
        )
        parser.add_argument("--seed", type=int, default=None, help="Seed the clients' move choices.")
        parser.add_argument(
            "--spawn",
            action="store_true",
            help="Start a production-style server first (the Procfile's gunicorn web workers + a Celery worker, DEBUG off, "
            "DATABASE_URL/REDIS_URL or local PostgreSQL/Redis; migrates) and stop it at the end.",
        )
        parser.add_argument(
            "--server-pid",
            type=int,
            action="append",
            default=[],
            help="A server process (its children too) whose CPU time to report per move; repeatable.",
        )
        parser.add_argument(
            "--web-workers", type=int, default=4, help="Web worker processes with --spawn (default %(default)s)."
        )
        parser.add_argument(
            "--compare-bare",
            action="store_true",
            help="Interleave runs of the move path with runs of a bare locked-write endpoint on the same server "
            f"and print both and their ratio (the server must run {BENCH_SETTINGS}: --spawn does).",
        )
        parser.add_argument(
            "--repeat",
            type=int,
            default=3,
            help="With --compare-bare: runs of each kind (default %(default)s).",
        )
        parser.add_argument(
            "--json", action="store_true", help="Print the figures as JSON (progress lines go to stderr)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        config = Options(
            url=options["url"].rstrip("/"),
            clients=options["clients"],
            duration=options["duration"],
            warmup=options["warmup"],
            games_per_pair=options["games_per_pair"],
            follow=options["follow"],
            set_max=options["set_max"],
            idle_streams=options["idle_streams"],
            idle_mode=options["idle_mode"],
            idle_wait=options["idle_wait"],
            idle_games=options["idle_games"],
            seed=options["seed"],
        )
        out = self.stderr.write if options["json"] else self.stdout.write
        compare = options["compare_bare"]

        def measure(server_pids: list[int], server_cpu: ServerCpu | None) -> Any:
            if compare:
                workers = options["web_workers"] if options["spawn"] else None
                return run_comparison(config, options["repeat"], out, server_pids, server_cpu, workers)
            return run_loadtest(config, out=out, server_pids=server_pids, server_cpu=server_cpu)

        try:
            result = self._serve_and_measure(options, config, out, measure)
        except LoadTestError as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict(), indent=2))
        else:
            for line in result.lines():
                self.stdout.write(line)

    def _serve_and_measure(
        self,
        options: dict[str, Any],
        config: Options,
        out: Callable[[str], None],
        measure: Callable[[list[int], ServerCpu | None], Any],
    ) -> Any:
        """``measure(server pids, their CPU split)`` on the spawned server, or on ``--url``'s."""
        if options["spawn"]:
            with spawned_server(
                config.url,
                web_workers=options["web_workers"],
                base_dir=settings.BASE_DIR,
                log_dir=settings.BASE_DIR / ".run" / "loadtest",
                out=out,
                settings_module=BENCH_SETTINGS if options["compare_bare"] else None,
            ) as server:
                server_cpu = ServerCpu(
                    {"web": server.web_pid, "worker": server.worker_pid}, server.database_url, server.redis_url
                )
                try:
                    return measure(server.pids, server_cpu)
                finally:
                    server_cpu.close()
        # A server of one's own: its pids as given (the first is "web", a second "worker"),
        # PostgreSQL and Redis as this process's environment names them.
        pids = options["server_pid"]
        if len(pids) > 2:
            raise CommandError("--server-pid: at most two (the web server's, then the worker's)")
        database_url = os.environ.get("DATABASE_URL", "")
        server_cpu = ServerCpu(
            dict(zip(("web", "worker"), pids, strict=False)),
            database_url if database_url.startswith("postgres") else None,
            os.environ.get("REDIS_URL") or None,
        )
        try:
            return measure(pids, server_cpu)
        finally:
            server_cpu.close()
