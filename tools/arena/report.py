"""What an arena run found, per strategy, as a table and as JSON.

Per strategy (a spec; it may hold several seats):

* win rate per seat: its seats' mean share of the win (a tie of k winners gives
  each 1/k, so the shares of a match add up to 1 and the null is 1/players), with
  a 95% confidence interval over deals (``stats``: each deal is one paired sample);
* the t test of "no better than an average seat" (win rate 1/players) over deals;
* mean points per seat at the end of the match (lower is better), with its interval;
* its points edge: per deal, the other strategies' mean points per seat less its own
  (higher is better), with a 95% interval over deals. Paired on the same deals, it
  sees a small difference in play far sooner than the win rate does (a line-up of
  one strategy has none: ``nan``);
* CPU per decision, counted on decisions with two or more legal moves: mean, p99.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from tools.stats import percentile

from .play import MatchResult
from .runner import ArenaConfig
from .stats import Estimate, TTest, estimate, t_test


@dataclass(frozen=True)
class Summary:
    spec: str
    seats: int  # seats it holds in each match
    matches: int
    win: Estimate  # per seat, over deals
    test: TTest
    points: Estimate  # mean final total per seat, over deals
    edge: Estimate  # per deal: the other strategies' mean points per seat less its own
    decisions: int
    cpu_mean_ms: float
    cpu_p99_ms: float


def summarize(config: ArenaConfig, results: list[MatchResult]) -> list[Summary]:
    null = 1.0 / config.players
    order = list(dict.fromkeys(config.lineup))
    wins: dict[str, dict[int, list[float]]] = {s: defaultdict(list) for s in order}
    points: dict[str, dict[int, list[float]]] = {s: defaultdict(list) for s in order}
    cpu: dict[str, list[float]] = {s: [] for s in order}
    for result in results:
        shares = result.shares
        for seat, spec in enumerate(result.seats):
            wins[spec][result.deal].append(shares[seat])
            points[spec][result.deal].append(result.totals[seat])
            cpu[spec] += result.cpu[seat]
    summaries = []
    for spec in order:
        per_deal = [math.fsum(v) / len(v) for v in wins[spec].values()]
        per_deal_points = [math.fsum(v) / len(v) for v in points[spec].values()]
        times = cpu[spec]
        edges = []
        for deal, own in points[spec].items():
            rest = [p for other in order if other != spec for p in points[other].get(deal, ())]
            if rest:
                edges.append(math.fsum(rest) / len(rest) - math.fsum(own) / len(own))
        summaries.append(
            Summary(
                spec=spec,
                seats=config.lineup.count(spec),
                matches=len(results),
                win=estimate(per_deal),
                test=t_test(per_deal, null),
                points=estimate(per_deal_points),
                edge=estimate(edges) if edges else Estimate(0, math.nan, math.nan, math.nan, math.nan),
                decisions=len(times),
                cpu_mean_ms=1000 * math.fsum(times) / len(times) if times else math.nan,
                cpu_p99_ms=1000 * percentile(times, 0.99) if times else math.nan,
            )
        )
    return summaries


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _clip(rate: float) -> float:
    """A t interval may reach past 0% or 100%; a rate cannot, so it is shown clipped."""
    return rate if math.isnan(rate) else min(1.0, max(0.0, rate))


def _p(p: float) -> str:
    if math.isnan(p):
        return "-"
    return "<1e-12" if p < 1e-12 else f"{p:.2g}"


def _ms(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.2f}"


def _edge(edge: Estimate) -> str:
    if math.isnan(edge.mean):
        return "-"
    if math.isnan(edge.low):
        return f"{edge.mean:+.2f}"
    return f"{edge.mean:+.2f} [{edge.low:+.2f}, {edge.high:+.2f}]"


def heading(config: ArenaConfig, seconds: float) -> str:
    ruleset = config.full_ruleset()
    return (
        f"arena: {config.deals * config.rotations} matches ({config.deals} deals x {config.rotations} rotations), "
        f"double-{ruleset.set_max}, {ruleset.players} players, {ruleset.round_count} rounds, "
        f"hand {ruleset.effective_hand_size}, {ruleset.spinner_arms} arms, 0-0 = {ruleset.double_blank_points}; "
        f"seed {config.seed}, {config.processes} processes, {seconds:.0f} s"
    )


def table(config: ArenaConfig, summaries: list[Summary], seconds: float) -> list[str]:
    """The printed report: a heading, then one row per strategy."""
    width = max(8, *(len(s.spec) for s in summaries))
    columns = (
        f"{'strategy':<{width}}  seats  win/seat  95% CI            null     t        p        "
        f"points/seat  decisions  cpu mean ms  cpu p99 ms  points edge [95% CI]"
    )
    lines = [heading(config, seconds), columns]
    for s in summaries:
        ci = f"[{_pct(_clip(s.win.low))}, {_pct(_clip(s.win.high))}]"
        t = "-" if math.isnan(s.test.t) else f"{s.test.t:+.2f}"
        lines.append(
            f"{s.spec:<{width}}  {s.seats:>5}  {_pct(s.win.mean):>8}  {ci:<16}  {_pct(s.test.null):>5}  "
            f"{t:>7}  {_p(s.test.p):>7}  {s.points.mean:>11.1f}  {s.decisions:>9}  "
            f"{_ms(s.cpu_mean_ms):>11}  {_ms(s.cpu_p99_ms):>10}  {_edge(s.edge)}"
        )
    return lines


def document(config: ArenaConfig, results: list[MatchResult], summaries: list[Summary], seconds: float) -> Any:
    """Everything, for ``--json``: the run's settings, each summary, every match."""
    return {
        "config": {**asdict(config), "ruleset": config.full_ruleset().to_dict(), "deals": config.deals},
        "seconds": seconds,
        "summaries": [asdict(s) for s in summaries],
        "matches": [{**asdict(r), "shares": r.shares} for r in results],
    }
