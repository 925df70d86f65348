"""The engine's contract around the rules: every refusal code, a refused move
changes nothing, open-end ids are stable, the event stream, state round-trips."""

from __future__ import annotations

import copy
import json
import random

import pytest

from games.engine import (
    EVENT_TYPES,
    PLAYING,
    RULE_CODES,
    Match,
    Move,
    RuleError,
    Ruleset,
    RulesetError,
)

from .helpers import draw, free_match, new_match, pass_, play, snapshot, types


def refused(match: Match, code: str, move: object, seat: object = None) -> None:
    before = snapshot(match)
    with pytest.raises(RuleError) as info:
        match.apply(match.turn if seat is None else seat, move)  # type: ignore[arg-type]
    assert info.value.code == code, info.value.message
    assert info.value.code in RULE_CODES and info.value.message
    assert snapshot(match) == before


def test_not_your_turn() -> None:
    match = free_match(["1-0"], ["5-1"])
    for seat in (0, 2, -1, 7, "1", 1.5):
        refused(match, "not_your_turn", {"type": "play", "tile": "1-0", "end": "e5"}, seat=seat)
    with pytest.raises(RuleError) as info:
        match.apply(None, {"type": "play", "tile": "5-1", "end": "e5"})  # type: ignore[arg-type]
    assert info.value.code == "not_your_turn"
    refused(match, "not_your_turn", {"type": "draw"}, seat=0)
    refused(match, "not_your_turn", {"type": "pass"}, seat=0)
    assert match.legal_moves(0) == [] and match.legal_moves(1) == match.legal_moves()


def test_tile_not_in_hand() -> None:
    match = free_match(["1-0", "5-2"], ["5-1"])
    refused(match, "tile_not_in_hand", {"type": "play", "tile": "5-2", "end": "e5"})  # seat 0's
    refused(match, "tile_not_in_hand", {"type": "play", "tile": "5-0", "end": "e5"})  # the boneyard's
    refused(match, "tile_not_in_hand", {"type": "play", "tile": "6-5", "end": "e5"})  # the layout's


def test_no_such_end() -> None:
    match = free_match(["1-0"], ["5-1"])
    for end in ("e0", "e1", "e4", "e9", "e999999999"):
        refused(match, "no_such_end", {"type": "play", "tile": "5-1", "end": end})


def test_pips_do_not_match() -> None:
    match = free_match(["1-0"], ["5-1"])
    for end in ("e6", "e7", "e8"):
        refused(match, "pips_do_not_match", {"type": "play", "tile": "5-1", "end": end})


@pytest.mark.parametrize(
    "move",
    [
        None,
        "play",
        3,
        [],
        {},
        {"type": None},
        {"type": "jump"},
        {"type": "PLAY"},
        {"type": "play"},
        {"type": "play", "tile": "5-1"},
        {"type": "play", "end": "e5"},
        {"type": "play", "tile": "7-1", "end": "e5"},  # not a tile of a double-6 set
        {"type": "play", "tile": "51", "end": "e5"},
        {"type": "play", "tile": "5/1", "end": "e5"},
        {"type": "play", "tile": 51, "end": "e5"},
        {"type": "play", "tile": ["5", "1"], "end": "e5"},
        {"type": "play", "tile": "5-1", "end": 5},
        {"type": "play", "tile": "5-1", "end": "5"},
        {"type": "play", "tile": "5-1", "end": "e"},
        {"type": "play", "tile": "5-1", "end": "E5"},
        {"type": "play", "tile": "5-1", "end": "e-5"},
        {"type": "play", "tile": "5-1", "end": "e5.0"},
        {"type": "play", "tile": "5-1", "end": " e5"},
        {"type": "play", "tile": "5-1", "end": None},
        # Unicode digits: "²" made int() raise a bare ValueError, "٥" was read as e5.
        {"type": "play", "tile": "5-1", "end": "e²"},
        {"type": "play", "tile": "5-1", "end": "e٥"},
        {"type": "play", "tile": "5-1", "end": "e" + "9" * 5000},
    ],
    ids=lambda move: repr(move)[:48],
)
def test_invalid_move(move: object) -> None:
    """A malformed move is refused with invalid_move (never a bare Python error)."""
    match = free_match(["1-0"], ["5-1"])
    refused(match, "invalid_move", move)


