"""docs/rules.md, section "Rounds and the starting double": one test per rule."""

from __future__ import annotations

import random

import pytest

from games.engine import ENDED, PLAYING, Match, Ruleset, tile_text

from .helpers import hand, legal, new_match, types


def play_out(match: Match, chooser: random.Random, max_moves: int = 20_000) -> list[dict]:
    """Random legal moves to the end of the match; every event, in order."""
    events: list[dict] = []
    for _ in range(max_moves):
        if match.status != PLAYING:
            return events
        events += match.apply(match.turn, chooser.choice(match.legal_moves()))
    raise AssertionError("the match did not end")


def test_one_round_per_double_highest_to_blank() -> None:
    """ "A match has one round per double, from the highest down to the double-blank:
    double-9 gives **10 rounds** (9-9, 8-8, ..., 0-0).\""""
    match, events = Match.new(Ruleset(set_max=9, players=4), seed=2024)
    events += play_out(match, random.Random(1))
    expected = [f"{p}-{p}" for p in range(9, -1, -1)]
    assert [e["starting_double"] for e in events if e["type"] == "round_started"] == expected
    assert [e["tile"] for e in events if e["type"] == "spinner_placed"] == expected
    assert [r["starting_double"] for r in match.rounds] == expected
    assert [r["number"] for r in match.rounds] == list(range(1, 11))
    assert match.status == ENDED and types(events).count("round_ended") == 10
    assert types(events)[-1] == "match_ended"


@pytest.mark.parametrize("set_max", [6, 9, 12, 15, 18])
def test_round_count_is_one_per_double(set_max: int) -> None:
    ruleset = Ruleset(set_max=set_max, players=2)
    assert ruleset.round_count == set_max + 1
    assert [ruleset.starting_double(i) for i in range(ruleset.round_count)] == list(range(set_max, -1, -1))


def test_rounds_setting_plays_the_first_rounds_of_the_sequence() -> None:
    """ "`rounds` may shorten a match (it then plays the first `rounds` of that sequence).\""""
    match, events = Match.new(Ruleset(set_max=9, players=3, rounds=3), seed=8)
    events += play_out(match, random.Random(2))
    assert [e["starting_double"] for e in events if e["type"] == "round_started"] == ["9-9", "8-8", "7-7"]
    assert len(match.rounds) == 3 and match.status == ENDED
    assert types(events).count("match_ended") == 1


def test_holder_places_the_starting_double_automatically() -> None:
    """ "The player holding the round's starting double places it in the centre; it is
    the **spinner**. Placing it is automatic (there is no choice to make).\""""
    match, events = new_match([["1-0", "2-0"], ["3-0", "6-6", "4-0"], ["5-0"]])
    assert types(events) == ["round_started", "spinner_placed"]
    assert events[1]["seat"] == 1 and events[1]["tile"] == "6-6"
    assert events[1]["arms"] == ["e1", "e2", "e3", "e4"]
    assert hand(match, 1) == ["3-0", "4-0"]
    assert match.move_count == 0  # nobody made a move
    tree = match.layout.tree()
    assert tree is not None
    assert tree["tile"] == "6-6" and tree["kind"] == "spinner" and tree["seat"] == 1
    assert match.starter == 1


def test_nobody_holds_it_round_one_draws_from_seat_0() -> None:
    """ "If no player holds it, players draw one tile at a time from the boneyard, in
    turn, until someone draws it; that player places it. Drawing starts with seat 0
    in round 1\""""
    match, events = new_match([["1-0"], ["2-0"], ["3-0"]], draws=["4-0", "5-0", "4-1", "6-6", "5-1"])
    drew = [e for e in events if e["type"] == "drew"]
    assert [e["seat"] for e in drew] == [0, 1, 2, 0]
    assert all(e["for_starting_double"] for e in drew)
    assert all("tile" not in e for e in drew)  # never which tile
    assert [e["boneyard_size"] for e in drew] == [24, 23, 22, 21]
    placed = events[-1]
    assert placed["type"] == "spinner_placed" and placed["seat"] == 0
    assert hand(match, 0) == ["1-0", "4-0"]  # the drawn 6-6 went to the centre
    assert hand(match, 1) == ["2-0", "5-0"] and hand(match, 2) == ["3-0", "4-1"]
    assert match.boneyard[0] == (5, 1)
    assert match.turn == 1  # the seat after the one who placed it
    assert match.move_count == 0


