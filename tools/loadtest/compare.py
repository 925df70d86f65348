"""``--compare-bare``: the real move path held against a bare locked write, on one
server, in one run.

The bare write (``tools.loadtest.bare``) is what a move minimally costs on this
stack: the project's token authentication, a serializer, ``select_for_update``
of a ~2 KB JSON row, a save, an insert, a JSON answer. Its clients are as many
threads as the real run's, each with its own keep-alive connection, its own
account and its own row, each writing again as soon as it has the answer.

The two modes take turns, ``repeat`` times each, in the order bare, real, real,
bare, bare, real ... (each repetition starts with the mode the previous one ended
with: neither always goes first), on the same server and the same accounts
(signed up once). The real runs are ``run_loadtest`` with the options given
(``--follow``, ``--idle-streams`` ...); the bare runs have no idle streams. With
``--idle-streams``, a third mode, ``no-idle`` (the real path without them), takes
its turn between the two (bare, no-idle, real, real, no-idle, bare ...), so that
what the idle streams cost is a ratio of two runs of the same minutes, not of two
sessions. Each run warms up and measures like a load test; the server's CPU is
split by group (``tools.loadtest.cpu.ServerCpu``). ``Comparison.lines()`` prints a
row per run, then the median and range of each mode and their ratios.
"""

from __future__ import annotations

import dataclasses
import os
import random
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from tools.loadtest.clients import Run
from tools.loadtest.connection import Http, error_key
from tools.loadtest.cpu import ServerCpu
from tools.loadtest.options import API, LoadTestError, Options, parse_url
from tools.loadtest.report import Report
from tools.loadtest.runner import Account, Meter, measure, register_accounts, run_loadtest

BARE = f"{API}/loadtest/bare/"
MODES = ("bare", "real")
#: With idle streams: the real path without them too.
WITH_IDLE = ("bare", "no-idle", "real")
SETTLE_SECONDS = 2.0  # between runs: what one run left going (tasks, streams closing) ends first
#: Server CPU per move shown, and summed as ``total``: the run's own processes.
OWN_GROUPS = ("web", "worker", "pg")
#: Shown apart: they serve everything else on the machine too.
SHARED_GROUPS = ("pg-bg", "redis")


class BareClient(threading.Thread):
    """One bare writer: its own row, one write in flight at a time."""

    def __init__(self, run: Run, index: int, host: str, port: int, token: str) -> None:
        super().__init__(name=f"loadtest-bare-{index}", daemon=True)
        self.run_state = run
        self.http = Http(host, port)
        self.token = token
        self.rng = random.Random(None if run.options.seed is None else run.options.seed * 1000 + index)
        self.table = 0
        self.seq = 0
        self.samples: list[tuple[float, float]] = []  # (accepted at, ms)
        self.failures: list[tuple[float, str]] = []
        self.crashed: BaseException | None = None

    def set_up(self) -> None:
        row = self.http.json("POST", BARE, self.token, {}, expect=201)
        self.table, self.seq = int(row["id"]), int(row["seq"])

    def run(self) -> None:
        path = f"{BARE}{self.table}/moves/"
        try:
            while not self.run_state.stop.is_set():
                tile = f"{self.rng.randrange(10)}-{self.rng.randrange(10)}"
                started = time.perf_counter()
                status, payload = self.http.request("POST", path, self.token, {"expected_seq": self.seq, "tile": tile})
                done = time.perf_counter()
                if status == 201:
                    self.seq += 1
                    if self.run_state.in_window(done):
                        self.samples.append((done, (done - started) * 1000))
                    continue
                if self.run_state.in_window(started):
                    self.failures.append((started, error_key(status, payload)))
                if status == 409:
                    self.seq = _current_seq(payload, self.seq)
                else:
                    time.sleep(0.1)
        except BaseException as error:
            self.crashed = error
            self.run_state.stop.set()
        finally:
            self.http.close()


