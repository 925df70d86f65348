"""docs/rules.md, sections "Equipment and players" and "Setup of a round" (and the
ruleset that fixes them): one test per rule, named after it."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    MAX_PLAYERS,
    SET_SIZES,
    Match,
    Ruleset,
    RulesetError,
    default_hand_size,
    full_set,
    tile_text,
)

# The docs/rules.md table, column by column: 2, 3, 4, 5-6, 7, 8 or more players.
HAND_TABLE = {
    6: {2: 7, 3: 6, 4: 5, 5: 4, 6: 4},
    9: {2: 11, 3: 9, 4: 7, 5: 7, 6: 7, 7: 7, 8: 6},
    12: {2: 15, 3: 13, 4: 12, 5: 11, 6: 11, 7: 10, 8: 9, 9: 9, 10: 9},
    15: {2: 18, 3: 16, 4: 15, 5: 13, 6: 13, 7: 12, 8: 11, 9: 11, 10: 11, 11: 11, 12: 11},
    18: {2: 21, 3: 19, 4: 17, 5: 15, 6: 15, 7: 14, 8: 13, 9: 13, 10: 13, 11: 13, 12: 13, 13: 13, 14: 13},
}


def refused(**settings) -> RulesetError:
    with pytest.raises(RulesetError) as info:
        Ruleset(**settings)
    assert info.value.code == "invalid_ruleset"
    return info.value


# -- Equipment and players ----------------------------------------------------------


@pytest.mark.parametrize("set_max", SET_SIZES)
def test_one_double_n_set_every_pair_once(set_max: int) -> None:
    """ "One double-N domino set: every pair (a, b) with 0 <= a <= b <= N appears once.\""""
    tiles = full_set(set_max)
    assert len(tiles) == len(set(tiles)) == (set_max + 1) * (set_max + 2) // 2
    assert set(tiles) == {(b, a) for a in range(set_max + 1) for b in range(a, set_max + 1)}
    # And a dealt match holds exactly that set.
    match, _ = Match.new(Ruleset(set_max=set_max, players=2), seed=7)
    dealt = [t for h in match.hands for t in h] + match.boneyard + match.layout.tiles()
    assert sorted(dealt) == sorted(tiles)


def test_supported_sets_default_double_nine() -> None:
    """ "Supported sets: `set_max` in {6, 9, 12, 15, 18}; default **double-9** (55 tiles).\""""
    assert SET_SIZES == (6, 9, 12, 15, 18)
    assert Ruleset().set_max == 9 and Ruleset().tile_count == 55
    for set_max in SET_SIZES:
        assert Ruleset(set_max=set_max, players=2).set_max == set_max
    for bad in (0, 3, 5, 7, 8, 10, 19, 21, -9, "9", 9.0, None, True):
        refused(set_max=bad)


@pytest.mark.parametrize("set_max,most", [(6, 6), (9, 8), (12, 10), (15, 12), (18, 14)])
def test_most_players_a_set_allows(set_max: int, most: int) -> None:
    """ "2 or more players ... The most players a set allows: double-6: 6, double-9: 8,
    double-12: 10, double-15: 12, double-18: 14.\""""
    assert MAX_PLAYERS[set_max] == most
    for players in range(2, most + 1):
        assert Ruleset(set_max=set_max, players=players).players == players
    refused(set_max=set_max, players=most + 1)
    refused(set_max=set_max, players=1)
    refused(set_max=set_max, players=0)


def test_nine_players_on_double_nine_refused() -> None:
    """The awkward case named in the brief: one player too many for a double-9 set."""
    error = refused(set_max=9, players=9)
    assert "2 to 8" in error.message


def test_hand_size_override_must_fit_the_set() -> None:
    """ "A `hand_size` override must keep players x hand size <= number of tiles.\""""
    assert Ruleset(set_max=6, players=4, hand_size=7).effective_hand_size == 7  # 28 of 28
    refused(set_max=6, players=4, hand_size=8)  # 32 > 28: cannot be dealt
    refused(set_max=9, players=8, hand_size=7)  # 56 > 55
    for bad in (0, -1, True, False, 2.5, "7"):
        refused(set_max=9, players=4, hand_size=bad)


