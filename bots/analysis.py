"""Game analysis for players: every decision of one seat, judged from that seat's view.

For each decision of the seat with two or more distinct choices (plays of one tile on
ends of one pip are one choice, as in ``bots.search``), ``evaluate`` estimates the
expected points of every choice with the machinery of ``strong``: deals of the hidden
tiles sampled consistently with the seat's view (``Knowledge``: its hand, the layout,
the sizes, every draw and pass), each choice played on every deal (common random
numbers) and the hand played out by the greedy play-out policy for every seat
(``Sim.rollout``).

**Only the seat's view goes in** (``games.engine.seat_view`` at that moment: nothing
hidden, nothing later), and the random numbers are seeded from public facts only (the
seat and the decision's move number), so two deals that differ only in what the seat
could not see give exactly the same analysis (``tests/bots/test_analysis.py`` proves
it by changing the hidden tiles of a deal).

The value of a choice is in points of the hand: the average points the other seats
are left holding minus the seat's own (both are penalty points: more for the others
is better), so a choice's *loss* is how many points it gives away against the best
choice, on average. Losses are classed by ``THRESHOLDS`` (docs/bots.md); a decision's
*accuracy* is ``100 * exp(-loss / ACCURACY_SCALE)`` and a hand's or the match's is the
mean over its decisions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bots.knowledge import Knowledge
from bots.search import candidates
from bots.sim import DRAW, GREEDY, PASS, play_move
from games.engine import Match, Ruleset, Setup, seat_view
from games.engine.tiles import full_set

Move = dict[str, Any]

#: Deals sampled per decision; every choice is played out once on each.
DEALS = 160
#: Loss (in points of the hand) from which a decision is an inaccuracy, a mistake, a blunder.
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 10.0), ("mistake", 5.0), ("inaccuracy", 2.0))
GOOD = "good"
CLASSES = (GOOD, "inaccuracy", "mistake", "blunder")
#: A loss of this many points costs a decision about 63% of its accuracy.
ACCURACY_SCALE = 8.0


def classify(loss: float) -> str:
    """The class of a decision that lost ``loss`` points against the best choice."""
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            return name
    return GOOD


def accuracy(loss: float) -> float:
    return 100.0 * math.exp(-max(0.0, loss) / ACCURACY_SCALE)


def _key(view: Mapping[str, Any], move: Mapping[str, Any]) -> int:
    """The choice a legal move makes (as ``bots.search.candidates`` counts them)."""
    if move["type"] == "draw":
        return DRAW
    if move["type"] == "pass":
        return PASS
    index = {f"{h}-{lo}": i for i, (h, lo) in enumerate(full_set(view["ruleset"]["set_max"]))}
    pips = {end["id"]: end["pip"] for end in view["open_ends"]}
    return play_move(index[move["tile"]], pips[move["end"]])


@dataclass(frozen=True)
class Evaluation:
    """Every choice of one decision with its expected points (best first)."""

    moves: list[tuple[Move, float]]

    @property
    def best(self) -> Move:
        return self.moves[0][0]

    @property
    def best_value(self) -> float:
        return self.moves[0][1]


def canonical(view: Mapping[str, Any]) -> dict[str, Any]:
    """``view`` with its hand and legal moves in a fixed order: the order a seat holds
    its tiles in (dealt, drawn) must not change what the analysis says."""
    return {
        **view,
        "hand": sorted(view["hand"]),
        "legal_moves": sorted(view["legal_moves"], key=lambda m: (m["type"], m.get("tile", ""), m.get("end", ""))),
    }


def evaluate(view: Mapping[str, Any], rng: random.Random, deals: int = DEALS) -> Evaluation | None:
    """The expected points of every distinct choice of the seat to move in ``view``
    (a ``seat_view``), or None when it has fewer than two choices."""
    view = canonical(view)
    choices = candidates(view)
    if len(choices) < 2:
        return None
    me: int = view["seat"]
    others = [s for s in range(len(view["hand_sizes"])) if s != me]
    knowledge = Knowledge(view, random.Random(rng.random()))
    totals = [0.0] * len(choices)
    for _ in range(deals):
        deal = knowledge.sample(rng)
        for c, (move, _) in enumerate(choices):
            sim = deal.copy()
            sim.apply(move)
            scores = sim.rollout(rng, GREEDY)
            totals[c] += sum(scores[s] for s in others) / len(others) - scores[me]
    ranked = sorted(
        ((dict(move), round(total / deals, 2)) for (_, move), total in zip(choices, totals, strict=True)),
        key=lambda mv: -mv[1],
    )
    return Evaluation(ranked)


def decision_rng(seat: int, move_number: int) -> random.Random:
    """The random numbers of one decision: from public facts only (never the seed)."""
    return random.Random(f"analysis:{seat}:{move_number}")


def judge(view: Mapping[str, Any], played: Mapping[str, Any], evaluation: Evaluation) -> dict[str, Any]:
    """One decision's verdict: the move played, the best, the loss, the class."""
    key = _key(view, played)
    value = next(v for m, v in evaluation.moves if _key(view, m) == key)
    best = evaluation.best
    loss = round(max(0.0, evaluation.best_value - value), 2)
    return {
        "played": dict(played),
        "played_points": value,
        "best": best,
        "best_points": evaluation.best_value,
        "loss": loss,
        "verdict": classify(loss),
        "accuracy": round(accuracy(loss), 1),
        "moves": [{"move": m, "points": v} for m, v in evaluation.moves],
    }


