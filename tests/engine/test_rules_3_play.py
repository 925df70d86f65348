"""docs/rules.md, section "Play": one test per rule, on small double-6 positions.

``free_match`` (helpers.py) fills the spinner's four arms with 6-5, 6-4, 6-3, 6-2,
leaving open ends e5 (needs 5), e6 (4), e7 (3), e8 (2), seat 1 to move.
"""

from __future__ import annotations

import pytest

from games.engine import RuleError

from .helpers import draw, ends, free_match, hand, legal, new_match, pass_, play, playable, snapshot, types


def refused(match, code: str, move: dict, seat: int | None = None) -> None:
    """The move is refused with ``code`` and the state is exactly as before."""
    before = snapshot(match)
    with pytest.raises(RuleError) as info:
        match.apply(match.turn if seat is None else seat, move)
    assert info.value.code == code, info.value.message
    assert snapshot(match) == before


def p(tile: str, end: str) -> dict:
    return {"type": "play", "tile": tile, "end": end}


DRAW = {"type": "draw"}
PASS = {"type": "pass"}


def test_tiles_go_on_an_open_end_with_matching_halves() -> None:
    """ "Every tile is played at an **open end** of the layout, and the touching halves
    must match (a 9-4 goes on a 9 end, and then shows its 4).\""""
    match = free_match(["1-0", "4-2"], ["5-1", "3-0"])
    refused(match, "pips_do_not_match", p("5-1", "e6"))  # e6 needs a 4
    refused(match, "no_such_end", p("5-1", "e1"))  # e1 is filled (a spinner arm)
    refused(match, "no_such_end", p("5-1", "e99"))
    events = play(match, "1-5", "e5")  # either way round
    assert events[0] == {
        "type": "tile_played",
        "seat": 1,
        "tile": "5-1",
        "end": "e5",
        "outer": 1,
        "new_ends": ["e9"],
        "round": 1,
    }
    assert ends(match) == {"e6": 4, "e7": 3, "e8": 2, "e9": 1}
    play(match, "1-0", "e9")  # on the 1 it shows, then shows its 0
    assert ends(match)["e10"] == 0


def test_spinner_arms_first() -> None:
    """ "**Spinner first:** the spinner takes `spinner_arms` tiles (default **4**; 6 is a
    common variant). No tile may go anywhere else until all its arms are filled.\""""
    match, _ = new_match([["6-6", "6-4", "4-1"], ["6-5", "5-2", "6-3"]], draws=["6-2"])
    assert match.phase == "spinner" and playable(match) == ["e1", "e2", "e3", "e4"]
    play(match, "6-5", "e1")
    play(match, "6-4", "e2")
    # e5 (needs 5) is open but not playable until every arm is filled.
    assert playable(match) == ["e3", "e4"] and ends(match)["e5"] == 5
    assert legal(match) == [p("6-3", "e3"), p("6-3", "e4")]  # 5-2 fits e5, but not yet
    refused(match, "spinner_not_filled", p("5-2", "e5"))
    play(match, "6-3", "e3")
    refused(match, "spinner_not_filled", p("4-1", "e6"))
    assert legal(match) == [DRAW]  # so seat 0 cannot play, though 4-1 fits e6
    draw(match)
    events = play(match, "6-2", "e4")
    assert types(events) == ["tile_played", "spinner_completed"]
    assert events[1]["seat"] == 0
    assert match.phase == "free" and set(playable(match)) == {"e5", "e6", "e7", "e8"}
    play(match, "5-2", "e5")  # now anywhere


def test_six_arm_spinner_variant() -> None:
    """ "(default **4**; 6 is a common variant)": with ``spinner_arms=6`` the spinner
    takes six tiles before play is free."""
    match, events = new_match([["6-6", "6-5", "6-3", "6-1", "1-0"], ["6-4", "6-2", "6-0", "4-3"]], spinner_arms=6)
    assert events[-1]["arms"] == ["e1", "e2", "e3", "e4", "e5", "e6"]
    for tile, end in (("6-4", "e1"), ("6-5", "e2"), ("6-2", "e3"), ("6-3", "e4"), ("6-0", "e5")):
        assert types(play(match, tile, end)) == ["tile_played"]
    assert match.phase == "spinner" and playable(match) == ["e6"]
    refused(match, "spinner_not_filled", p("1-0", "e11"))  # e11 shows the 0 of 6-0
    assert types(play(match, "6-1", "e6")) == ["tile_played", "spinner_completed"]
    assert match.phase == "free"
    play(match, "4-3", "e7")


def test_four_arms_by_default() -> None:
    _match, events = new_match([["6-6", "1-0"], ["2-0"]])
    assert events[-1]["arms"] == ["e1", "e2", "e3", "e4"]