# -- The ruleset's other settings --------------------------------------------------------


def test_spinner_arms_four_or_six() -> None:
    """ "the spinner takes `spinner_arms` tiles (default **4**; 6 is a common variant)\""""
    assert Ruleset().spinner_arms == 4
    assert Ruleset(spinner_arms=6).spinner_arms == 6
    for bad in (0, 1, 3, 5, 8, -4, True, "4", 4.0, None):
        refused(spinner_arms=bad)


def test_rounds_setting_must_be_a_prefix_of_the_doubles() -> None:
    """ "`rounds` may shorten a match (it then plays the first `rounds` of that sequence).\""""
    assert Ruleset().rounds is None and Ruleset().round_count == 10
    assert Ruleset(rounds=1).round_count == 1
    assert Ruleset(rounds=10).round_count == 10
    assert Ruleset(set_max=6, players=2, rounds=7).round_count == 7
    for bad in (0, -1, 11, True, False, "3", 2.0):
        refused(rounds=bad)
    refused(set_max=6, players=2, rounds=8)


def test_double_blank_points_setting() -> None:
    """ "The **double-blank counts 50** (`double_blank_points`, default 50; 25 and 0 are
    common house rules).\""""
    assert Ruleset().double_blank_points == 50
    for points in (0, 25, 50, 100):
        assert Ruleset(double_blank_points=points).double_blank_points == points
    for bad in (-1, 101, True, False, 25.0, "50", None):
        refused(double_blank_points=bad)


def test_ruleset_from_json_refuses_unknown_keys_and_keeps_defaults() -> None:
    """A ruleset is "part of the game's public state": it comes in as JSON, so unknown
    settings are refused rather than silently ignored."""
    assert Ruleset.from_dict({}) == Ruleset()
    assert Ruleset.from_dict(None) == Ruleset()
    assert Ruleset.from_dict({"set_max": 6, "players": 3}) == Ruleset(set_max=6, players=3)
    for data in ({"arms": 6}, {"set_max": 9, "colour": "red"}, {"hand_size": None, "seed": 3}):
        with pytest.raises(RulesetError) as info:
            Ruleset.from_dict(data)
        assert info.value.code == "invalid_ruleset"
    for invalid in ({"set_max": 7}, {"players": 9}, {"spinner_arms": 5}, {"rounds": 0}, {"players": True}):
        with pytest.raises(RulesetError) as info:
            Ruleset.from_dict(invalid)
        assert info.value.code == "invalid_ruleset"


@pytest.mark.parametrize("data", ["double-9", ["set_max", 9], 9, [("set_max", 9)]])
def test_ruleset_from_json_refuses_a_non_object(data: object) -> None:
    """A ruleset that is not a JSON object is an invalid ruleset (a coded
    ``RulesetError``), not a bare ``ValueError``/``TypeError`` that would escape the API's
    error mapping."""
    with pytest.raises(RulesetError) as info:
        Ruleset.from_dict(data)  # type: ignore[arg-type]
    assert info.value.code == "invalid_ruleset"


def test_ruleset_round_trips_through_json() -> None:
    ruleset = Ruleset(set_max=12, players=5, hand_size=10, spinner_arms=6, rounds=3, double_blank_points=25)
    assert Ruleset.from_dict(ruleset.to_dict()) == ruleset


# -- Setup of a round ----------------------------------------------------------------


CELLS = [(s, p, n) for s, row in HAND_TABLE.items() for p, n in row.items()]


@pytest.mark.parametrize("set_max,players,size", CELLS, ids=[f"double-{s}-{p}p" for s, p, _ in CELLS])
def test_default_hand_size_table(set_max: int, players: int, size: int) -> None:
    """ "Hand size, default table (`hand_size` overrides it)" - every cell - "and leave a
    boneyard in every case"; a dealt round gives every seat that many tiles."""
    assert default_hand_size(set_max, players) == size
    ruleset = Ruleset(set_max=set_max, players=players)
    assert ruleset.effective_hand_size == size
    assert players * size < ruleset.tile_count
    _, events = Match.new(ruleset, seed=3)
    started = events[0]
    assert started["type"] == "round_started"
    assert started["hand_sizes"] == [size] * players
    assert started["boneyard_size"] == ruleset.tile_count - players * size


