"""``manage.py loadtest``: many matches at once over HTTP against a running server.

Prints moves per second and move latency; the last lines are ``p50_ms: N``,
``moves_per_second: N`` and ``p99_ms: N``. ``--compare-bare`` holds the move path
against a bare locked write on the same server, runs interleaved
(``tools/loadtest/compare.py``): its last lines are ``bare_moves_per_second``,
``real_moves_per_second``, ``ratio_moves_per_second`` and ``ratio_cpu_per_move``.
``--compare-metrics`` (with ``--spawn``) plays two spawned servers, metrics on and
off, in turns; ``--compare-url URL`` plays this server and another one (e.g. ``make
cluster``'s load balancer, over HTTPS verified with ``--cafile``) in turns
(``tools/loadtest/versus.py``): their last lines are each side's moves/s and p99
and ``ratio_moves_per_second`` (second side / first).
``--json`` prints the figures as one JSON document instead (progress on stderr).
See ``tools/loadtest/clients.py`` for how the clients play, and the README's
"Load test" section for how to run it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tools.loadtest.compare import run_comparison
from tools.loadtest.connection import use_tls
from tools.loadtest.cpu import ServerCpu
from tools.loadtest.options import CLUSTER_SUBNET, FOLLOW_MODES, IDLE_MODES, LoadTestError, Options
from tools.loadtest.peer import PEERS, PeerComparison, check_peer, peer_url, run_peer_comparison, spawned_peer
from tools.loadtest.runner import run_loadtest
from tools.loadtest.spawn import DEFAULT_DATABASE_URL, spawned_server
from tools.loadtest.versus import Side, Versus, run_versus

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
            "--compare-metrics",
            action="store_true",
            help="With --spawn: two servers, metrics on (at --url) and off (at its port + 1), each on a database "
            "and Redis database of its own, played in turns; prints both and their ratio.",
        )
        parser.add_argument(
            "--compare-url",
            default="",
            help="Another server (http:// or https://; this machine or make cluster's hosts) played in turns with "
            "--url's (or --spawn's); prints both and their ratio (second / first).",
        )
        parser.add_argument(
            "--peer",
            choices=PEERS,
            default="",
            help="With --spawn: a peer game server (tools/peers/<peer>, Node.js; `make peer-boardgameio-install` "
            "first) on a database of its own at --peer-url, played in turns with ours, the same number of clients "
            "moving over HTTP; prints both and ours / peer (tools/loadtest/peer.py).",
        )
        parser.add_argument(
            "--no-turn-clock",
            action="store_true",
            help="Open the tables without a turn clock (turn_time_limit null; default: the server's clock).",
        )
        parser.add_argument(
            "--peer-no-clock",
            action="store_true",
            help="With --peer: a third side, ours on tables without a turn clock, in turn with the other two.",
        )
        parser.add_argument(
            "--peer-url", default="", help="With --peer: where the peer listens (default: --url's port + 1)."
        )
        parser.add_argument(
            "--cafile",
            default=None,
            help="The certificate authority an https:// server is verified with (make cluster's: "
            "/tmp/chickenfoot-cluster/tls/ca.crt); default: the system's.",
        )
        parser.add_argument(
            "--repeat",
            type=int,
            default=3,
            help="With --compare-bare, --compare-metrics, --compare-url, --peer: runs of each kind "
            "(default %(default)s).",
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
            turn_clock=not options["no_turn_clock"],
        )
        out = self.stderr.write if options["json"] else self.stdout.write
        compare = options["compare_bare"]
        if sum(map(bool, (compare, options["compare_metrics"], options["compare_url"], options["peer"]))) > 1:
            raise CommandError("--compare-bare, --compare-metrics, --compare-url and --peer: one at a time")
        for url in (config.url, options["compare_url"]):
            if url:
                use_tls(url, options["cafile"])
        if options["compare_metrics"] or options["compare_url"]:
            try:
                result: Any = self._versus(options, config, out)
            except LoadTestError as error:
                raise CommandError(str(error)) from error
            self._print(result, options["json"])
            return
        if options["peer"]:
            try:
                result = self._peer(options, config, out)
            except LoadTestError as error:
                raise CommandError(str(error)) from error
            self._print(result, options["json"])
            return

        def measure(server_pids: list[int], server_cpu: ServerCpu | None) -> Any:
            if compare:
                workers = options["web_workers"] if options["spawn"] else None
                return run_comparison(config, options["repeat"], out, server_pids, server_cpu, workers)
            return run_loadtest(config, out=out, server_pids=server_pids, server_cpu=server_cpu)

        try:
            result = self._serve_and_measure(options, config, out, measure)
        except LoadTestError as error:
            raise CommandError(str(error)) from error
        self._print(result, options["json"])

    def _print(self, result: Any, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(result.as_dict(), indent=2))
        else:
            for line in result.lines():
                self.stdout.write(line)

    def _versus(self, options: dict[str, Any], config: Options, out: Callable[[str], None]) -> Versus:
        """``--compare-metrics`` or ``--compare-url``: two servers in turns."""
        repeat = options["repeat"]
        with ExitStack() as stack:
            if options["compare_metrics"]:
                if not options["spawn"]:
                    raise CommandError("--compare-metrics spawns its two servers: add --spawn")
                sides = [
                    self._spawn_side(stack, options, config.url, "metrics-on", {"METRICS_ENABLED": "true"}, out),
                    self._spawn_side(
                        stack, options, _next_port(config.url), "metrics-off", {"METRICS_ENABLED": "false"}, out
                    ),
                ]
            else:
                if options["spawn"]:
                    first = self._spawn_side(stack, options, config.url, "one-box", {}, out)
                else:
                    first = Side("first", config.url, options["server_pid"])
                other = urlsplit(options["compare_url"]).hostname or ""
                label = "cluster" if other.startswith(CLUSTER_SUBNET + ".") else "other"
                sides = [first, Side(label, options["compare_url"])]
            return run_versus(config, sides, repeat, out)

    def _peer(self, options: dict[str, Any], config: Options, out: Callable[[str], None]) -> PeerComparison:
        """``--peer``: our spawned server and the peer's, each on a database of its own, in turns."""
        if not options["spawn"]:
            raise CommandError("--peer spawns both servers (ours as --spawn does): add --spawn")
        url = (options["peer_url"] or peer_url(config.url)).rstrip("/")
        check_peer(options["peer"], url, settings.BASE_DIR)  # before ours is started
        database = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
        peer_database = _with_path(database, f"{urlsplit(database).path.lstrip('/')}_{options['peer']}")
        with ExitStack() as stack:
            server = stack.enter_context(
                spawned_server(
                    config.url,
                    web_workers=options["web_workers"],
                    base_dir=settings.BASE_DIR,
                    log_dir=settings.BASE_DIR / ".run" / "loadtest",
                    out=out,
                )
            )
            ours_cpu = ServerCpu(
                {"web": server.web_pid, "worker": server.worker_pid}, server.database_url, server.redis_url
            )
            stack.callback(ours_cpu.close)
            node_pid = stack.enter_context(
                spawned_peer(
                    options["peer"],
                    url,
                    peer_database,
                    base_dir=settings.BASE_DIR,
                    log_dir=settings.BASE_DIR / ".run" / "loadtest",
                    out=out,
                )
            )
            peer_cpu = ServerCpu({"web": node_pid}, peer_database)
            stack.callback(peer_cpu.close)
            return run_peer_comparison(
                config,
                options["repeat"],
                (config.url, server.pids, ours_cpu),
                (url, peer_cpu),
                out,
                no_clock=options["peer_no_clock"],
            )

    def _spawn_side(
        self,
        stack: ExitStack,
        options: dict[str, Any],
        url: str,
        label: str,
        env: dict[str, str],
        out: Callable[[str], None],
    ) -> Side:
        """A spawned server for one side, on a database, a Celery queue and Redis keys of
        its own, so that neither side's worker takes the other's tasks; ``env`` last."""
        database = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
        tag = f"loadtest-{label}-{os.getpid()}"
        overrides = {
            "DATABASE_URL": _with_path(database, f"{urlsplit(database).path.lstrip('/')}_{_key(label)}"),
            "CELERY_QUEUE": tag,
            "CACHE_KEY_PREFIX": tag,
            # Under METRICS_DIR when it is set (e.g. a tmpfs), else under .run.
            "METRICS_DIR": str(
                Path(os.environ["METRICS_DIR"]) / label
                if os.environ.get("METRICS_DIR")
                else Path(settings.BASE_DIR) / ".run" / f"loadtest-{label}" / "metrics"
            ),
            **env,
        }
        server = stack.enter_context(
            spawned_server(
                url,
                web_workers=options["web_workers"],
                base_dir=settings.BASE_DIR,
                log_dir=settings.BASE_DIR / ".run" / f"loadtest-{label}",
                out=out,
                env_overrides=overrides,
            )
        )
        cpu = ServerCpu({"web": server.web_pid, "worker": server.worker_pid}, server.database_url, server.redis_url)
        stack.callback(cpu.close)
        return Side(label, url, server.pids, cpu)

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


def _next_port(url: str) -> str:
    parts = urlsplit(url)
    return parts._replace(netloc=f"{parts.hostname}:{(parts.port or 80) + 1}").geturl()


def _with_path(url: str, path: str) -> str:
    return urlsplit(url)._replace(path=f"/{path}").geturl()


def _key(label: str) -> str:
    return label.replace("-", "_")
