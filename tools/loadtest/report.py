"""What a run measured and the lines the command prints: scripts read the last
three (``p50_ms``, ``moves_per_second``, ``p99_ms``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tools.loadtest.options import Options


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
    cpu: str | None = None

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.measured if self.measured > 0 else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

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
        per_move = (self.views + self.longpolls) / self.moves if self.moves else 0.0
        out.append(
            f"requests: {self.moves} moves accepted (201), {self.views} game GETs, {self.longpolls} long-polls "
            f"({per_move:.2f} other requests per move); matches started {self.games_started}, finished {self.games_finished}"
        )
        if self.errors:
            out.append("errors: " + ", ".join(f"{key}: {n}" for key, n in sorted(self.errors.items())))
        else:
            out.append("errors: 0")
        if self.cpu:
            out.append(self.cpu)
        if self.latencies_ms:
            out.append(
                f"move latency ms: mean {sum(self.latencies_ms) / len(self.latencies_ms):.1f}, "
                f"p90 {self.percentile(0.90):.1f}, max {max(self.latencies_ms):.1f}"
            )
        out.append(f"p50_ms: {round(self.percentile(0.50))}")
        out.append(f"moves_per_second: {round(self.moves_per_second)}")
        out.append(f"p99_ms: {round(self.percentile(0.99))}")
        return out
