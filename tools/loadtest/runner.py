"""One whole run: check the options, set the clients up (accounts, duels, idle
streams), warm up, measure, stop, and gather the clients' samples into a ``Report``."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable

from tools.loadtest.clients import Client, Run
from tools.loadtest.cpu import CpuSnapshot, cpu_line
from tools.loadtest.idle import IdleStreams
from tools.loadtest.options import FOLLOW_MODES, IDLE_MODES, LoadTestError, Options, parse_url
from tools.loadtest.report import Report


def run_loadtest(options: Options, out: Callable[[str], None] = print, server_pids: list[int] | None = None) -> Report:
    """Set up, warm up, measure, stop; ``out`` gets progress lines. ``server_pids``:
    processes (with their children) whose CPU time is reported per move."""
    if options.clients < 2 or options.clients % 2:
        raise LoadTestError("--clients must be an even number, 2 or more (clients play in pairs)")
    if options.follow not in FOLLOW_MODES:
        raise LoadTestError(f"--follow is one of {', '.join(FOLLOW_MODES)}")
    if options.idle_mode not in IDLE_MODES:
        raise LoadTestError(f"--idle-mode is one of {', '.join(IDLE_MODES)}")
    host, port = parse_url(options.url)
    run = Run(options)
    tag = uuid.uuid4().hex[:8]
    clients = [Client(run, i, tag, host, port) for i in range(options.clients)]
    for a, b in zip(clients[::2], clients[1::2], strict=True):
        a.partner, b.partner = b, a

    out(
        f"setting up: {options.clients} players (register, token), {options.clients // 2 * options.games_per_pair} duels"
    )
    _parallel([c.register for c in clients])
    creators = [
        c
        for pair in zip(clients[::2], clients[1::2], strict=True)
        for i, c in enumerate(pair * options.games_per_pair)
        if i < options.games_per_pair
    ]
    _parallel([c.seat_new_duel for c in creators])

    idle = None
    if options.idle_streams:
        idle_games = [clients[i % len(clients)].open_idle_table() for i in range(max(1, options.idle_games))]
        targets = [
            (*idle_games[i % len(idle_games)], clients[i % len(clients)].token)
            for i in range(max(len(idle_games), len(clients)))
        ]
        idle = IdleStreams(host, port, targets, options.idle_streams, options.idle_mode, options.idle_wait)
        idle.start()
        deadline = time.monotonic() + 60
        while idle.open < options.idle_streams and time.monotonic() < deadline:
            time.sleep(0.1)
        if idle.open < options.idle_streams:
            idle.stop()
            raise LoadTestError(
                f"only {idle.open} of {options.idle_streams} idle {options.idle_mode} streams opened "
                f"within 60 s (refused: {dict(idle.refused)})"
            )
        out(f"idle streams: {idle.open} open")

    start = time.perf_counter()
    run.window = (start + options.warmup, start + options.warmup + options.duration)
    for client in clients:
        client.start()
    out(f"playing: {options.warmup:.0f} s warm-up, then {options.duration:.0f} s measured")
    open_counts = []
    cpu_start = cpu_end = None
    try:
        while time.perf_counter() < run.window[1] and not run.stop.is_set():
            time.sleep(min(0.25, max(0.0, run.window[1] - time.perf_counter())))
            now = time.perf_counter()
            if run.in_window(now):
                if cpu_start is None:
                    cpu_start = (now, CpuSnapshot.take(server_pids or []))
                if idle is not None:
                    open_counts.append(idle.open)
        cpu_end = CpuSnapshot.take(server_pids or [])
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
    if cpu_start is not None and cpu_end is not None:
        # The first snapshot is up to 0.25 s late: count moves from that moment on.
        moves_since = sum(1 for c in clients for done, _ in c.samples if done >= cpu_start[0])
        report.cpu = cpu_line(cpu_start[1], cpu_end, moves_since)
    if idle is not None:
        report.idle_open_min = min(open_counts, default=idle.open)
        report.idle_open_max = max(open_counts, default=idle.open)
        report.idle_reconnects = reconnects
        report.idle_refused = idle.refused
    return report


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