def run_bare(
    options: Options,
    accounts: list[Account],
    out: Callable[[str], None] = print,
    server_pids: list[int] | None = None,
    server_cpu: ServerCpu | None = None,
) -> Report:
    """``options.clients`` bare writers for ``options.warmup`` + ``options.duration`` seconds."""
    host, port = parse_url(options.url)
    run = Run(options)
    clients = [BareClient(run, i, host, port, accounts[i][1]) for i in range(options.clients)]
    for client in clients:
        client.set_up()
    start = time.perf_counter()
    run.window = (start + options.warmup, start + options.warmup + options.duration)
    for client in clients:
        client.start()
    out(f"playing: {options.warmup:.0f} s warm-up, then {options.duration:.0f} s measured")
    meter = Meter(server_pids, server_cpu)
    try:
        measure(run, meter)
    finally:
        run.stop.set()
        for client in clients:
            client.join(30)
    crashed = [c.crashed for c in clients if c.crashed is not None]
    if crashed:
        raise LoadTestError(f"a bare client failed: {crashed[0]!r}") from crashed[0]
    errors: Counter[str] = Counter(key for c in clients for _, key in c.failures)
    report = Report(
        options=options,
        measured=max(0.0, min(run.window[1], time.perf_counter()) - run.window[0]),
        latencies_ms=[ms for c in clients for _, ms in c.samples],
        moves=sum(len(c.samples) for c in clients),
        views=0,
        longpolls=0,
        errors=errors,
        games_started=0,
        games_finished=0,
    )
    meter.fill(report, [done for c in clients for done, _ in c.samples])
    return report


def check_bare_endpoint(url: str) -> None:
    """The server must be the benchmark's (``tools.loadtest.bare.settings``)."""
    host, port = parse_url(url)
    http = Http(host, port)
    try:
        status, _ = http.request("GET", BARE)
    finally:
        http.close()
    if status == 404:
        raise LoadTestError(
            f"{url} has no bare endpoint ({BARE}): serve it with DJANGO_SETTINGS_MODULE=tools.loadtest.bare.settings "
            "(migrated with --run-syncdb), or use --spawn"
        )


