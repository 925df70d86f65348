"""Determinized Monte Carlo search: the ``strong`` strategy and its levels.

From a seat's view alone (``seat_view``: nothing hidden) the search

1. lists the distinct choices: plays of one tile on ends of one pip are the same
   choice (``sim``), so ``9-4`` on either of two open 9s counts once;
2. deals the hidden tiles at random, consistently with everything public
   (``Knowledge.sample``: sizes, tiles seen, what each draw and pass proved);
3. plays every choice on that one deal (common random numbers: the choices are
   compared on the same deals) and plays the round out with a fast policy for every
   seat (``Sim.rollout``), scoring the end of the round by ``utility``;
4. repeats 2-3 until ``rollouts`` play-outs are spent, dropping the weaker half of
   the choices as it goes (successive halving), and returns the best choice; with
   ``settle`` it answers sooner once the leader is clearly ahead of the runner-up.

Its cost is bounded by ``rollouts``, a count, so a seeded ``rng`` replays it
exactly; the caller may pass ``stop`` (a time cap, say) to end it early. The engine
has no clock, so the time cap, if any, comes from outside (``bots.strategies``).

``utility`` turns a round's scores into what the seat wants: to win the match. It
is the chance of finishing with the lowest total if every later round added normal
noise of ``spread`` points per seat (a seat far behind gambles, one far ahead
plays safe), with a little of the plain point difference added to break ties.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bots.knowledge import Knowledge
from bots.sim import DRAW, GREEDY, PASS, Sim, play_move
from games.engine.tiles import full_set

Move = dict[str, Any]


@dataclass(frozen=True)
class SearchSettings:
    """How hard the search thinks. ``rollouts`` is the budget per decision."""

    rollouts: int = 200
    policy: int = GREEDY  # the play-out policy (sim.GREEDY / sim.HEAVY)
    halving: bool = True  # successive halving over the choices (else: equal shares)
    win_weight: float = 1.0  # 0: points only; 1: the chance to win the match
    spread: float = 0.0  # per-round points spread for utility (0: the ruleset's, times spread_scale)
    spread_scale: float = 1.0
    blunder: float = 0.0  # chance of playing a random choice instead (easy levels)
    # The opponent model: a deal where another seat played a tile while holding a surely
    # heavier playable one (not ``greedy``'s choice) counts ``slip`` times as much, per such
    # play (1: every consistent deal counts the same). ``tries``: deals drawn per deal used,
    # the first one kept with its likelihood as chance (rejection sampling), else the last.
    slip: float = 1.0
    tries: int = 1
    # Information-set search over the seat's own decisions: ``depth`` of them (1: only the
    # one now; 2: also its next one, chosen in each play-out by UCB over the choices it has
    # on that deal, with exploration ``explore``), the rest played by the play-out policy.
    depth: int = 1
    explore: float = 0.5
    # Stop early once the leading choice is clearly ahead: after every ``CHECK_EVERY``
    # deals, if the leader's mean value over the deals both were played on beats the
    # runner-up's by more than ``settle`` standard errors of that paired difference
    # (0: never; spend the whole budget).
    settle: float = 0.0


CHECK_EVERY = 16  # deals between two checks of ``settle``


def _round_spread(view: Mapping[str, Any]) -> float:
    """A rough spread of one seat's points in one round: about the points of two
    average tiles (an average tile of a double-N set has N pips). Measured over greedy
    play of double-9, it is about a third too wide (16.3 against 22): ``strong``
    scales it (``SearchSettings.spread_scale``, docs/bots.md)."""
    set_max: int = view["ruleset"]["set_max"]
    return 2.0 * set_max + 4.0


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))  # the standard normal distribution function


def utility_function(view: Mapping[str, Any], settings: SearchSettings) -> Callable[[Sequence[int]], float]:
    """The value to ``view["seat"]`` of a round ending with these scores."""
    me: int = view["seat"]
    totals: list[int] = list(view["totals"])
    players = len(totals)
    remaining: int = view["round"]["of"] - view["round"]["number"]
    spread = settings.spread or settings.spread_scale * _round_spread(view)
    scale = spread * math.sqrt(2.0 * remaining) if remaining else 0.0
    others = [s for s in range(players) if s != me]
    weight = settings.win_weight
    per_point = 1.0 / (spread * (players - 1))

    def utility(scores: Sequence[int]) -> float:
        mine = totals[me] + scores[me]
        points = (sum(scores[s] for s in others) - (players - 1) * scores[me]) * per_point
        if not weight:
            return points
        chance = 1.0
        if scale:
            for s in others:
                chance *= _phi((totals[s] + scores[s] - mine) / scale)
        else:
            for s in others:
                gap = totals[s] + scores[s] - mine
                chance *= 1.0 if gap > 0 else (0.5 if gap == 0 else 0.0)
        return weight * chance + 0.05 * points

    return utility


def candidates(view: Mapping[str, Any]) -> list[tuple[int, Move]]:
    """The distinct choices of the seat to move: (sim move, the first legal move that
    makes it). Plays of one tile on ends needing one pip are one choice."""
    pips = {end["id"]: end["pip"] for end in view["open_ends"]}
    index = {f"{h}-{lo}": i for i, (h, lo) in enumerate(full_set(view["ruleset"]["set_max"]))}
    seen: dict[int, Move] = {}
    for move in view["legal_moves"]:
        kind = move["type"]
        key = play_move(index[move["tile"]], pips[move["end"]]) if kind == "play" else DRAW if kind == "draw" else PASS
        seen.setdefault(key, move)
    return list(seen.items())


def search_move(
    view: Mapping[str, Any],
    rng: random.Random,
    settings: SearchSettings,
    stop: Callable[[], bool] | None = None,
) -> Move:
    """The move the search picks for the seat to move in ``view``."""
    legal = view["legal_moves"]
    if len(legal) == 1:
        return dict(legal[0])
    choices = candidates(view)
    if len(choices) == 1:
        return dict(choices[0][1])
    if settings.blunder and rng.random() < settings.blunder:
        return dict(choices[rng.randrange(len(choices))][1])
    knowledge = Knowledge(view, random.Random(rng.random()))
    utility = utility_function(view, settings)
    policy = settings.policy
    me: int = view["seat"]
    slip, tries, depth = settings.slip, settings.tries, settings.depth
    weighted = slip < 1.0
    trees: list[dict[tuple[int, ...], dict[int, list[float]]]] = [{} for _ in choices]
    alive = list(range(len(choices)))
    totals = [0.0] * len(choices)
    counts: list[float] = [0] * len(choices)
    budget = settings.rollouts
    spent = 0
    # Successive halving: the budget in rounds; after each round the weaker half goes.
    stages = max(1, math.ceil(math.log2(len(choices)))) if settings.halving else 1
    settle = settings.settle
    values: list[list[float]] = [[] for _ in choices]  # per choice, its value on each deal (settle)
    dealt = 0

    def mean(c: int) -> float:
        return totals[c] / counts[c] if counts[c] else -math.inf

    for stage in range(stages):
        share = (budget - spent) // (stages - stage)
        deals = max(1, share // len(alive))
        for _ in range(deals):
            deal = knowledge.sample(rng)
            weight = 1.0
            if weighted:
                weight = knowledge.likelihood(deal, slip)
                for _ in range(tries - 1):
                    if weight >= 1.0 or rng.random() < weight:
                        weight = 1.0
                        break
                    deal = knowledge.sample(rng)
                    weight = knowledge.likelihood(deal, slip)
            for c in alive:
                sim = deal.copy()
                sim.apply(choices[c][0])
                if depth > 1:
                    value = _descend(sim, me, trees[c], depth, rng, settings, utility, weight)
                else:
                    value = utility(sim.rollout(rng, policy))
                totals[c] += weight * value
                counts[c] += weight
                if settle:
                    values[c].append(value)
            spent += len(alive)
            dealt += 1
            if stop is not None and stop():
                break
            if settle and dealt % CHECK_EVERY == 0:
                if len(alive) < 2:
                    break
                lead, second = sorted(alive, key=mean, reverse=True)[:2]
                if _settled(values[lead], values[second], settle):
                    break
        else:
            if len(alive) > 1 and stage < stages - 1:
                alive.sort(key=mean, reverse=True)
                alive = alive[: max(1, (len(alive) + 1) // 2)]
            continue
        break
    best = max(alive, key=mean)
    return dict(choices[best][1])


def _settled(lead: list[float], second: list[float], settle: float) -> bool:
    """Whether the leading choice beats the runner-up by more than ``settle`` standard
    errors of their paired difference, over their values on the deals so far (a choice
    still in the running was played on every deal, so the two lists line up)."""
    n = len(lead)
    if n < CHECK_EVERY:
        return False
    diffs = [a - b for a, b in zip(lead, second, strict=True)]
    mean = sum(diffs) / n
    if mean <= 0.0:
        return False
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean * mean > settle * settle * var / n


def _descend(
    sim: Sim,
    me: int,
    tree: dict[tuple[int, ...], dict[int, list[float]]],
    depth: int,
    rng: random.Random,
    settings: SearchSettings,
    utility: Callable[[Sequence[int]], float],
    weight: float,
) -> float:
    """One play-out below a choice: the others and the seat's forced moves by the
    policy, the seat's next ``depth - 1`` choices by UCB over the moves it has on this
    deal (open loop: a node is the seat's own moves since the choice; a move's chance
    to be picked counts the play-outs where it was there), the rest by the policy.
    Each node's statistics: move -> [weighted value sum, weight sum, visits, times available]."""
    policy = settings.policy
    path: tuple[int, ...] = ()
    visited: list[list[float]] = []
    for _ in range(depth - 1):
        moves = sim.advance(me, rng, policy)
        if not moves:
            break
        node = tree.get(path)
        if node is None:
            node = tree[path] = {}
        stats = []
        fresh = []
        for m in moves:
            st = node.get(m)
            if st is None:
                st = node[m] = [0.0, 0.0, 0.0, 0.0]
            st[3] += 1
            stats.append(st)
            if not st[2]:
                fresh.append(m)
        if fresh:
            preferred = sim.policy_move(rng, policy)
            move = preferred if preferred in fresh else fresh[rng.randrange(len(fresh))]
        else:
            explore = settings.explore
            move, top = moves[0], -math.inf
            for m, st in zip(moves, stats, strict=True):
                mean = st[0] / st[1] if st[1] else 0.0
                score = mean + explore * math.sqrt(math.log(st[3]) / st[2])
                if score > top:
                    move, top = m, score
        visited.append(node[move])
        sim.apply(move)
        path += (move,)
    value = utility(sim.rollout(rng, policy))
    for st in visited:
        st[0] += weight * value
        st[1] += weight
        st[2] += 1
    return value