def test_nobody_holds_it_first_draw_finds_it() -> None:
    match, events = new_match([["1-0"], ["2-0"]], draws=["6-6"])
    assert types(events) == ["round_started", "drew", "spinner_placed"]
    assert events[1]["seat"] == 0 and events[2]["seat"] == 0
    assert match.turn == 1 and hand(match, 0) == ["1-0"]


def _round_two_without_its_double(starter: int) -> tuple[Match, list[dict]]:
    """A 3-player double-6 match whose round 1 ends at once (``starter`` holds only the
    6-6, places it and is out) and whose round 2, dealt from the seed, leaves the 5-5
    in the boneyard. The seed is searched for, so the test does not depend on the
    shuffle's details."""
    ruleset = Ruleset(set_max=6, players=3, rounds=2)
    hands = [["1-0", "2-0"], ["3-0", "4-0"], ["5-0", "6-0"]]
    hands[starter] = ["6-6"]
    for seed in range(500):
        match, events = Match.new(ruleset, seed, setup={"hands": hands})
        if any(e["type"] == "drew" and e["round"] == 2 for e in events):
            return match, events
    raise AssertionError("no seed leaves the 5-5 in the boneyard")  # pragma: no cover


@pytest.mark.parametrize("starter", [0, 1, 2])
def test_nobody_holds_it_later_rounds_draw_from_seat_after_previous_starter(starter: int) -> None:
    """ "Drawing starts with seat 0 in round 1 and, in later rounds, with the seat after
    the previous round's starter.\""""
    match, events = _round_two_without_its_double(starter)
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["round"] == 1 and ended["reason"] == "domino" and ended["starter"] == starter
    round_two = [e for e in events if e["round"] == 2]
    drew = [e["seat"] for e in round_two if e["type"] == "drew"]
    first = (starter + 1) % 3
    assert drew == [(first + i) % 3 for i in range(len(drew))]
    placed = next(e for e in round_two if e["type"] == "spinner_placed")
    assert placed["tile"] == "5-5" and placed["seat"] == drew[-1]
    assert match.starter == placed["seat"] and match.turn == (placed["seat"] + 1) % 3


def test_play_continues_with_the_seat_after_the_placer() -> None:
    """ "Play then continues **clockwise** (seat order 0, 1, 2, ...) with the player after
    the one who placed the spinner. Placing the spinner is that player's turn.\""""
    for holder in range(4):
        hands = [["1-0", "6-5"], ["2-0", "6-4"], ["3-0", "6-3"], ["4-0", "6-2"]]
        hands[holder] = hands[holder] + ["6-6"]
        match, _ = new_match(hands)
        assert match.turn == (holder + 1) % 4
        assert match.legal_moves(holder) == []  # the placer has had their turn
        order = []
        for _ in range(4):  # each seat plays an arm, clockwise
            order.append(match.turn)
            match.apply(match.turn, legal(match)[0])
        assert order == [(holder + 1 + i) % 4 for i in range(4)]


def test_spinner_placement_can_end_the_round() -> None:
    """Placing the spinner is a play: a player whose only tile is the starting double
    has gone out ("The round ends at once when a player plays their last tile")."""
    match, events = new_match([["1-0", "2-0"], ["6-6"]], rounds=2)
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["reason"] == "domino" and ended["went_out"] == 1 and ended["scores"] == [3, 0]
    assert match.round_number == 2 and match.rounds[0]["starting_double"] == "6-6"
    assert tile_text((5, 5)) in [e.get("starting_double") for e in events]
