"""What a run measured and the lines the command prints: scripts read the last
three (``p50_ms``, ``moves_per_second``, ``p99_ms``)."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from tools.loadtest.cpu import CpuSnapshot
from tools.loadtest.options import Options
from tools.stats import percentile


@dataclass
class CpuFigures:
    """The measurement's CPU in numbers: wall seconds, cores busy (the machine,
    the load generator), the accepted moves counted, and the server's CPU
    seconds - in all (``server``, the process trees) and by group (``split``)."""

    wall: float
    machine_busy: float
    loadgen_busy: float
    moves: int
    server: float | None = None
    split: dict[str, float] | None = None

    @classmethod
    def of(cls, a: CpuSnapshot, b: CpuSnapshot, moves: int, split: dict[str, float] | None) -> CpuFigures | None:
        if a.machine is None or b.machine is None:
            return None
        wall = (b.machine[1] - a.machine[1]) / (os.cpu_count() or 1)
        if wall <= 0:
            return None
        server = b.server - a.server if a.server is not None and b.server is not None else None
        busy = (b.machine[0] - a.machine[0]) / wall
        return cls(wall, busy, (b.loadgen - a.loadgen) / wall, moves, server, split)

    @property
    def others_busy(self) -> float | None:
        """Cores busy with anything but the load generator and the server's groups:
        other work on the machine, which skews every figure of the run."""
        if self.split is None:
            return None
        return max(0.0, self.machine_busy - self.loadgen_busy - sum(self.split.values()) / self.wall)

    def ms_per_move(self, group: str) -> float | None:
        """CPU milliseconds of ``group`` per accepted move (None: not measured)."""
        seconds = (self.split or {}).get(group)
        return seconds * 1000 / self.moves if seconds is not None and self.moves else None


@dataclass
class Report:
    """What a run measured; ``lines()`` is what the command prints."""

    options: Options
    measured: float
    latencies_ms: list[float]
    moves: int
    views: int
    longpolls: int
    errors: Counter[str]
    games_started: int
    games_finished: int
    idle_open_min: int = 0
    idle_open_max: int = 0
    idle_reconnects: int = 0
    idle_refused: Counter[str] = field(default_factory=Counter)
    #: The server's resident memory (bytes, every process of it) before the idle
    #: streams opened and once they all were open (with --server-pid or --spawn).
    server_rss: tuple[int, int] | None = None
    cpu: str | None = None
    cpu_figures: CpuFigures | None = None
    streams_opened: int = 0  # --follow stream: the clients' game streams
    streams_reopened: int = 0
    stream_events: int = 0
    stream_refused: Counter[str] = field(default_factory=Counter)
    heard_ms: list[float] = field(default_factory=list)

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.measured if self.measured > 0 else 0.0

    def percentile(self, q: float, samples: list[float] | None = None) -> float:
        """The ``q`` quantile of the move latencies (or of ``samples``), 0 without any."""
        values = self.latencies_ms if samples is None else samples
        return percentile(values, q) if values else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The figures as JSON (``--json``): the latencies summed up, not listed."""
        return {
            "options": asdict(self.options),
            "measured_s": round(self.measured, 3),
            "moves": self.moves,
            "moves_per_second": round(self.moves_per_second, 1),
            "p50_ms": round(self.percentile(0.50), 1),
            "p90_ms": round(self.percentile(0.90), 1),
            "p99_ms": round(self.percentile(0.99), 1),
            "max_ms": round(max(self.latencies_ms, default=0.0), 1),
            "game_gets": self.views,
            "long_polls": self.longpolls,
            "errors": dict(self.errors),
            "games_started": self.games_started,
            "games_finished": self.games_finished,
            "idle_open": [self.idle_open_min, self.idle_open_max] if self.options.idle_streams else None,
            "server_rss_bytes": list(self.server_rss) if self.server_rss else None,
            "streams": (
                {
                    "opened": self.streams_opened,
                    "reopened": self.streams_reopened,
                    "events": self.stream_events,
                    "refused": dict(self.stream_refused),
                    "heard_p50_ms": round(self.percentile(0.50, self.heard_ms), 1),
                    "heard_p99_ms": round(self.percentile(0.99, self.heard_ms), 1),
                }
                if self.options.follow == "stream"
                else None
            ),
            "cpu": (
                {**asdict(self.cpu_figures), "others_busy": self.cpu_figures.others_busy} if self.cpu_figures else None
            ),
        }

    def lines(self) -> list[str]:
        o = self.options
        out = [
            f"loadtest: {o.clients} clients, {o.clients // 2 * o.games_per_pair} duels at once (double-{o.set_max}), "
            f"follow={o.follow}, {self.measured:.1f} s measured after {o.warmup:.1f} s warm-up, server {o.url}",
        ]
        if o.idle_streams:
            out.append(
                f"idle_streams: {o.idle_streams} {o.idle_mode} on {o.idle_games} idle games; open during the "
                f"measurement: min {self.idle_open_min}, max {self.idle_open_max}; reopened {self.idle_reconnects}"
                + (f"; refused {dict(self.idle_refused)}" if self.idle_refused else "")
            )
            if self.server_rss:
                before, after = self.server_rss
                out.append(
                    f"server memory (resident, every process): {before / 2**20:.0f} MiB before the idle streams, "
                    f"{after / 2**20:.0f} MiB with them open: {(after - before) / max(1, o.idle_streams) / 1024:.1f} "
                    "KiB a stream"
                )
        per_move = (self.views + self.longpolls) / self.moves if self.moves else 0.0
        out.append(
            f"requests: {self.moves} moves accepted (201), {self.views} game GETs, {self.longpolls} long-polls "
            f"({per_move:.2f} other requests per move); matches started {self.games_started}, finished {self.games_finished}"
        )
        if o.follow == "stream":
            out.append(
                f"streams: {self.streams_opened} game streams opened ({self.streams_reopened} reopened), "
                f"{self.stream_events} events received during the measurement "
                f"({self.stream_events / self.moves if self.moves else 0:.2f} per move); "
                "an accepted move reached the opponent's stream in "
                f"p50 {self.percentile(0.50, self.heard_ms):.1f} ms, p99 {self.percentile(0.99, self.heard_ms):.1f} ms"
                + (f"; refused {dict(self.stream_refused)}" if self.stream_refused else "")
            )
        if self.errors:
            out.append("errors: " + ", ".join(f"{key}: {n}" for key, n in sorted(self.errors.items())))
        else:
            out.append("errors: 0")
        if self.cpu:
            out.append(self.cpu)
        split = self.cpu_figures.split if self.cpu_figures else None
        if split and self.cpu_figures:
            figures = self.cpu_figures
            out.append(
                "server cpu per accepted move: "
                + ", ".join(f"{group} {figures.ms_per_move(group) or 0:.2f} ms" for group in split)
                + " (pg: this database's backends; pg-bg and redis serve the whole machine)"
            )
        if self.latencies_ms:
            out.append(
                f"move latency ms: mean {sum(self.latencies_ms) / len(self.latencies_ms):.1f}, "
                f"p90 {self.percentile(0.90):.1f}, max {max(self.latencies_ms):.1f}"
            )
        out.append(f"p50_ms: {round(self.percentile(0.50))}")
        out.append(f"moves_per_second: {round(self.moves_per_second)}")
        out.append(f"p99_ms: {round(self.percentile(0.99))}")
        return out
