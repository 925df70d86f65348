"""The engine's support for search is exact: ``Match.copy`` is the same match, and
``Sim`` (the fast round simulator) follows the rules of ``Match`` move for move.

Every check plays whole matches with random legal moves (Hypothesis chooses the
rulesets and seeds) and compares, after every move, the fast path with the slow
one: ``Match.copy`` against ``to_dict``/``from_dict``, ``Sim`` against ``Match``
(hands, boneyard, the pips of the open ends, the pending group, the seat to move,
the drawn tile, the legal moves, the round's end and its scores), and a whole
``Sim.rollout`` against its moves replayed on ``Match``.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from bots.sim import DRAW, GREEDY, HEAVY, PASS, SMART, Sim, engine_move, play_move, sim_move, tile_index
from games.engine import PLAYING, Match, Ruleset, parse_tile
from tests.engine.helpers import free_match, new_match, play
from tests.engine.test_properties import PROPERTY_SETTINGS, choosers, rulesets, seeds


def sim_state(sim: Sim) -> tuple[object, ...]:
    return (
        [sorted(h) for h in sim.hands],
        sim.boneyard,
        list(sim.counts),
        sim.pending,
        sim.pending_pip,
        sim.turn,
        sim.drawn,
    )


def match_state(match: Match) -> tuple[object, ...]:
    """What a ``Sim`` of the match must hold: the same, in its terms."""
    counts = [0] * (match.ruleset.set_max + 1)
    for pip in match.layout.ends.values():
        counts[pip] += 1
    pending = match.layout.pending
    return (
        [sorted(tile_index(t) for t in h) for h in match.hands],
        [tile_index(t) for t in match.boneyard],
        counts,
        len(pending),
        match.layout.ends[pending[0]] if pending else -1,
        match.turn,
        -1 if match.drawn is None else tile_index(match.drawn),
    )


def replay_rollout(match: Match, moves: list[int]) -> Match:
    """``moves`` (a rollout's record) made on a copy of ``match``, until its round ends."""
    copy = match.copy()
    round_index = copy.round_index
    for i, move in enumerate(moves):
        if copy.status != PLAYING or copy.round_index != round_index:
            # The engine ends a blocked round at once; the rollout lets every seat pass first.
            assert set(moves[i:]) == {PASS}
            break
        engine = engine_move(copy, move)
        assert engine in copy.legal_moves()
        copy.apply(copy.turn, engine)
    assert copy.status != PLAYING or copy.round_index != round_index, "the rollout stopped before the round ended"
    return copy


# -- Match.copy --------------------------------------------------------------------------


@settings(PROPERTY_SETTINGS, max_examples=15)
@given(rulesets(), seeds, choosers)
def test_copy_is_the_same_match_and_independent(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """At positions all along a match: the copy's to_dict is the original's; moves
    made on the copy leave the original as it was, and the copy goes on exactly like
    a JSON restore."""
    match, _ = Match.new(ruleset, seed)
    while match.status == PLAYING:
        if chooser.random() < 0.25:
            state = match.to_dict()
            copy = match.copy()
            assert copy.to_dict() == state
            restored = Match.from_dict(state)
            for _ in range(chooser.randrange(1, 20)):
                if copy.status != PLAYING:
                    break
                move = chooser.choice(copy.legal_moves())
                assert copy.apply(copy.turn, move) == restored.apply(restored.turn, move)
                assert copy.to_dict() == restored.to_dict()
            assert match.to_dict() == state
        match.apply(match.turn, chooser.choice(match.legal_moves()))


def test_copy_shares_only_what_never_changes() -> None:
    match = free_match(["4-1", "3-3"], ["2-1", "4-4"])
    copy = match.copy()
    # Every attribute is copied (a new one added to Match must be added to copy() too).
    assert vars(copy).keys() == vars(match).keys()
    assert all(hasattr(copy.layout, name) for name in type(match.layout).__slots__)
    for name in ("hands", "boneyard", "log", "rounds", "totals", "winners"):
        assert getattr(copy, name) is not getattr(match, name), name
    assert copy.hands[0] is not match.hands[0]
    for name in ("nodes", "ends", "pending", "filled_by"):
        assert getattr(copy.layout, name) is not getattr(match.layout, name), name
    before = match.to_dict()
    play(copy, "2-1", "e8")
    assert match.to_dict() == before and len(copy.layout.nodes) == len(match.layout.nodes) + 1


# -- Sim, move by move ---------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(rulesets(), seeds, choosers)
def test_sim_follows_the_match_move_by_move(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """A Sim built from the match at any point lists the same moves (one per tile and
    pip) and, given the same move, reaches the same position - or the same end of the
    round with the same scores."""
    match, _ = Match.new(ruleset, seed)
    if match.status != PLAYING:  # every round ended as it began (one-tile hands): no round to simulate
        with pytest.raises(ValueError, match="the match is over"):
            Sim.from_match(match)
        return
    sim = Sim.from_match(match)
    while match.status == PLAYING:
        assert sim_state(sim) == match_state(match)
        assert sim_state(Sim.from_match(match)) == match_state(match)
        legal = match.legal_moves()
        assert sorted({sim_move(match, m) for m in legal}) == sorted(sim.legal_moves())
        for fast in sim.legal_moves():
            assert engine_move(match, fast) in legal
        move = chooser.choice(legal)
        round_index = match.round_index
        sim.apply(sim_move(match, move))
        match.apply(match.turn, move)
        if match.status != PLAYING or match.round_index != round_index:
            assert sim.ended and sim.legal_moves() == []
            # The round the sim played: with one-tile hands the rounds after it may
            # end as they begin, in the same move.
            last = match.rounds[round_index]
            assert sim.scores() == last["scores"]
            assert sim.went_out == (-1 if last["went_out"] is None else last["went_out"])
            if match.status == PLAYING:
                sim = Sim.from_match(match)
        else:
            assert not sim.ended


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(rulesets(), seeds, choosers)
def test_a_rollout_is_a_legal_play_out_with_the_engines_scores(
    ruleset: Ruleset, seed: int, chooser: random.Random
) -> None:
    """From positions all along a match: every move a rollout makes is legal for the
    engine, and replayed on the match they end the round with the rollout's scores."""
    match, _ = Match.new(ruleset, seed)
    while match.status == PLAYING:
        if chooser.random() < 0.2:
            for policy in (GREEDY, HEAVY, SMART):
                sim = Sim.from_match(match)
                record: list[int] = []
                scores = sim.rollout(random.Random(chooser.random()), policy, record)
                assert sim.ended and scores == sim.scores()
                ended = replay_rollout(match, record)
                assert ended.rounds[len(match.rounds)]["scores"] == scores
        match.apply(match.turn, chooser.choice(match.legal_moves()))


def advance_step_by_step(sim: Sim, seat: int, rng: random.Random, policy: int) -> list[int]:
    """What ``Sim.advance`` does, one ``policy_move`` and ``apply`` at a time."""
    while not sim.ended:
        if sim.turn == seat:
            moves = sim.legal_moves()
            if len(moves) > 1:
                return moves
            sim.apply(moves[0])
        else:
            sim.apply(sim.policy_move(rng, policy))
    return []


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(rulesets(), seeds, choosers)
def test_advance_is_the_policy_move_by_move(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """``advance`` (the tree search's inlined loop) stops where ``policy_move`` and
    ``apply`` one at a time stop, with the same choices, the same position (or the same
    end of the round and scores), and drawing the same random numbers."""
    match, _ = Match.new(ruleset, seed)
    while match.status == PLAYING:
        if chooser.random() < 0.3:
            for policy in (GREEDY, HEAVY):
                seat = chooser.randrange(ruleset.players)
                fast, slow = Sim.from_match(match), Sim.from_match(match)
                key = chooser.random()
                fast_rng, slow_rng = random.Random(key), random.Random(key)
                assert fast.advance(seat, fast_rng, policy) == advance_step_by_step(slow, seat, slow_rng, policy)
                assert fast.ended == slow.ended and fast_rng.random() == slow_rng.random()
                if slow.ended:
                    assert fast.scores() == slow.scores() and fast.went_out == slow.went_out
                else:
                    assert sim_state(fast) == sim_state(slow) and fast.turn == seat
        match.apply(match.turn, chooser.choice(match.legal_moves()))


def test_a_rollout_leaves_its_start_alone_on_a_copy() -> None:
    match, _ = Match.new(Ruleset(set_max=9, players=4), 11)
    sim = Sim.from_match(match)
    before = sim_state(sim)
    sim.copy().rollout(random.Random(1))
    assert sim_state(sim) == before and not sim.ended


def test_a_rollout_plays_the_heaviest_tile_and_a_playable_drawn_tile() -> None:
    """Seat 1 (ends need 5, 4, 3, 2) plays 4-3 over 3-1; seat 0, holding only 6-1,
    draws 5-0 and plays it at once."""
    match = free_match(["6-1"], ["3-1", "4-3", "1-0"], draws=["5-0"], rounds=1)
    record: list[int] = []
    Sim.from_match(match).rollout(random.Random(0), GREEDY, record)
    assert record[0] >> 5 == tile_index((4, 3))
    assert record[1] == DRAW and record[2] == play_move(tile_index((5, 0)), 5)


def test_a_double_opens_a_foot_in_the_sim_as_in_the_match() -> None:
    match, _ = new_match([["6-6", "6-4", "6-2", "3-3", "3-1"], ["6-5", "6-3", "3-2", "3-0", "2-2"]], rounds=1)
    for tile, end in (("6-5", "e1"), ("6-4", "e2"), ("6-3", "e3"), ("6-2", "e4")):
        play(match, tile, end)
    sim = Sim.from_match(match)
    for tile, end, pip in (("3-2", "e8", 2), ("3-3", "e9", 3)):
        sim.apply(play_move(tile_index(parse_tile(tile)), pip))
        play(match, tile, end)
    assert match.phase == "foot" and (sim.pending, sim.pending_pip) == (3, 3)
    assert sim_state(sim) == match_state(match)
    assert sim.legal_moves() == [play_move(tile_index((3, 0)), 3)]


def test_from_match_refuses_an_ended_match() -> None:
    match, _ = new_match([["6-6"], ["6-5", "5-5"]], rounds=1)
    assert match.status != PLAYING
    with pytest.raises(ValueError):
        Sim.from_match(match)
