"""How far each search's choices fall short of a referee's: a screen for search settings.

Run ``python -m tools.arena.referee [--positions N] [--referee R] [--specs a,b:x=1+y=2]``.
An arena run needs thousands of matches to see a point of win rate; this screen
sees differences in the quality of single decisions in a minute. Positions come from
greedy four-player double-9 matches (``tools.arena.bench.positions``, seed 11); for
each one where the seat to move has two choices or more, the **referee** values every
choice: the tree search (``depth=2``) with ``R`` play-outs (default 4000) in equal
shares, no halving, on deals consistent with the seat's view. Each spec then chooses,
seeded per position, and its **regret** is the referee's value of its best choice less
that of the choice made (in the search's utility: the chance to win the match, plus a
little of the point difference), averaged over the positions, with the share of
positions where it chose the referee's best (``agree``) and its CPU a decision. The
first spec is the baseline: every other row also prints its regret minus the
baseline's, paired by position, with a 95% interval.

What it can and cannot say: the referee plays the others and the seat's later
moves greedily, like the play-outs, so the screen measures how well a search spends
its budget under that model - how many play-outs it takes, how it shares them - and
is blind to what changes the model itself (an opponent model, a deeper tree, another
utility). Those need the arena. Regret in thousandths (x1e-3) of the utility.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bots.knowledge import Knowledge
from bots.search import SearchSettings, _descend, candidates, search_move, utility_function
from bots.strategies import LEVELS
from games.engine import seat_view

from .bench import positions
from .cli import split_seats
from .lineup import LineupError, parse_spec
from .stats import estimate

View = dict[str, Any]


def _key(move: dict[str, Any]) -> str:
    return json.dumps(move, sort_keys=True)


def referee_values(view: View, rollouts: int, seed: int, explore: float = 0.5) -> dict[str, float]:
    """The referee's value of each choice of ``view`` (keyed by its move); ``explore``
    is its tree's UCB exploration at the seat's next decision."""
    settings = SearchSettings(rollouts=rollouts, depth=2, explore=explore)
    rng = random.Random(seed)
    choices = candidates(view)
    knowledge = Knowledge(view, random.Random(rng.random()))
    utility = utility_function(view, settings)
    trees: list[dict[tuple[int, ...], dict[int, list[float]]]] = [{} for _ in choices]
    totals = [0.0] * len(choices)
    deals = max(1, rollouts // len(choices))
    for _ in range(deals):
        deal = knowledge.sample(rng)
        for c, (move, _) in enumerate(choices):
            sim = deal.copy()
            sim.apply(move)
            totals[c] += _descend(sim, view["seat"], trees[c], 2, rng, settings, utility, 1.0)
    return {_key(legal): totals[c] / deals for c, (_, legal) in enumerate(choices)}


def settings_of(spec: str) -> SearchSettings:
    name, parsed = parse_spec(spec)
    overrides: dict[str, Any] = dict(parsed)
    if name not in LEVELS:
        raise LineupError(f"{name!r} is not a search level: the screen times the search ({', '.join(LEVELS)})")
    return replace(LEVELS[name], **overrides)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.arena.referee", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=1200, help="Positions drawn (default 1200).")
    parser.add_argument("--referee", type=int, default=4000, help="The referee's play-outs (default 4000).")
    parser.add_argument(
        "--referee-explore",
        type=float,
        default=0.5,
        help="The referee tree's UCB exploration at the seat's next decision (default 0.5, as the search's).",
    )
    parser.add_argument(
        "--specs", default="strong,hard", help="Search levels, as the arena's --seats (default strong,hard)."
    )
    options = parser.parse_args(argv)
    specs = split_seats(options.specs)
    chosen = [settings_of(spec) for spec in specs]
    views = [seat_view(m, m.turn) for m in positions(options.positions, seed=11)]
    views = [v for v in views if len(candidates(v)) > 1]
    start = time.thread_time()
    referee = [referee_values(v, options.referee, 1000 + i, options.referee_explore) for i, v in enumerate(views)]
    print(
        f"decisions: {len(views)} (of {options.positions} positions of greedy play); referee: the tree search, "
        f"{options.referee} play-outs in equal shares, exploration {options.referee_explore}, "
        f"{time.thread_time() - start:.0f} s"
    )
    print(f"{'spec':<36} {'regret x1e-3':>20} {'agree':>6} {'cpu ms':>7}  regret less the first's [95% CI]")
    baseline: list[float] | None = None
    for spec, settings in zip(specs, chosen, strict=True):
        regrets: list[float] = []
        agree = 0
        clock = time.thread_time()
        for i, view in enumerate(views):
            values = referee[i]
            made = values[_key(search_move(view, random.Random(i), settings))]
            best = max(values.values())
            regrets.append(1000 * (best - made))
            agree += made == best
        cpu = 1000 * (time.thread_time() - clock) / len(views)
        own = estimate(regrets)
        row = f"{spec.replace(',', '+'):<36} {own.mean:7.2f} [{own.low:5.2f}, {own.high:5.2f}] {agree / len(views):6.3f} {cpu:7.2f}"
        if baseline is None:
            baseline = regrets
        else:
            paired = estimate([a - b for a, b in zip(regrets, baseline, strict=True)])
            row += f"  {paired.mean:+.2f} [{paired.low:+.2f}, {paired.high:+.2f}]"
        print(row)


if __name__ == "__main__":
    main()
