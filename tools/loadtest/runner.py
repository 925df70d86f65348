"""One whole run: check the options, set the clients up (accounts, duels, idle
streams, game streams), warm up, measure, stop, and gather the clients' samples
into a ``Report``."""

from __future__ import annotations

import functools
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable

from tools.loadtest.clients import Client, Run, sign_up
from tools.loadtest.connection import Http, uses_tls
from tools.loadtest.cpu import CpuSnapshot, GroupSample, ServerCpu, cpu_line, tree_rss_bytes
from tools.loadtest.follow import GameStreams
from tools.loadtest.idle import IdleStreams
from tools.loadtest.options import FOLLOW_MODES, IDLE_MODES, LoadTestError, Options, parse_url
from tools.loadtest.report import CpuFigures, Report

Account = tuple[str, str]  # (username, API token)
SIGN_UPS_AT_ONCE = 4  # register_accounts


def idle_patience(count: int) -> float:
    """How long the idle streams may take to open: a minute, or 50 a second for more
    (a stream's opening - authentication, the snapshot, the first read - is a few
    milliseconds of server CPU: 10,000 take minutes on two cores)."""
    return max(60.0, count / 50)


def run_loadtest(
    options: Options,
    out: Callable[[str], None] = print,
    server_pids: list[int] | None = None,
    *,
    accounts: list[Account] | None = None,
    server_cpu: ServerCpu | None = None,
) -> Report:
    """Set up, warm up, measure, stop; ``out`` gets progress lines. ``server_pids``:
    processes (with their children) whose CPU time is reported per move;
    ``server_cpu`` splits the server's CPU time by group. ``accounts``: the
    clients' (one each, from ``register_accounts``) instead of fresh sign-ups."""
    if options.clients < 2 or options.clients % 2:
        raise LoadTestError("--clients must be an even number, 2 or more (clients play in pairs)")
    if options.follow not in FOLLOW_MODES:
        raise LoadTestError(f"--follow is one of {', '.join(FOLLOW_MODES)}")
    if options.idle_mode not in IDLE_MODES:
        raise LoadTestError(f"--idle-mode is one of {', '.join(IDLE_MODES)}")
    host, port = parse_url(options.url)
    if uses_tls(host, port) and (options.follow == "stream" or options.idle_streams):
        raise LoadTestError("streams (--follow stream, --idle-streams) are plain HTTP only: give an http:// URL")
    if accounts is not None and len(accounts) < options.clients:
        raise LoadTestError(f"{options.clients} clients need as many accounts, not {len(accounts)}")
    run = Run(options)
    tag = uuid.uuid4().hex[:8]
    clients = [Client(run, i, tag, host, port, accounts[i] if accounts else None) for i in range(options.clients)]
    for a, b in zip(clients[::2], clients[1::2], strict=True):
        a.partner, b.partner = b, a

    out(
        f"setting up: {options.clients} players ({'given' if accounts else 'register, token'}), "
        f"{options.clients // 2 * options.games_per_pair} duels"
    )
    _parallel([c.register for c in clients])
    if options.follow == "stream":
        run.streams = GameStreams(host, port, counted=run.in_window)
        run.streams.start()
    creators = [
        c
        for pair in zip(clients[::2], clients[1::2], strict=True)
        for i, c in enumerate(pair * options.games_per_pair)
        if i < options.games_per_pair
    ]
    try:
        _parallel([c.seat_new_duel for c in creators])
        return _play(options, run, clients, host, port, server_pids, server_cpu, out)
    finally:
        if run.streams is not None:
            run.streams.stop()


