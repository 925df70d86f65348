"""Benchmark of the engine's support for search and of the search levels, on one core.

Run ``python -m tools.arena.bench [--positions N] [--levels a,b]``. Positions come
from greedy four-player double-9 matches (seeded, so every run measures the same
ones). Prints, in microseconds of CPU: ``copy.deepcopy`` and ``Match.copy`` of a
match, ``Sim.from_match`` and ``Sim.copy``, a rollout of the rest of the round from
a position in a round and from a round's start, reading a view
(``Knowledge.from_view``), sampling a deal from it and weighing it by the opponent
model (``Knowledge.likelihood``); then, per level, the CPU of
a decision (decisions with two or more choices): mean and p99 in milliseconds.
"""

from __future__ import annotations

import argparse
import copy
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from bots.knowledge import Knowledge
from bots.search import candidates
from bots.sim import Sim
from bots.strategies import LEVELS, STRATEGIES, choose_greedy
from games.engine import PLAYING, Match, Ruleset, seat_view
from tools.stats import percentile


def positions(count: int, seed: int = 1) -> list[Match]:
    """``count`` positions of running rounds, spread over greedy matches."""
    rng = random.Random(seed)
    found: list[Match] = []
    match_seed = 0
    while len(found) < count:
        match, _ = Match.new(Ruleset(set_max=9, players=4), match_seed)
        match_seed += 1
        while match.status == PLAYING and len(found) < count:
            view = seat_view(match, match.turn)
            if rng.random() < 0.1:
                found.append(match.copy())
            match.apply(match.turn, choose_greedy(view, rng))
    return found


def per_call_us(items: Sequence[Any], call: Callable[[Any], object], repeat: int) -> float:
    clock = time.thread_time
    start = clock()
    for _ in range(repeat):
        for item in items:
            call(item)
    return 1e6 * (clock() - start) / (repeat * len(items))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.arena.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300, help="Positions measured (default 300).")
    parser.add_argument("--levels", default=",".join(LEVELS), help="Levels timed (default: all).")
    options = parser.parse_args(argv)
    matches = positions(options.positions)
    sims = [Sim.from_match(m) for m in matches]
    starts = [Sim.from_match(Match.new(Ruleset(set_max=9, players=4), s)[0]) for s in range(100)]
    rng = random.Random(2)
    print(f"positions: {len(matches)} (double-9, 4 players, greedy play)")
    print(f"deepcopy_match_us: {per_call_us(matches, copy.deepcopy, 3):.1f}")
    print(f"match_copy_us: {per_call_us(matches, lambda m: m.copy(), 30):.2f}")
    print(f"sim_from_match_us: {per_call_us(matches, Sim.from_match, 10):.2f}")
    print(f"sim_copy_us: {per_call_us(sims, lambda s: s.copy(), 30):.2f}")
    print(f"rollout_in_round_us: {per_call_us(sims, lambda s: s.copy().rollout(rng), 10):.1f}")
    print(f"rollout_whole_round_us: {per_call_us(starts, lambda s: s.copy().rollout(rng), 10):.1f}")
    views = [seat_view(m, m.turn) for m in matches]
    views = [v for v in views if len(candidates(v)) > 1]
    knowledge = [Knowledge.from_view(v) for v in views]
    print(f"views_with_a_choice: {len(views)}")
    print(f"knowledge_from_view_us: {per_call_us(views, Knowledge.from_view, 3):.1f}")
    for k in knowledge:
        k.sample(rng)  # the seats' profiles are worked out once, at the first sample
    print(f"sample_deal_us: {per_call_us(knowledge, lambda k: k.sample(rng), 10):.1f}")
    deals = [(k, k.sample(rng)) for k in knowledge]
    for k, _ in deals:
        k.greedy_evidence()  # read from the history once per decision
    print(f"deal_likelihood_us: {per_call_us(deals, lambda kd: kd[0].likelihood(kd[1], 0.3), 30):.2f}")
    clock = time.thread_time
    for name in options.levels.split(","):
        choose = STRATEGIES[name].choose
        times = []
        for i, view in enumerate(views):
            start = clock()
            choose(view, random.Random(i))
            times.append(clock() - start)
        mean = 1000 * sum(times) / len(times)
        print(f"{name}_decision_ms: mean {mean:.2f} p99 {1000 * percentile(times, 0.99):.2f}")


if __name__ == "__main__":
    main()