def test_a_double_opens_a_chicken_foot_of_three_toes() -> None:
    """ "**Chicken foot:** whenever a double is played on an open end, it is laid
    crosswise and opens a chicken foot: the next **3 tiles** played (by whoever's turn
    it is) must be **toes** on that double, matching its number. No tile may be played
    anywhere else until all three toes are in place. Then play is free again: any open
    end, the three new toe ends included.\""""
    match = free_match(["5-3", "5-2", "4-1", "0-0"], ["5-5", "5-4", "3-1", "1-1"])
    events = play(match, "5-5", "e5")
    assert types(events) == ["tile_played", "foot_opened"]
    assert events[0]["new_ends"] == ["e9", "e10", "e11"]
    assert events[1] == {"type": "foot_opened", "seat": 1, "double": "5-5", "toes": ["e9", "e10", "e11"], "round": 1}
    assert match.phase == "foot" and playable(match) == ["e9", "e10", "e11"]
    assert {ends(match)[e] for e in ("e9", "e10", "e11")} == {5}
    # Seat 0 holds 4-1, which fits e6, but toes come first - and toes are X-y, never a double.
    refused(match, "foot_not_filled", p("4-1", "e6"))
    assert {m["tile"] for m in legal(match)} == {"5-3", "5-2"}
    play(match, "5-3", "e9")  # toe 1, by seat 0; its end e12 shows 3
    refused(match, "foot_not_filled", p("3-1", "e12"))  # a toe's own end waits too
    play(match, "5-4", "e10")  # toe 2, by seat 1
    events = play(match, "5-2", "e11")  # toe 3, by seat 0
    assert types(events) == ["tile_played", "foot_completed"]
    assert events[1]["seat"] == 0
    assert match.phase == "free"
    assert set(playable(match)) == {"e6", "e7", "e8", "e12", "e13", "e14"}
    play(match, "3-1", "e12")  # free again, on a toe end


def test_playing_a_double_gives_no_extra_turn() -> None:
    """ "Playing a double gives no extra turn.\""""
    match = free_match(["5-3", "1-0"], ["5-5", "5-4"])
    play(match, "5-5", "e5")
    assert match.turn == 0
    refused(match, "not_your_turn", p("5-4", "e9"), seat=1)


def test_a_double_on_a_toe_end_opens_a_new_foot() -> None:
    """ "whenever a double is played on an open end ... it opens a chicken foot" - the
    end of a toe included; "At most one foot can be open at a time" (the first one is
    complete by then)."""
    match = free_match(["5-3", "5-2", "1-0"], ["5-5", "5-4", "3-3", "3-2", "3-1"])
    play(match, "5-5", "e5")
    play(match, "5-3", "e9")  # toe end e12 shows 3
    play(match, "5-4", "e10")
    play(match, "5-2", "e11")
    assert match.phase == "free" and ends(match)["e12"] == 3
    events = play(match, "3-3", "e12")  # seat 1 on the toe's end
    assert types(events) == ["tile_played", "foot_opened"]
    assert events[1]["toes"] == ["e15", "e16", "e17"] and match.phase == "foot"
    assert playable(match) == ["e15", "e16", "e17"]
    tree = match.layout.tree()
    assert tree is not None
    # spinner -> arm 6-5 -> 5-5 foot -> toe 5-3 -> 3-3 foot
    arm = tree["next"][0]
    foot = arm["next"][0]
    toe = foot["next"][0]
    assert (arm["tile"], foot["tile"], foot["kind"], toe["tile"]) == ("6-5", "5-5", "double", "5-3")
    assert toe["next"][0]["tile"] == "3-3" and toe["next"][0]["kind"] == "double"
    assert [slot["end"] for slot in toe["next"][0]["next"]] == ["e15", "e16", "e17"]


def test_only_one_foot_is_open_at_a_time() -> None:
    """ "At most one foot can be open at a time (a toe of an X-X foot is an X-y tile,
    never a double), so "the open foot" is always unambiguous.\""""
    match = free_match(["5-3", "3-3", "1-0"], ["5-5", "5-4"])
    play(match, "5-5", "e5")
    # Seat 0 holds a double that fits e7 (needs 3): refused while the foot is open.
    refused(match, "foot_not_filled", p("3-3", "e7"))
    assert all(m["tile"].split("-")[0] != m["tile"].split("-")[1] for m in legal(match))