def _play(
    options: Options,
    run: Run,
    clients: list[Client],
    host: str,
    port: int,
    server_pids: list[int] | None,
    server_cpu: ServerCpu | None,
    out: Callable[[str], None],
) -> Report:
    """From the duels seated on: idle streams, warm-up, measurement, the report."""
    idle = None
    rss_before = rss_with_idle = None
    if options.idle_streams:
        rss_before = tree_rss_bytes(server_pids or [])
        idle_games = [clients[i % len(clients)].open_idle_table() for i in range(max(1, options.idle_games))]
        targets = [
            (*idle_games[i % len(idle_games)], clients[i % len(clients)].token)
            for i in range(max(len(idle_games), len(clients)))
        ]
        idle = IdleStreams(host, port, targets, options.idle_streams, options.idle_mode, options.idle_wait)
        idle.start()
        opening = time.monotonic()
        patience = idle_patience(options.idle_streams)
        while idle.open < options.idle_streams and time.monotonic() < opening + patience:
            time.sleep(0.1)
        if idle.open < options.idle_streams:
            idle.stop()
            raise LoadTestError(
                f"only {idle.open} of {options.idle_streams} idle {options.idle_mode} streams opened "
                f"within {patience:.0f} s (refused: {dict(idle.refused)})"
            )
        took = time.monotonic() - opening
        rss_with_idle = tree_rss_bytes(server_pids or [])
        out(f"idle streams: {idle.open} open, in {took:.1f} s ({idle.open / max(took, 1e-9):.0f} a second)")

    start = time.perf_counter()
    run.window = (start + options.warmup, start + options.warmup + options.duration)
    for client in clients:
        client.start()
    out(f"playing: {options.warmup:.0f} s warm-up, then {options.duration:.0f} s measured")
    open_counts = []
    meter = Meter(server_pids, server_cpu)
    try:
        measure(run, meter, on_tick=lambda: open_counts.append(idle.open) if idle is not None else None)
    finally:
        run.stop.set()
        for client in clients:
            client.join(30)
        reconnects = idle.reconnects if idle else 0
        if idle is not None:
            idle.stop()
    crashed = [c.crashed for c in clients if c.crashed is not None]
    if crashed:
        raise LoadTestError(f"a client failed: {crashed[0]!r}") from crashed[0]

    end = min(run.window[1], time.perf_counter())
    measured = max(0.0, end - run.window[0])
    errors: Counter[str] = Counter()
    for client in clients:
        errors.update(key for _, key in client.failures)
    report = Report(
        options=options,
        measured=measured,
        latencies_ms=[ms for c in clients for _, ms in c.samples],
        moves=sum(len(c.samples) for c in clients),
        views=sum(len(c.views) for c in clients),
        longpolls=sum(len(c.longpolls) for c in clients),
        errors=errors,
        games_started=run.games_started,
        games_finished=run.games_finished,
    )
    meter.fill(report, [done for c in clients for done, _ in c.samples])
    if run.streams is not None:
        report.streams_opened = run.streams.opened
        report.streams_reopened = run.streams.reopened
        report.stream_events = run.streams.events
        report.stream_refused = run.streams.refused
        report.heard_ms = [ms for c in clients for ms in c.heard_ms]
    if idle is not None:
        report.idle_open_min = min(open_counts, default=idle.open)
        report.idle_open_max = max(open_counts, default=idle.open)
        report.idle_reconnects = reconnects
        report.idle_refused = idle.refused
        if rss_before is not None and rss_with_idle is not None:
            report.server_rss = (rss_before, rss_with_idle)
    return report


class Meter:
    """The CPU snapshots of one measurement: the first as soon as the window has
    begun (up to 0.25 s late: moves are counted from that moment), the last at its end."""

    def __init__(self, server_pids: list[int] | None, server_cpu: ServerCpu | None) -> None:
        self.server_pids = server_pids or []
        self.server_cpu = server_cpu
        self.since: float | None = None
        self.first: tuple[CpuSnapshot, GroupSample | None] | None = None
        self.last: tuple[CpuSnapshot, GroupSample | None] | None = None

    def _take(self) -> tuple[CpuSnapshot, GroupSample | None]:
        return CpuSnapshot.take(self.server_pids), self.server_cpu.take() if self.server_cpu else None

    def tick(self, now: float) -> None:
        if self.since is None:
            self.since, self.first = now, self._take()

    def finish(self) -> None:
        if self.first is not None:
            self.last = self._take()

    def fill(self, report: Report, accepted_at: list[float]) -> None:
        """Put the CPU figures into ``report``; ``accepted_at``: when each measured move was accepted."""
        if self.since is None or self.first is None or self.last is None:
            return
        moves = sum(1 for done in accepted_at if done >= self.since)
        report.cpu = cpu_line(self.first[0], self.last[0], moves)
        split = None
        if self.first[1] is not None and self.last[1] is not None:
            split = ServerCpu.spent(self.first[1], self.last[1])
        report.cpu_figures = CpuFigures.of(self.first[0], self.last[0], moves, split)


def measure(run: Run, meter: Meter, on_tick: Callable[[], object] | None = None) -> None:
    """Sleep through the warm-up and the measurement (``run.window``), or until
    ``run.stop``; ``meter`` takes its snapshots, ``on_tick`` runs every 0.25 s of the window."""
    while time.perf_counter() < run.window[1] and not run.stop.is_set():
        time.sleep(min(0.25, max(0.0, run.window[1] - time.perf_counter())))
        now = time.perf_counter()
        if run.in_window(now):
            meter.tick(now)
            if on_tick is not None:
                on_tick()
    meter.finish()


def register_accounts(url: str, count: int) -> list[Account]:
    """``count`` fresh accounts with an API token each, signed up in parallel
    (for runs that follow each other on one server: they sign up once)."""
    host, port = parse_url(url)
    tag = uuid.uuid4().hex[:8]
    accounts: list[Account] = [("", "")] * count

    def one(i: int) -> None:
        http = Http(host, port)
        try:
            username = f"load-{tag}-{i}"
            accounts[i] = (username, sign_up(http, username))
        finally:
            http.close()

    # At most SIGN_UPS_AT_ONCE at a time: each hashes a password twice on purpose
    # (slow), and a burst of them starves the server's health checks (a load
    # balancer then takes its hosts out, cutting the sign-ups it is serving).
    gate = threading.Semaphore(SIGN_UPS_AT_ONCE)

    def gated(i: int) -> None:
        with gate:
            one(i)

    _parallel([functools.partial(gated, i) for i in range(count)])
    return accounts


def _parallel(calls: list[Callable[[], None]]) -> None:
    """Run set-up calls in threads (registration hashes passwords: slow on purpose)."""
    errors: list[BaseException] = []

    def call(fn: Callable[[], None]) -> None:
        try:
            fn()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=call, args=(fn,)) for fn in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
