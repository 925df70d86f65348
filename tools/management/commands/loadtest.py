"""``manage.py loadtest``: many matches at once over HTTP against a running server.

Prints moves per second and move latency; the last lines are ``p50_ms: N``,
``moves_per_second: N`` and ``p99_ms: N``. See ``tools/loadtest/clients.py`` for how
the clients play, and the README's "Load test" section for how to run it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tools.loadtest.options import FOLLOW_MODES, IDLE_MODES, LoadTestError, Options
from tools.loadtest.runner import run_loadtest
from tools.loadtest.spawn import spawned_server


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
        out = self.stdout.write
        try:
            if options["spawn"]:
                with spawned_server(
                    config.url,
                    web_workers=options["web_workers"],
                    base_dir=settings.BASE_DIR,
                    log_dir=settings.BASE_DIR / ".run" / "loadtest",
                    out=out,
                ) as pids:
                    report = run_loadtest(config, out=out, server_pids=pids)
            else:
                report = run_loadtest(config, out=out, server_pids=options["server_pid"])
        except LoadTestError as error:
            raise CommandError(str(error)) from error
        for line in report.lines():
            out(line)