def test_move_json_round_trip() -> None:
    for data in ({"type": "play", "tile": "9-4", "end": "e3"}, {"type": "draw"}, {"type": "pass"}):
        assert Move.from_dict(data).to_dict() == data
    assert Move.from_dict({"type": "play", "tile": "4-9", "end": "e3"}).to_dict()["tile"] == "9-4"
    assert Move.from_dict({"type": "draw", "tile": "ignored"}).to_dict() == {"type": "draw"}


def test_match_over() -> None:
    match = free_match(["1-0"], ["5-1"])
    play(match, "5-1", "e5")
    assert match.status == "ended" and match.legal_moves() == []
    for seat in (0, 1):
        for move in ({"type": "play", "tile": "1-0", "end": "e9"}, {"type": "draw"}, {"type": "pass"}):
            refused(match, "match_over", move, seat=seat)


def test_every_rule_code_is_exercised_by_the_scenarios() -> None:
    """Each code in RULE_CODES is raised somewhere in tests/engine (guards the list)."""
    from pathlib import Path

    text = "".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.glob("test_*.py"))
    missing = [code for code in RULE_CODES if f'"{code}"' not in text]
    assert not missing


def test_a_refused_move_changes_nothing() -> None:
    """Every refusal, in every state of a random match, leaves to_dict() identical."""
    match, _ = Match.new(Ruleset(set_max=6, players=3), 5)
    chooser = random.Random(5)
    bad_moves = [
        {"type": "play", "tile": "6-6", "end": "e1"},
        {"type": "play", "tile": "0-0", "end": "e2"},
        {"type": "draw"},
        {"type": "pass"},
        {"type": "play", "tile": "3-2", "end": "e7"},
    ]
    refusals = 0
    while match.status == PLAYING:
        legal = [m.to_dict() for m in match.legal_moves()]
        for move in bad_moves:
            if move not in legal:
                for seat in range(3):
                    before = snapshot(match)
                    with pytest.raises(RuleError):
                        match.apply(seat, move)
                    assert snapshot(match) == before
                    refusals += 1
        match.apply(match.turn, chooser.choice(match.legal_moves()))
    assert refusals > 100


def test_to_dict_is_a_snapshot() -> None:
    """A state dict taken earlier does not change when the match moves on (it is
    stored, compared and replayed): the engine used to hand out its live event log."""
    match, _ = Match.new(Ruleset(set_max=6, players=2, rounds=2), 3)
    chooser = random.Random(3)
    while match.status == PLAYING:
        state = match.to_dict()
        frozen = copy.deepcopy(state)
        events = match.apply(match.turn, chooser.choice(match.legal_moves()))
        assert state == frozen
        # Changing the returned events does not change the match either.
        after = snapshot(match)
        for event in events:
            event["seq"] = 99
        assert snapshot(match) == after


def test_open_end_ids_are_stable() -> None:
    """ "Open ends have ids e1, e2, ... that never change while a round runs": an id
    keeps its pip until a tile fills it, is never reused, and new ids count up."""
    match, _ = Match.new(Ruleset(set_max=9, players=4, rounds=3), 17)
    chooser = random.Random(17)
    seen: dict[str, int] = {}  # every id this round -> its pip
    round_number = match.round_number
    last_id = 0
    while match.status == PLAYING:
        now = {e["id"]: e["pip"] for e in match.layout.open_ends()}
        for end, pip in now.items():
            assert seen.setdefault(end, pip) == pip
        numbers = [int(e[1:]) for e in now]
        assert numbers == sorted(numbers)
        last_id = max([last_id, *numbers])
        move = chooser.choice(match.legal_moves())
        events = match.apply(match.turn, move)
        if match.round_number != round_number:  # a new layout, ids restart at e1
            round_number, seen, last_id = match.round_number, {}, 0
            continue
        after = {e["id"]: e["pip"] for e in match.layout.open_ends()}
        if move.type == "play":
            played = events[0]
            assert played["end"] not in after  # filled
            assert set(now) - {played["end"]} <= set(after)  # nothing else closed
            new = set(after) - set(now)
            assert new == set(played["new_ends"])
            assert all(int(e[1:]) > last_id for e in new)  # fresh ids, never reused
        else:
            assert after == now