def test_a_foot_that_can_no_longer_be_finished_stays_open_and_the_round_ends_blocked() -> None:
    """ "A foot that can no longer be finished simply stays open; the round then ends
    blocked." (Only 5-1 and 5-0 are left for the 5-5 foot's three toes.)"""
    match = free_match(
        ["3-5", "5-5", "5-0", "1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1"],
        ["5-4", "2-5", "5-1", "3-2", "3-3", "4-0", "4-1", "4-2", "4-3", "6-0"],
        draws=["6-1", "4-4", "0-0"],
    )
    play(match, "5-4", "e5")  # seat 1; e9 needs 4
    play(match, "3-5", "e7")  # seat 0; e10 needs 5
    play(match, "2-5", "e8")  # seat 1; e11 needs 5
    events = play(match, "5-5", "e10")  # seat 0 opens the foot
    assert events[1]["toes"] == ["e12", "e13", "e14"]
    play(match, "5-1", "e12")
    play(match, "5-0", "e13")
    assert match.phase == "foot" and playable(match) == ["e14"]
    # No 5 is left anywhere: everyone draws, then the round is blocked.
    refused(match, "must_draw", PASS)
    assert types(draw(match)) == ["drew", "passed"]  # seat 1: 6-1
    assert types(draw(match)) == ["drew", "passed"]  # seat 0: 4-4 (fits e9, but the foot waits)
    events = draw(match)  # seat 1: 0-0, the last tile
    assert types(events) == ["drew", "passed", "round_ended", "match_ended"]
    ended = events[2]
    assert ended["reason"] == "blocked" and ended["went_out"] is None
    assert match.layout.pending_kind == "foot"  # still open


def test_a_player_who_can_play_must_play() -> None:
    """ "**A player who can play must play.** Drawing is allowed only without a legal play.\""""
    match = free_match(["1-0"], ["5-1", "0-0"], draws=["4-0"])
    refused(match, "must_play", DRAW)
    refused(match, "must_play", PASS)
    assert legal(match) == [p("5-1", "e5")]


def test_no_legal_play_draw_one_and_play_it() -> None:
    """ "**No legal play:** the player draws **one** tile from the boneyard. If it can be
    played, the player may play it at once (that tile only)\""""
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["5-0", "4-0"])
    assert legal(match) == [DRAW]
    events = draw(match)
    assert events == [{"type": "drew", "seat": 1, "boneyard_size": 19, "round": 1}]  # never which tile
    assert match.turn == 1 and hand(match, 1) == ["1-1", "0-0", "5-0"]
    assert legal(match) == [p("5-0", "e5"), PASS]
    refused(match, "already_drew", DRAW)
    refused(match, "must_play_drawn_tile", p("1-1", "e5"))
    refused(match, "must_play_drawn_tile", p("0-0", "e5"))
    refused(match, "pips_do_not_match", p("5-0", "e6"))
    refused(match, "not_your_turn", PASS, seat=0)
    events = play(match, "0-5", "e5")
    assert events[0]["tile"] == "5-0" and match.turn == 0
    assert match.drawn is None


def test_no_legal_play_draw_one_and_pass() -> None:
    """ "If it can be played, the player may play it at once (that tile only) or pass\""""
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["5-0", "4-0"])
    draw(match)
    events = pass_(match)
    assert events == [{"type": "passed", "seat": 1, "reason": "declined_drawn_tile", "round": 1}]
    assert match.turn == 0 and hand(match, 1) == ["1-1", "0-0", "5-0"]
    assert match.move_count == 6  # 4 arms, draw, pass: drawing and passing are moves


def test_drawn_tile_that_cannot_be_played_ends_the_turn_at_once() -> None:
    """ "if it cannot, the turn passes" - "the one thing that happens by itself is that a
    drawn tile which cannot be played ends the turn at once.\""""
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["6-1", "4-0"])
    events = draw(match)
    assert events == [
        {"type": "drew", "seat": 1, "boneyard_size": 19, "round": 1},
        {"type": "passed", "seat": 1, "reason": "drawn_tile_unplayable", "round": 1},
    ]
    assert match.turn == 0 and hand(match, 1) == ["1-1", "0-0", "6-1"]
    assert match.move_count == 5  # the draw was the move; the pass came with it


def test_empty_boneyard_a_player_without_a_play_passes() -> None:
    """ "With an empty boneyard a player without a legal play passes.\""""
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
    assert match.boneyard == []
    assert legal(match) == [PASS]
    refused(match, "boneyard_empty", DRAW)
    events = pass_(match)
    assert events == [{"type": "passed", "seat": 1, "reason": "no_play", "round": 1}]
    assert match.turn == 0


def test_no_pass_while_the_boneyard_has_tiles() -> None:
    """ "Drawing is allowed only without a legal play" and passing only after drawing
    (or with an empty boneyard): a player without a play must draw first."""
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["6-1"])
    refused(match, "must_draw", PASS)


def test_drawing_and_passing_are_moves_the_player_makes() -> None:
    """ "Drawing and passing are moves the player makes, like playing a tile\" - they
    are refused out of turn and counted and logged like plays."""
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["5-0"])
    refused(match, "not_your_turn", DRAW, seat=0)
    count = match.move_count
    draw(match)
    pass_(match)
    assert match.move_count == count + 2
    assert [e["type"] for e in match.log[-2:]] == ["drew", "passed"]
