"""docs/rules.md, section "End of a round": one test per rule."""

from __future__ import annotations

import pytest

from games.engine import BLOCKED, DOMINO, ENDED, PLAYING, Match, RuleError, Ruleset

from .helpers import blocked_match, free_match, pass_, play, types

# A blocked round (helpers.blocked_match): these extras and draws leave seat 0 with
# 27 pips and seat 1 with 46 plus the double-blank.
EXTRA_0 = ["1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1"]
EXTRA_1 = ["3-2", "3-3", "4-0", "4-1", "4-2", "4-3", "6-0"]
DRAWS = ["6-1", "4-4", "0-0"]  # seat 1, seat 0, seat 1


def blocked_round(**rules) -> tuple[Match, list[dict]]:
    return blocked_match(EXTRA_0, EXTRA_1, DRAWS, **rules)


def test_round_ends_at_once_when_a_player_plays_their_last_tile() -> None:
    """ "The round ends at once when a player plays their last tile ("domino")\" - and
    "A player who went out scores 0.\""""
    match = free_match(["4-1", "3-2"], ["5-2"], rounds=2)
    events = play(match, "5-2", "e5")
    assert types(events)[:3] == ["tile_played", "round_ended", "round_started"]
    ended = events[1]
    assert ended["reason"] == DOMINO and ended["went_out"] == 1
    assert ended["scores"] == [5 + 5, 0] and ended["totals"] == [10, 0]
    assert ended["hands"] == [["4-1", "3-2"], []]
    assert match.round_number == 2 and match.status == PLAYING


def test_going_out_with_a_double_while_its_foot_is_open_ends_the_round() -> None:
    """ "An open foot does not keep a round going.\" The last tile is a double: its foot
    opens and the round ends at once."""
    match = free_match(["1-0"], ["5-5"])
    events = play(match, "5-5", "e5")
    assert types(events) == ["tile_played", "foot_opened", "round_ended", "match_ended"]
    assert events[2]["reason"] == DOMINO and events[2]["went_out"] == 1 and events[2]["scores"] == [1, 0]
    assert match.status == ENDED


def test_going_out_on_a_toe_while_the_foot_is_open_ends_the_round() -> None:
    """ "The round ends at once when a player plays their last tile" - even when the
    foot still lacks a toe."""
    match = free_match(["5-3", "2-0"], ["5-5", "5-4"])
    play(match, "5-5", "e5")
    play(match, "5-3", "e9")
    events = play(match, "5-4", "e10")  # seat 1's last tile; toe e11 still open
    assert types(events) == ["tile_played", "round_ended", "match_ended"]
    assert events[1]["went_out"] == 1 and events[1]["scores"] == [2, 0]
    with pytest.raises(RuleError) as info:
        match.apply(0, {"type": "play", "tile": "2-0", "end": "e11"})
    assert info.value.code == "match_over"


def test_blocked_round_scores_the_pips_left_everywhere() -> None:
    """ "or when no player can play and the boneyard is empty (blocked)\" - "Each player
    scores the pips left in their hand.\""""
    match, events = blocked_round(double_blank_points=0)
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["reason"] == BLOCKED and ended["went_out"] is None
    assert ended["hands"] == [
        ["1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1", "4-4"],
        ["3-2", "3-3", "4-0", "4-1", "4-2", "4-3", "6-0", "6-1", "0-0"],
    ]
    assert ended["scores"] == [27, 46]  # 1+2+2+3+4+3+4+8; 5+6+4+5+6+7+6+7+0
    assert match.totals == [27, 46]


def test_round_is_not_blocked_while_someone_can_still_play() -> None:
    """Blocked means *no* player can play: one seat stuck with an empty boneyard just
    passes, and the round goes on."""
    rest = [
        "5-5",
        "5-4",
        "5-3",
        "5-2",
        "5-1",
        "5-0",
        "4-4",
        "4-3",
        "4-2",
        "4-1",
        "4-0",
        "3-3",
        "3-2",
        "3-1",
        "3-0",
        "2-2",
        "2-1",
        "2-0",
    ]
    match = free_match(rest, ["1-0", "0-0", "1-1", "6-0", "6-1"])
    pass_(match)
    assert match.status == PLAYING and match.round_number == 1 and match.turn == 0


@pytest.mark.parametrize("points", [50, 25, 0])
def test_double_blank_counts_by_the_ruleset(points: int) -> None:
    """ "The **double-blank counts 50** (`double_blank_points`, default 50; 25 and 0 are
    common house rules).\""""
    rules = {} if points == 50 else {"double_blank_points": points}
    _match, events = blocked_round(**rules)
    ended = next(e for e in events if e["type"] == "round_ended")
    assert "0-0" in ended["hands"][1]
    assert ended["scores"] == [27, 46 + points]


def test_double_blank_default_is_fifty_on_domino_too() -> None:
    match = free_match(["0-0", "1-0"], ["5-2"])
    ended = play(match, "5-2", "e5")[1]
    assert ended["scores"] == [51, 0]
    assert Ruleset().double_blank_points == 50


def test_round_end_starts_the_next_round_by_itself() -> None:
    """A round's end is not a move: the next round is dealt and its spinner placed in
    the same step, and round results accumulate."""
    match = free_match(["4-1"], ["5-2"], rounds=3, seed=99)
    events = play(match, "5-2", "e5")
    started = next(e for e in events if e["type"] == "round_started")
    assert started["round"] == 2 and started["starting_double"] == "5-5"
    assert any(e["type"] == "spinner_placed" and e["round"] == 2 for e in events)
    assert len(match.rounds) == 1 and match.rounds[0]["scores"] == [5, 0]
    assert match.log[0]["type"] == "round_started" and all(e["round"] == 2 for e in match.log)
    assert sum(len(h) for h in match.hands) + len(match.boneyard) + len(match.layout.tiles()) == 28