@dataclass
class Comparison:
    """The runs of a comparison, in the order they ran: (mode, repetition, report)."""

    options: Options
    repeat: int
    runs: list[tuple[str, int, Report]]
    groups: list[str]
    web_workers: int | None = None

    @property
    def modes(self) -> tuple[str, ...]:
        return WITH_IDLE if any(m == "no-idle" for m, _, _ in self.runs) else MODES

    def of(self, mode: str) -> list[Report]:
        return [report for m, _, report in self.runs if m == mode]

    def summary(self, mode: str) -> dict[str, Any]:
        """Median and range over the mode's runs."""
        reports = self.of(mode)
        moves = [r.moves_per_second for r in reports]
        p50 = [r.percentile(0.50) for r in reports]
        p99 = [r.percentile(0.99) for r in reports]
        cpu: dict[str, Any] = {}
        for group in [*self.groups, "total"]:
            values = [v for r in reports if (v := _ms_per_move(r, group)) is not None]
            if values:
                cpu[group] = {"median": round(statistics.median(values), 2), "range": _span(values, 2)}
        return {
            "runs": len(reports),
            "moves_per_second": {"median": round(statistics.median(moves), 1), "range": _span(moves, 1)},
            "p50_ms": {"median": round(statistics.median(p50), 1), "range": _span(p50, 1)},
            "p99_ms": {"median": round(statistics.median(p99), 1), "range": _span(p99, 1)},
            "errors": sum(sum(r.errors.values()) for r in reports),
            "cpu_ms_per_move": cpu,
        }

    def ratios(self, mode: str = "real", to: str = "bare") -> dict[str, Any]:
        """``mode`` / ``to`` (real / bare by default): of the medians of moves/s, p50,
        p99 and CPU per move (by group)."""
        bare, real = self.summary(to), self.summary(mode)

        def ratio(a: float | None, b: float | None, least: float = 0.0) -> float | None:
            return round(a / b, 2) if a is not None and b is not None and b > least else None

        per_rep = [
            r.moves_per_second / b.moves_per_second
            for r, b in zip(self.of(mode), self.of(to), strict=False)
            if b.moves_per_second
        ]
        cpu = {
            # No ratio to a near-zero figure (the bare write gives the worker nothing to do).
            group: ratio(
                real["cpu_ms_per_move"].get(group, {}).get("median"), bare["cpu_ms_per_move"][group]["median"], 0.05
            )
            for group in bare["cpu_ms_per_move"]
        }
        return {
            "moves_per_second": ratio(real["moves_per_second"]["median"], bare["moves_per_second"]["median"]),
            "moves_per_second_by_repetition": _span(per_rep, 2) if per_rep else None,
            "p50_ms": ratio(real["p50_ms"]["median"], bare["p50_ms"]["median"]),
            "p99_ms": ratio(real["p99_ms"]["median"], bare["p99_ms"]["median"]),
            "cpu_per_move": cpu,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "options": dataclasses.asdict(self.options),
            "repeat": self.repeat,
            "web_workers": self.web_workers,
            "order": [f"{mode} {rep}" for mode, rep, _ in self.runs],
            "runs": [{"mode": mode, "repetition": rep, **report.as_dict()} for mode, rep, report in self.runs],
            "summary": {mode: self.summary(mode) for mode in self.modes},
            "ratio_real_to_bare": self.ratios(),
            **({"ratio_real_to_no_idle": self.ratios("real", "no-idle")} if "no-idle" in self.modes else {}),
        }

    def lines(self) -> list[str]:
        o = self.options
        groups = [g for g in (*OWN_GROUPS, "total", *SHARED_GROUPS) if g == "total" or g in self.groups]
        real = f"follow={o.follow}" + (f", {o.idle_streams} idle {o.idle_mode} streams" if o.idle_streams else "")
        out = [
            f"compare-bare: {o.clients} clients, {o.duration:.0f} s measured after {o.warmup:.0f} s warm-up, "
            f"{self.repeat} repetition(s) interleaved ({', '.join(f'{m} {r}' for m, r, _ in self.runs)}); "
            f"real path: {real}; server {o.url}" + (f", {self.web_workers} web workers" if self.web_workers else ""),
            "bare: token auth, serializer, select_for_update of a ~2 KB JSON row, save, insert "
            "(POST /api/v1/loadtest/bare/<id>/moves/); real: POST /api/v1/games/<id>/moves/",
            "server CPU ms per accepted move, by process: total = web + worker + pg (this database's backends); "
            "pg-bg (PostgreSQL's writers) and redis also serve anything else on the machine",
            "",
        ]
        cpu_head = "".join(f"{g:>7}" for g in groups)
        out.append(
            f"{'run':<10}{'moves/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'errors':>7} |{cpu_head} | cores busy: all, "
            "load generator, other work"
        )
        for mode, rep, report in self.runs:
            figures = report.cpu_figures
            out.append(
                f"{f'{mode} {rep}':<10}{report.moves_per_second:>8.0f}{report.percentile(0.5):>8.1f}"
                f"{report.percentile(0.99):>8.1f}{sum(report.errors.values()):>7} |"
                + "".join(f"{_fmt(_ms_per_move(report, g)):>7}" for g in groups)
                + (
                    f" | {figures.machine_busy:.2f} of {_cores()}, {figures.loadgen_busy:.2f}, "
                    f"{_fmt(figures.others_busy)}"
                    if figures
                    else " | -"
                )
            )
        out.append("")
        summaries = {mode: self.summary(mode) for mode in self.modes}
        ratios = self.ratios()
        out.append(f"{'median':<10}{'moves/s (range)':>18}{'p50 ms':>8}{'p99 ms (range)':>20} |{cpu_head}")
        for mode in self.modes:
            s = summaries[mode]
            cpu = s["cpu_ms_per_move"]
            out.append(
                f"{mode:<10}{_mid(s['moves_per_second'], 0):>18}{s['p50_ms']['median']:>8.1f}{_mid(s['p99_ms'], 1):>20} |"
                + "".join(f"{_fmt(cpu[g]['median'] if g in cpu else None):>7}" for g in groups)
            )
        pairs = [("real", "bare"), *((("no-idle", "bare"), ("real", "no-idle")) if "no-idle" in self.modes else ())]
        for mode, to in pairs:
            r = ratios if (mode, to) == ("real", "bare") else self.ratios(mode, to)
            per_rep = r["moves_per_second_by_repetition"]
            spread = f" ({per_rep[0]:.2f}-{per_rep[1]:.2f})" if per_rep else ""
            out.append(
                f"{f'{mode}/{to}':<10}{_fmt(r['moves_per_second']) + spread:>18}{_fmt(r['p50_ms']):>8}"
                f"{_fmt(r['p99_ms']):>20} |" + "".join(f"{_fmt(r['cpu_per_move'].get(g)):>7}" for g in groups)
            )
        total = summaries["bare"]["cpu_ms_per_move"].get("total"), summaries["real"]["cpu_ms_per_move"].get("total")
        if total[0] and total[1]:
            out.append(
                f"server CPU per move, total: bare {_mid(total[0], 2)} ms, real {_mid(total[1], 2)} ms "
                "(median, range over the runs); the moves/s ratio's range is over the repetitions' pairs"
            )
        out.extend(self._real_path_lines())
        errors = Counter[str]()
        for _, _, report in self.runs:
            errors.update(report.errors)
        out.append("errors: " + (", ".join(f"{k}: {n}" for k, n in sorted(errors.items())) if errors else "0"))
        if "no-idle" in self.modes:
            idle = self.ratios("real", "no-idle")
            out.append(f"idle_streams_moves_per_second_ratio: {_fmt(idle['moves_per_second'])}")
            out.append(f"idle_streams_p99_ratio: {_fmt(idle['p99_ms'])}")
        out.append(f"bare_moves_per_second: {round(summaries['bare']['moves_per_second']['median'])}")
        out.append(f"real_moves_per_second: {round(summaries['real']['moves_per_second']['median'])}")
        out.append(f"ratio_moves_per_second: {_fmt(ratios['moves_per_second'])}")
        out.append(f"ratio_cpu_per_move: {_fmt(ratios['cpu_per_move'].get('total'))}")
        return out

    def _real_path_lines(self) -> list[str]:
        """What the real runs did besides moving (medians over the runs)."""
        reports = self.of("real")
        med = statistics.median
        other = med([(r.views + r.longpolls) / r.moves if r.moves else 0.0 for r in reports])
        parts = [f"{other:.2f} game GETs and long-polls per move"]
        if self.options.follow == "stream":
            events = med([r.stream_events / r.moves if r.moves else 0.0 for r in reports])
            p50 = med([r.percentile(0.50, r.heard_ms) for r in reports])
            p99 = med([r.percentile(0.99, r.heard_ms) for r in reports])
            parts.append(
                f"{events:.2f} stream events received per move; a move reached the opponent's stream in "
                f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            )
        if self.options.idle_streams:
            parts.append(
                f"idle {self.options.idle_mode} streams open during the measurements: "
                f"{min(r.idle_open_min for r in reports)}-{max(r.idle_open_max for r in reports)} "
                f"of {self.options.idle_streams}"
            )
        return ["real path (median over its runs): " + "; ".join(parts)]