@dataclass(frozen=True)
class Decision:
    """A decision of the seat in a recorded match: where it is and what the seat saw."""

    move_number: int  # 1, 2, ... within the game (the played move's number)
    round: int
    view: dict[str, Any]
    played: Move


def decisions(
    ruleset: Mapping[str, Any],
    seed: int,
    setup: Mapping[str, Any] | None,
    moves: Sequence[tuple[int, Mapping[str, Any]]],
    seat: int,
) -> Iterator[Decision]:
    """The seat's decisions with two or more distinct choices, replaying the record."""
    match, _ = Match.new(
        Ruleset.from_dict(ruleset), seed, None if setup is None else Setup.from_dict(setup, Ruleset.from_dict(ruleset))
    )
    for number, (mover, move) in enumerate(moves, start=1):
        if mover == seat:
            view = seat_view(match, seat)
            if len(candidates(view)) >= 2:
                yield Decision(number, match.round_number, view, dict(move))
        match.apply(mover, move)


def summarise(verdicts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts per class, points lost and accuracy over some decisions."""
    counts = dict.fromkeys(CLASSES, 0)
    for verdict in verdicts:
        counts[verdict["verdict"]] += 1
    lost = sum(v["loss"] for v in verdicts)
    return {
        "decisions": len(verdicts),
        "counts": counts,
        "points_lost": round(lost, 2),
        "accuracy": round(sum(v["accuracy"] for v in verdicts) / len(verdicts), 1) if verdicts else None,
    }


def analyse(
    ruleset: Mapping[str, Any],
    seed: int,
    setup: Mapping[str, Any] | None,
    moves: Sequence[tuple[int, Mapping[str, Any]]],
    seat: int,
    *,
    deals: int = DEALS,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The analysis of ``seat`` over a recorded match: a verdict per decision (with
    its move number and hand), per-hand summaries and the match's. ``progress(done,
    total)`` is called after each decision."""
    found = list(decisions(ruleset, seed, setup, moves, seat))
    verdicts: list[dict[str, Any]] = []
    for done, decision in enumerate(found, start=1):
        evaluation = evaluate(decision.view, decision_rng(seat, decision.move_number), deals)
        assert evaluation is not None
        verdicts.append(
            {
                "move_number": decision.move_number,
                "hand": decision.round,
                **judge(decision.view, decision.played, evaluation),
            }
        )
        if progress is not None:
            progress(done, len(found))
    hands = sorted({v["hand"] for v in verdicts})
    return {
        "decisions": verdicts,
        "hands": [{"hand": h, **summarise([v for v in verdicts if v["hand"] == h])} for h in hands],
        "match": summarise(verdicts),
    }


def count_decisions(
    ruleset: Mapping[str, Any],
    seed: int,
    setup: Mapping[str, Any] | None,
    moves: Sequence[tuple[int, Mapping[str, Any]]],
    seat: int,
) -> int:
    return sum(1 for _ in decisions(ruleset, seed, setup, moves, seat))


def hint(view: Mapping[str, Any], move_number: int, deals: int = DEALS) -> dict[str, Any]:
    """The best move from the seat's view now, with every choice's expected points
    (a seat with one choice gets it, with no points)."""
    evaluation = evaluate(view, decision_rng(view["seat"], move_number), deals)
    if evaluation is None:
        only = candidates(view)[0][1]
        return {"best": dict(only), "moves": [{"move": dict(only), "points": None}]}
    return {"best": evaluation.best, "moves": [{"move": m, "points": v} for m, v in evaluation.moves]}
