"""Hypothesis properties of the engine, over random rulesets, seeds and choices
among the legal moves.

Each test plays whole matches (``run_match``) and checks its property after every
move. Sizes are kept small (2-4 players, few rounds on the big sets) and
``max_examples`` tuned so that all of tests/engine runs well under a minute on two
cores.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    MAX_PLAYERS,
    PLAYING,
    SET_SIZES,
    Match,
    Move,
    RuleError,
    Ruleset,
    full_set,
    full_view,
    public_view,
    seat_view,
    tile_text,
)

# Rounds per match, by set: all of double-6's, fewer on the bigger sets.
MAX_ROUNDS = {6: 7, 9: 3, 12: 2, 15: 1, 18: 1}

PROPERTY_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    set_max = draw(st.sampled_from(SET_SIZES))
    players = draw(st.integers(2, min(4, MAX_PLAYERS[set_max])))
    tiles = (set_max + 1) * (set_max + 2) // 2
    hand_size = draw(st.none() | st.none() | st.integers(1, tiles // players))
    rounds = draw(st.integers(1, MAX_ROUNDS[set_max]))
    return Ruleset(
        set_max=set_max,
        players=players,
        hand_size=hand_size,
        spinner_arms=draw(st.sampled_from((4, 6))),
        rounds=None if rounds == set_max + 1 else rounds,
        double_blank_points=draw(st.sampled_from((50, 25, 0))),
    )


seeds = st.integers(min_value=0, max_value=2**63)

# The choices among legal moves come from a seeded generator rather than from
# ``st.randoms()``: a match makes hundreds of choices, which would overflow
# Hypothesis' per-example data budget.
choosers = st.builds(random.Random, st.integers(min_value=0, max_value=2**32))


def move_bound(ruleset: Ruleset) -> int:
    """More moves than any match can take: per round every move is a play (a tile
    leaves a hand), a draw (a tile leaves the boneyard), or a pass - and between two
    plays or draws each seat passes at most once."""
    return ruleset.round_count * ruleset.tile_count * 2 * (ruleset.players + 1)


def points(tile_text_: str, ruleset: Ruleset) -> int:
    high, low = map(int, tile_text_.split("-"))
    return ruleset.double_blank_points if (high, low) == (0, 0) else high + low


Check = Callable[[Match, Match | None, Move | None, list[dict]], None]


def run_match(
    ruleset: Ruleset, seed: int, chooser: random.Random, check: Check
) -> tuple[Match, list[tuple[int, dict]]]:
    """Play a whole match with random legal moves, calling ``check(match, before,
    move, events)`` at the start and after every move (``before`` is a copy of the
    state before the move). Returns the match and its record of moves."""
    match, events = Match.new(ruleset, seed)
    check(match, None, None, events)
    record: list[tuple[int, dict]] = []
    for _ in range(move_bound(ruleset)):
        if match.status != PLAYING:
            return match, record
        before = Match.from_dict(match.to_dict())
        move = chooser.choice(match.legal_moves())
        record.append((match.turn, move.to_dict()))
        events = match.apply(match.turn, move)
        check(match, before, move, events)
    raise AssertionError(f"the match did not end within {move_bound(ruleset)} moves")


# -- properties ----------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_tiles_are_conserved(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """After every move, hands + boneyard + layout hold the whole set, each tile once."""
    everything = Counter(full_set(ruleset.set_max))

    def check(match: Match, *_: object) -> None:
        held = [t for h in match.hands for t in h] + match.boneyard + match.layout.tiles()
        assert Counter(held) == everything
        assert match.drawn is None or match.drawn in match.hands[match.turn]

    run_match(ruleset, seed, chooser, check)


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_every_match_ends(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """Every match ends (within ``move_bound`` moves), after exactly ``round_count`` rounds."""
    match, _ = run_match(ruleset, seed, chooser, lambda *_: None)
    assert match.status == "ended" and len(match.rounds) == ruleset.round_count
    assert [r["number"] for r in match.rounds] == list(range(1, ruleset.round_count + 1))
    assert match.log[-1]["type"] == "match_ended" and match.log[-1]["seed"] == seed


@settings(PROPERTY_SETTINGS, max_examples=20)
@given(rulesets(), seeds, choosers)
def test_every_listed_move_applies_and_others_are_refused(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """Each listed legal move applies (on a copy); a sample of other moves - random
    tile, end, draw, pass, seat - is refused with RuleError and changes nothing."""
    top = ruleset.set_max

    def random_move(match: Match) -> tuple[int, dict]:
        seat = match.turn if chooser.random() < 0.7 else chooser.randrange(-1, ruleset.players + 1)
        kind = chooser.random()
        if kind < 0.15:
            return seat, {"type": "draw"}
        if kind < 0.3:
            return seat, {"type": "pass"}
        if kind < 0.35:
            return seat, chooser.choice([{}, {"type": "play"}, {"type": "play", "tile": "x", "end": "e1"}])
        a, b = chooser.randint(0, min(top + 1, 18)), chooser.randint(0, min(top + 1, 18))
        if chooser.random() < 0.5 and match.hands[match.turn]:  # often a tile the mover holds
            a, b = chooser.choice(match.hands[match.turn])
        end = (
            chooser.choice(list(match.layout.ends) or [1])
            if chooser.random() < 0.7
            else chooser.randint(0, match.layout.next_end + 1)
        )
        return seat, {"type": "play", "tile": f"{a}-{b}", "end": f"e{end}"}

    def check(match: Match, *_: object) -> None:
        if match.status != PLAYING:
            return
        state = match.to_dict()
        legal = match.legal_moves()
        assert legal, "the seat to move always has a move"
        assert len(set(legal)) == len(legal)
        for move in legal:
            copy = Match.from_dict(state)
            copy.apply(match.turn, move.to_dict())
            assert copy.move_count == match.move_count + 1
        for _turn in range(6):
            seat, data = random_move(match)
            try:
                listed = seat == match.turn and Move.from_dict(data, top) in legal
            except RuleError:
                listed = False
            if listed:
                continue
            try:
                match.apply(seat, data)
            except RuleError:
                pass
            else:
                raise AssertionError(f"seat {seat} made unlisted move {data}")
            assert match.to_dict() == state

    run_match(ruleset, seed, chooser, check)


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_round_scores_are_the_pips_left_and_totals_their_sums(
    ruleset: Ruleset, seed: int, chooser: random.Random
) -> None:
    """Each round scores every hand's pips (the double-blank by the ruleset; 0 for the
    seat that went out); revealed hands are the real ones; totals are the sums."""

    def check(match: Match, before: Match | None, move: Move | None, events: list[dict]) -> None:
        ended = [e for e in events if e["type"] == "round_ended"]
        if ended and before is not None and move is not None:
            # The hands at the end of the move's round, worked out from the state before.
            hands = [[tile_text(t) for t in h] for h in before.hands]
            if move.type == "play":
                assert move.tile is not None
                hands[before.turn].remove(tile_text(move.tile))
            elif move.type == "draw":
                hands[before.turn].append(tile_text(before.boneyard[0]))
            assert ended[0]["hands"] == hands
        for event in ended:
            scores = [sum(points(t, ruleset) for t in hand) for hand in event["hands"]]
            assert event["scores"] == scores
            if event["reason"] == "domino":
                assert event["hands"][event["went_out"]] == [] and scores[event["went_out"]] == 0
            else:
                assert event["went_out"] is None and all(event["hands"])
        totals = [sum(r["scores"][s] for r in match.rounds) for s in range(ruleset.players)]
        assert match.totals == totals
        if match.status != PLAYING:
            assert min(match.totals) == match.totals[match.winners[0]]
            assert all(match.totals[w] == min(match.totals) for w in match.winners)

    run_match(ruleset, seed, chooser, check)


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_replay_reproduces_the_state(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """Match.replay(ruleset, seed, [(seat, move.to_dict()), ...]) gives the same
    to_dict(), at the end and at a point in the middle."""
    match, record = run_match(ruleset, seed, chooser, lambda *_: None)
    assert Match.replay(ruleset, seed, record).to_dict() == match.to_dict()
    middle = len(record) // 2
    halfway = Match.replay(ruleset, seed, record[:middle])
    assert halfway.move_count == middle
    for seat, move in record[middle:]:
        halfway.apply(seat, move)
    assert halfway.to_dict() == match.to_dict()


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_json_round_trip_reproduces_the_state(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """json.dumps / json.loads / from_dict gives the same to_dict(), after every move;
    and the restored match goes on exactly like the original."""
    restored: list[Match] = []

    def check(match: Match, *_: object) -> None:
        state = match.to_dict()
        copy = Match.from_dict(json.loads(json.dumps(state)))
        assert copy.to_dict() == state
        assert copy.legal_moves() == match.legal_moves()
        restored[:] = [copy]

    match, _record = run_match(ruleset, seed, chooser, check)
    assert restored[0].to_dict() == match.to_dict()


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_views_agree_with_the_full_state(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """Hand sizes, boneyard size, the own hand and the legal moves in every view agree
    with the full state; only the seat to move has legal moves."""

    def check(match: Match, *_: object) -> None:
        sizes = [len(h) for h in match.hands]
        public = public_view(match)
        full = full_view(match)
        assert public["hand_sizes"] == full["hand_sizes"] == sizes
        assert public["boneyard_size"] == full["boneyard_size"] == len(match.boneyard) == len(full["boneyard"])
        assert [len(h) for h in full["hands"]] == sizes
        assert public["totals"] == match.totals
        for seat in range(ruleset.players):
            view = seat_view(match, seat)
            assert view["hand_sizes"] == sizes and view["boneyard_size"] == len(match.boneyard)
            assert view["hand"] == full["hands"][seat]
            if match.status == PLAYING and seat == match.turn:
                assert view["legal_moves"] == full["legal_moves"] != []
            else:
                assert view["legal_moves"] == []
        json.dumps(full)  # every view is JSON

    run_match(ruleset, seed, chooser, check)