def test_event_stream_of_a_whole_round() -> None:
    """Every step reports itself: round_started, drew (for the spinner), spinner_placed,
    tile_played, spinner_completed, foot_opened, foot_completed, drew, passed,
    round_ended (hands and scores), match_ended (with the seed)."""
    match, events = new_match(
        [["6-4", "6-2", "5-3", "5-2", "4-1", "2-1"], ["6-5", "6-3", "5-5", "5-4", "1-1", "0-0"]],
        draws=["6-6", "1-0", "3-0", "4-4"],
        seed=4242,
    )
    assert types(events) == ["round_started", "drew", "spinner_placed"]
    assert events[1] == {"type": "drew", "seat": 0, "boneyard_size": 15, "for_starting_double": True, "round": 1}
    assert events[2] == {
        "type": "spinner_placed",
        "seat": 0,
        "tile": "6-6",
        "arms": ["e1", "e2", "e3", "e4"],
        "round": 1,
    }
    log = list(events)
    for tile, end in (("6-5", "e1"), ("6-4", "e2"), ("6-3", "e3")):
        log += play(match, tile, end)
    log += (completed := play(match, "6-2", "e4"))
    assert types(completed) == ["tile_played", "spinner_completed"]
    log += (opened := play(match, "5-5", "e5"))
    assert types(opened) == ["tile_played", "foot_opened"]
    log += play(match, "5-3", "e9")
    log += play(match, "5-4", "e10")
    log += (done := play(match, "5-2", "e11"))
    assert types(done) == ["tile_played", "foot_completed"]
    # Seat 1 holds 1-1 and 0-0: no 4, 3, 2 or 4 end fits; it draws 1-0 (unplayable).
    log += (drew := draw(match))
    assert types(drew) == ["drew", "passed"] and drew[1]["reason"] == "drawn_tile_unplayable"
    log += play(match, "4-1", "e6")  # seat 0; e15 needs 1
    log += play(match, "1-1", "e15")  # seat 1 opens a 1-foot
    log += play(match, "2-1", "e16")  # seat 0 goes out on a toe
    assert types(log[-3:]) == ["tile_played", "round_ended", "match_ended"]
    ended, over = log[-2], log[-1]
    assert ended == {
        "type": "round_ended",
        "number": 1,
        "starting_double": "6-6",
        "starter": 0,
        "reason": "domino",
        "went_out": 0,
        "hands": [[], ["0-0", "1-0"]],
        "scores": [0, 51],
        "totals": [0, 51],
        "round": 1,
    }
    assert over == {
        "type": "match_ended",
        "totals": [0, 51],
        "winners": [0],
        "tie_break": "lowest_total",
        "seed": 4242,
        "round": 1,
    }
    assert set(types(log)) == set(EVENT_TYPES)
    assert log == match.log  # the match's history is exactly what was returned


def test_state_round_trips_through_json_and_replays() -> None:
    """to_dict -> JSON -> from_dict gives the same state; replaying the moves from the
    ruleset, seed and set-up gives it too."""
    ruleset = Ruleset(set_max=6, players=3, rounds=3)
    position = {"hands": [["6-6", "1-0"], ["2-0", "3-0"], ["4-0", "5-0"]]}
    match, _ = Match.new(ruleset, 8, setup=position)
    chooser = random.Random(8)
    record = []
    while match.status == PLAYING:
        state = match.to_dict()
        assert Match.from_dict(json.loads(json.dumps(state))).to_dict() == state
        move = chooser.choice(match.legal_moves())
        record.append((match.turn, move.to_dict()))
        match.apply(match.turn, move)
    assert Match.replay(ruleset, 8, record, setup=position).to_dict() == match.to_dict()


def test_stored_state_of_another_version_is_refused() -> None:
    match, _ = Match.new(Ruleset(set_max=6, players=2), 1)
    state = match.to_dict()
    for version in (None, 0, 2, "1"):
        with pytest.raises(RulesetError) as info:
            Match.from_dict({**state, "version": version})
        assert info.value.code == "invalid_state"


def test_pass_and_draw_helpers_agree_with_legal_moves() -> None:
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["5-0"])
    assert [m.to_dict() for m in match.legal_moves()] == [{"type": "draw"}]
    draw(match)
    pass_(match)
    assert match.turn == 0
