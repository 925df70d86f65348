"""Two servers held against each other in one run: ``--compare-metrics`` (the same
code with metrics on and off, ``--spawn``'d side by side) and ``--compare-url``
(this server against another one, e.g. ``make cluster``'s load balancer against
one box).

Both servers run all along; only one is played on at a time. The two take turns,
``repeat`` times each, in the order A, B, B, A, A, B ... (each repetition starts
with the side the previous one ended with: neither always goes first, and a drift
of the machine's load falls on both alike). Each side signs its accounts up once.
Each run is ``run_loadtest`` with the options given, warming up and measuring like
a load test. ``Versus.lines()`` prints a row per run, the median and range of
each side, and B / A.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.loadtest.compare import OWN_GROUPS, SETTLE_SECONDS
from tools.loadtest.cpu import ServerCpu
from tools.loadtest.options import LoadTestError, Options
from tools.loadtest.report import Report
from tools.loadtest.runner import Account, register_accounts, run_loadtest


@dataclass
class Side:
    """One server of the comparison."""

    label: str  # "metrics-on", "one-box" ...
    url: str
    server_pids: list[int] = field(default_factory=list)
    server_cpu: ServerCpu | None = None
    accounts: list[Account] = field(default_factory=list)


@dataclass
class Versus:
    options: Options
    repeat: int
    labels: tuple[str, str]
    urls: tuple[str, str]
    runs: list[tuple[str, int, Report]] = field(default_factory=list)

    def of(self, label: str) -> list[Report]:
        return [report for side, _, report in self.runs if side == label]

    def summary(self, label: str) -> dict[str, Any]:
        reports = self.of(label)
        moves = [r.moves_per_second for r in reports]
        p50 = [r.percentile(0.50) for r in reports]
        p99 = [r.percentile(0.99) for r in reports]
        web = [v for r in reports if (v := _web_ms_per_move(r)) is not None]
        return {
            "runs": len(reports),
            "moves_per_second": _median_range(moves, 1),
            "p50_ms": _median_range(p50, 1),
            "p99_ms": _median_range(p99, 1),
            "web_cpu_ms_per_move": _median_range(web, 2) if web else None,
            "errors": sum(sum(r.errors.values()) for r in reports),
        }

    def ratios(self) -> dict[str, Any]:
        """B / A: of the medians, and of moves/s run by run (each B with the A next to it)."""
        a, b = (self.summary(label) for label in self.labels)

        def ratio(key: str) -> float | None:
            if a[key] is None or b[key] is None or not a[key]["median"]:
                return None
            return round(b[key]["median"] / a[key]["median"], 3)

        pairs = [
            rb.moves_per_second / ra.moves_per_second
            for ra, rb in zip(self.of(self.labels[0]), self.of(self.labels[1]), strict=False)
            if ra.moves_per_second
        ]
        return {
            "moves_per_second": ratio("moves_per_second"),
            "moves_per_second_by_repetition": [round(min(pairs), 3), round(max(pairs), 3)] if pairs else None,
            "p50_ms": ratio("p50_ms"),
            "p99_ms": ratio("p99_ms"),
            "web_cpu_ms_per_move": ratio("web_cpu_ms_per_move"),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "options": dataclasses.asdict(self.options),
            "sides": dict(zip(self.labels, self.urls, strict=True)),
            "repeat": self.repeat,
            "order": [f"{label} {rep}" for label, rep, _ in self.runs],
            "runs": [{"side": label, "repetition": rep, **report.as_dict()} for label, rep, report in self.runs],
            "summary": {label: self.summary(label) for label in self.labels},
            f"ratio_{self.labels[1]}_to_{self.labels[0]}": self.ratios(),
        }

    def lines(self) -> list[str]:
        o = self.options
        a, b = self.labels
        out = [
            f"versus: {o.clients} clients, {o.duration:.0f} s measured after {o.warmup:.0f} s warm-up, "
            f"{self.repeat} repetition(s) interleaved ({', '.join(f'{s} {r}' for s, r, _ in self.runs)}); "
            f"follow={o.follow}",
            *(f"{label}: {url}" for label, url in zip(self.labels, self.urls, strict=True)),
            "web CPU ms per accepted move: the web server's processes (only for a server whose pids are known)",
            "",
            f"{'run':<16}{'moves/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'errors':>7}{'web ms':>8}",
        ]
        for label, rep, report in self.runs:
            web = _web_ms_per_move(report)
            out.append(
                f"{f'{label} {rep}':<16}{report.moves_per_second:>8.1f}{report.percentile(0.5):>8.1f}"
                f"{report.percentile(0.99):>8.1f}{sum(report.errors.values()):>7}{_fmt(web):>8}"
            )
        out.append("")
        out.append(f"{'median':<16}{'moves/s (range)':>22}{'p50 ms':>9}{'p99 ms (range)':>24}{'web ms':>8}")
        for label in self.labels:
            s = self.summary(label)
            web = s["web_cpu_ms_per_move"]
            out.append(
                f"{label:<16}{_mid(s['moves_per_second'], 1):>22}{s['p50_ms']['median']:>9.1f}"
                f"{_mid(s['p99_ms'], 1):>24}{_fmt(web['median'] if web else None):>8}"
            )
        r = self.ratios()
        spread = r["moves_per_second_by_repetition"]
        out.append(
            f"{f'{b}/{a}':<16}{_fmt(r['moves_per_second'], 3) + (f' ({spread[0]:.3f}-{spread[1]:.3f})' if spread else ''):>22}"
            f"{_fmt(r['p50_ms'], 3):>9}{_fmt(r['p99_ms'], 3):>24}{_fmt(r['web_cpu_ms_per_move'], 3):>8}"
        )
        errors = sum(self.summary(label)["errors"] for label in self.labels)
        out.append(f"errors: {errors}")
        for label in self.labels:
            out.append(f"{_key(label)}_moves_per_second: {self.summary(label)['moves_per_second']['median']}")
            out.append(f"{_key(label)}_p99_ms: {self.summary(label)['p99_ms']['median']}")
        out.append(f"ratio_moves_per_second: {_fmt(r['moves_per_second'], 3)}")
        out.append(f"ratio_p99_ms: {_fmt(r['p99_ms'], 3)}")
        return out


def run_versus(options: Options, sides: list[Side], repeat: int, out: Callable[[str], None] = print) -> Versus:
    """``repeat`` runs on each of the two ``sides``, interleaved A B B A A B ..."""
    if len(sides) != 2:
        raise LoadTestError("a comparison holds two servers")
    if repeat < 1:
        raise LoadTestError("--repeat is 1 or more")
    if options.clients < 2 or options.clients % 2:
        raise LoadTestError("--clients must be an even number, 2 or more (clients play in pairs)")
    for side in sides:
        out(f"versus: signing up {options.clients} accounts on {side.label} ({side.url}), once for every run")
        side.accounts = register_accounts(side.url, options.clients)
    versus = Versus(options, repeat, (sides[0].label, sides[1].label), (sides[0].url, sides[1].url))
    order = [side for rep in range(repeat) for side in (sides if rep % 2 == 0 else sides[::-1])]
    done: dict[str, int] = {}
    for n, side in enumerate(order, 1):
        done[side.label] = done.get(side.label, 0) + 1
        out(f"run {n}/{len(order)}: {side.label} {done[side.label]}")
        report = run_loadtest(
            dataclasses.replace(options, url=side.url),
            out,
            side.server_pids,
            accounts=side.accounts,
            server_cpu=side.server_cpu,
        )
        versus.runs.append((side.label, done[side.label], report))
        out(
            f"  {side.label} {done[side.label]}: {report.moves_per_second:.1f} moves/s, "
            f"p50 {report.percentile(0.5):.1f} ms, p99 {report.percentile(0.99):.1f} ms, "
            f"errors {sum(report.errors.values())}"
        )
        if n < len(order):
            time.sleep(SETTLE_SECONDS)
    return versus


def _web_ms_per_move(report: Report) -> float | None:
    figures = report.cpu_figures
    if figures is None or "web" not in OWN_GROUPS:
        return None
    return figures.ms_per_move("web")


def _median_range(values: list[float], digits: int) -> dict[str, Any]:
    return {
        "median": round(statistics.median(values), digits),
        "range": [round(min(values), digits), round(max(values), digits)],
    }


def _mid(summary: dict[str, Any], digits: int) -> str:
    low, high = summary["range"]
    return f"{summary['median']:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _key(label: str) -> str:
    return label.replace("-", "_")