def run_comparison(
    options: Options,
    repeat: int,
    out: Callable[[str], None] = print,
    server_pids: list[int] | None = None,
    server_cpu: ServerCpu | None = None,
    web_workers: int | None = None,
) -> Comparison:
    """``repeat`` bare runs and ``repeat`` real runs, interleaved, on the server at ``options.url``."""
    if repeat < 1:
        raise LoadTestError("--repeat is 1 or more")
    if options.clients < 2 or options.clients % 2:
        raise LoadTestError("--clients must be an even number, 2 or more (clients play in pairs)")
    check_bare_endpoint(options.url)
    out(f"compare-bare: signing up {options.clients} accounts (once, for every run)")
    accounts = register_accounts(options.url, options.clients)
    bare_options = dataclasses.replace(options, idle_streams=0)
    comparison = Comparison(options, repeat, [], server_cpu.groups() if server_cpu else [], web_workers)
    modes = WITH_IDLE if options.idle_streams else MODES
    order = [mode for rep in range(repeat) for mode in (modes if rep % 2 == 0 else modes[::-1])]
    done: Counter[str] = Counter()
    for n, mode in enumerate(order, 1):
        done[mode] += 1
        out(f"run {n}/{len(order)}: {mode} {done[mode]}")
        if mode == "bare":
            report = run_bare(bare_options, accounts, out, server_pids, server_cpu)
        elif mode == "no-idle":
            report = run_loadtest(bare_options, out, server_pids, accounts=accounts, server_cpu=server_cpu)
        else:
            report = run_loadtest(options, out, server_pids, accounts=accounts, server_cpu=server_cpu)
        comparison.runs.append((mode, done[mode], report))
        out(
            f"  {mode} {done[mode]}: {report.moves_per_second:.0f} moves/s, p50 {report.percentile(0.5):.1f} ms, "
            f"p99 {report.percentile(0.99):.1f} ms, errors {sum(report.errors.values())}"
            + (f"; {report.cpu}" if report.cpu else "")
        )
        if n < len(order):
            time.sleep(SETTLE_SECONDS)
    return comparison


def _ms_per_move(report: Report, group: str) -> float | None:
    figures = report.cpu_figures
    if figures is None:
        return None
    if group == "total":
        parts = [figures.ms_per_move(g) for g in OWN_GROUPS if (figures.split or {}).get(g) is not None]
        return sum(p for p in parts if p is not None) if parts else None
    return figures.ms_per_move(group)


def _span(values: list[float], digits: int) -> list[float]:
    return [round(min(values), digits), round(max(values), digits)]


def _mid(summary: dict[str, Any], digits: int) -> str:
    low, high = summary["range"]
    return f"{summary['median']:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _cores() -> int:
    return os.cpu_count() or 1


def _current_seq(payload: bytes, default: int) -> int:
    """The row's seq in a ``409 stale_seq`` answer."""
    try:
        return int(orjson.loads(payload)["current_seq"])
    except (ValueError, KeyError, TypeError):
        return default