def test_default_hand_size_table_gaps_are_out_of_reach() -> None:
    """The table has no double-6 entry for 7 or more players: such rulesets are refused."""
    assert default_hand_size(6, 7) is None and default_hand_size(6, 8) is None
    refused(set_max=6, players=7)


def test_hand_size_override_is_dealt() -> None:
    """ "(`hand_size` overrides it)\""""
    _, events = Match.new(Ruleset(set_max=9, players=3, hand_size=4), seed=5)
    assert events[0]["hand_sizes"] == [4, 4, 4]
    assert events[0]["boneyard_size"] == 55 - 12


def test_each_player_takes_a_hand_the_rest_is_the_boneyard() -> None:
    """ "The tiles are shuffled face down; each player takes a hand. The rest is the
    **boneyard**.\""""
    match, events = Match.new(Ruleset(set_max=9, players=4), seed=11)
    dealt = [t for h in match.hands for t in h] + match.layout.tiles()
    assert len(match.boneyard) == 55 - len(dealt)
    assert not set(match.boneyard) & set(dealt)
    # Nothing was drawn for the spinner here, so the holder is one tile short.
    drew = [e for e in events if e["type"] == "drew"]
    holder = next(e["seat"] for e in events if e["type"] == "spinner_placed")
    sizes = [len(h) for h in match.hands]
    if not drew:
        assert sizes == [7 - (s == holder) for s in range(4)]


def test_shuffles_come_from_the_seed() -> None:
    """ "Shuffles come from a seeded random generator; the seed is stored with the game
    so that a game can be replayed exactly.\""""
    ruleset = Ruleset(set_max=9, players=4)
    first, _ = Match.new(ruleset, seed=123)
    again, _ = Match.new(ruleset, seed=123)
    assert first.to_dict() == again.to_dict()
    assert first.to_dict()["seed"] == 123
    deals = {tuple(tile_text(t) for h in Match.new(ruleset, seed=s)[0].hands for t in h) for s in range(20)}
    assert len(deals) == 20  # different seeds, different shuffles
    with pytest.raises(RulesetError) as info:
        Match.new(ruleset, seed=-1)
    assert info.value.code == "invalid_setup"


def test_set_up_positions_are_validated() -> None:
    """A given position must fit the ruleset (the engine's own contract for set-ups)."""
    bad_positions: list[Any] = [
        {"hands": [["6-6"]]},  # one hand for two players
        {"hands": [["6-6"], []]},  # empty hand
        {"hands": [["6-6"], ["6-6"]]},  # a tile twice
        {"hands": [["6-6"], ["7-1"]]},  # not in a double-6 set
        {"hands": [["6-6"], ["1-0"]], "boneyard": ["2-0"]},  # boneyard does not complete the set
        {"hands": [["6-6"], ["x"]]},
        {"hands": "6-6"},
        {"hands": [["6-6"], ["1-0"]], "dealer": 0},
    ]
    for position in bad_positions:
        with pytest.raises(RulesetError) as info:
            new_match_from(position)
        assert info.value.code == "invalid_setup", position


def new_match_from(position: dict) -> Match:
    return Match.new(Ruleset(set_max=6, players=2), seed=1, setup=position)[0]


def test_set_up_without_boneyard_shuffles_the_rest_from_the_seed() -> None:
    """A set-up may give only the hands: the rest is shuffled from the seed."""
    a = Match.new(Ruleset(set_max=6, players=2, rounds=1), 1, setup={"hands": [["6-6", "1-0"], ["2-1"]]})[0]
    b = Match.new(Ruleset(set_max=6, players=2, rounds=1), 2, setup={"hands": [["6-6", "1-0"], ["2-1"]]})[0]
    assert sorted(a.boneyard) == sorted(b.boneyard) and len(a.boneyard) == 25
    assert a.boneyard != b.boneyard
