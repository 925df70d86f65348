"""The analysis judges a seat from its own view only (``bots.analysis``).

The proof: a round is played; then hidden tiles of its deal are swapped between the
other seats' hands and the boneyard, as long as the same moves give the seat the same
view after every move (everything it saw). The analysis of the other deal must be
exactly the same - although the hidden tiles, and so what an analysis that peeked
would say, differ.
"""

from __future__ import annotations

import random
from typing import Any

from bots import analysis
from bots.sim import GREEDY, Sim
from bots.strategies import choose_greedy
from games.engine import PLAYING, Match, RuleError, Ruleset, Setup, seat_view

RULESET = {"set_max": 9, "players": 4, "rounds": 1}
SEAT = 0
DEALS = 24  # enough to rank choices; the proof is about equality, not accuracy


def played_round(seed: int) -> list[tuple[int, dict[str, Any]]]:
    """A round of seat 0 choosing at random (it errs) against three greedy seats."""
    match, _ = Match.new(Ruleset.from_dict(RULESET), seed)
    rng = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    while match.status == PLAYING:
        seat = match.turn
        view = seat_view(match, seat)
        move = rng.choice(view["legal_moves"]) if seat == SEAT else choose_greedy(view, rng)
        moves.append((seat, move))
        match.apply(seat, move)
    return moves


def replayed(seed: int, setup: dict[str, Any] | None, moves: list[tuple[int, dict[str, Any]]]) -> Match:
    ruleset = Ruleset.from_dict(RULESET)
    return Match.replay(ruleset, seed, moves, None if setup is None else Setup.from_dict(setup, ruleset))


def seen_by_seat(match: Match) -> dict[str, Any]:
    return analysis.canonical(seat_view(match, SEAT))


def fits(setup: Setup, seed: int, moves: list[tuple[int, dict[str, Any]]]) -> Match | None:
    """The match dealt by ``setup`` after ``moves``, if the seat saw exactly what it saw
    in the real one after every move (its view, hand order aside), else None."""
    ruleset = Ruleset.from_dict(RULESET)
    real, _ = Match.new(ruleset, seed)
    other, _ = Match.new(ruleset, seed + 1, setup)
    for seat, move in moves:
        if seen_by_seat(real) != seen_by_seat(other):
            return None
        real.apply(seat, move)
        try:
            other.apply(seat, move)
        except RuleError:
            return None
    return other if seen_by_seat(real) == seen_by_seat(other) else None


def another_deal(seed: int, moves: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The real deal with hidden tiles swapped - between the other seats' hands and the
    boneyard - as long as everything the seat saw over ``moves`` stays the same."""
    ruleset = Ruleset.from_dict(RULESET)
    dealer = Match(ruleset, seed)
    dealer._deal(0)
    hands, boneyard = [list(h) for h in dealer.hands], list(dealer.boneyard)
    assert fits(Setup(tuple(map(tuple, hands)), tuple(boneyard)), seed, moves) is not None
    rng = random.Random(0)
    swapped = 0
    for _ in range(2000):
        seat = rng.choice([s for s in range(len(hands)) if s != SEAT])
        i, j = rng.randrange(len(hands[seat])), rng.randrange(len(boneyard))
        hands[seat][i], boneyard[j] = boneyard[j], hands[seat][i]
        if fits(Setup(tuple(map(tuple, hands)), tuple(boneyard)), seed, moves) is None:
            hands[seat][i], boneyard[j] = boneyard[j], hands[seat][i]  # undo
            continue
        swapped += 1
        if swapped == 4:
            break
    assert swapped
    return Setup(tuple(map(tuple, hands)), tuple(boneyard)).to_dict()


def test_changing_the_hidden_tiles_changes_nothing_of_the_analysis() -> None:
    seed = 11
    moves = played_round(seed)
    found = list(analysis.decisions(RULESET, seed, None, moves, SEAT))
    assert len(found) >= 3
    last = found[-1].move_number  # 1-based: moves[:last] ends with that decision's move
    prefix = moves[:last]
    setup = another_deal(seed, prefix)

    real = replayed(seed, None, prefix[:-1])
    alternative = replayed(seed + 1, setup, prefix[:-1])
    # What the seat saw is the same (another_deal checked it after every move); what it could not see is not.
    assert seen_by_seat(real) == seen_by_seat(alternative)
    assert [sorted(h) for h in real.hands] != [sorted(h) for h in alternative.hands]

    first = analysis.analyse(RULESET, seed, None, prefix, SEAT, deals=DEALS)
    second = analysis.analyse(RULESET, seed + 1, setup, prefix, SEAT, deals=DEALS)
    assert first == second
    assert len(first["decisions"]) == len(found)

    # The proof has teeth: judged on the real hidden tiles (peeking), the two deals differ.
    def peeking(match: Match) -> list[list[int]]:
        sim = Sim.from_match(match)
        return [sim.copy().rollout(random.Random(0), GREEDY) for _ in range(3)]

    assert peeking(real) != peeking(alternative)


def test_an_analysis_replays_exactly_and_summarises_its_decisions() -> None:
    seed = 5
    moves = played_round(seed)
    first = analysis.analyse(RULESET, seed, None, moves, SEAT, deals=DEALS)
    assert first == analysis.analyse(RULESET, seed, None, moves, SEAT, deals=DEALS)
    decisions = first["decisions"]
    assert decisions and first["match"]["decisions"] == len(decisions)
    for decision in decisions:
        values = [m["points"] for m in decision["moves"]]
        assert values == sorted(values, reverse=True) and len(values) >= 2
        assert decision["best"] == decision["moves"][0]["move"]
        assert decision["loss"] == round(max(0.0, decision["best_points"] - decision["played_points"]), 2)
        assert decision["verdict"] == analysis.classify(decision["loss"])
        assert moves[decision["move_number"] - 1] == (SEAT, decision["played"])
    counts = first["match"]["counts"]
    assert sum(counts.values()) == len(decisions)
    assert first["hands"][0]["hand"] == 1


def test_the_classes_follow_the_documented_thresholds() -> None:
    assert analysis.classify(0.0) == "good"
    assert analysis.classify(1.99) == "good"
    assert analysis.classify(2.0) == "inaccuracy"
    assert analysis.classify(5.0) == "mistake"
    assert analysis.classify(9.99) == "mistake"
    assert analysis.classify(10.0) == "blunder"
    assert analysis.accuracy(0.0) == 100.0
    assert analysis.summarise([])["accuracy"] is None


def test_a_hint_names_the_best_choice_of_the_seat_to_move() -> None:
    moves = played_round(3)
    decision = next(iter(analysis.decisions(RULESET, 3, None, moves, SEAT)))
    hint = analysis.hint(decision.view, decision.move_number, deals=DEALS)
    assert hint["best"] == hint["moves"][0]["move"]
    assert hint["best"] in decision.view["legal_moves"]
