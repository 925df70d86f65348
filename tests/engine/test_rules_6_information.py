"""docs/rules.md, section "Information": what ``seat_view``, ``public_view`` and
``full_view`` show, checked by scanning their JSON text for every hidden tile."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from games.engine import PLAYING, Match, Ruleset, full_view, public_view, seat_view, tile_text

from .helpers import draw, free_match

SEED = 90817263  # distinctive, so its digits cannot turn up by chance


def quoted(tile: tuple[int, int]) -> str:
    """A tile as it appears in JSON text: ``"6-4"`` with the quotes, so that "1-1"
    is not found inside "11-1"."""
    return json.dumps(tile_text(tile))


def hidden_from(match: Match, seat: int | None) -> set[tuple[int, int]]:
    """The tiles ``seat`` may not see (every hand for a spectator): other hands and
    the boneyard."""
    hidden = set(match.boneyard)
    for other, hand in enumerate(match.hands):
        if other != seat:
            hidden |= set(hand)
    return hidden


def scanned_text(view: dict) -> str:
    """The view as JSON text, without ``rounds``: that holds finished rounds' revealed
    hands, which are public and may name tiles that are hidden in this round. (The
    current round's history and layout hold only played tiles and stay scanned.)"""
    return json.dumps({k: v for k, v in view.items() if k != "rounds"})


def positions(ruleset: Ruleset, seed: int = SEED, chooser_seed: int = 0) -> Iterator[Match]:
    """Every position of a whole random match, up to and including the end."""
    match, _ = Match.new(ruleset, seed)
    chooser = random.Random(chooser_seed)
    yield match
    while match.status == PLAYING:
        match.apply(match.turn, chooser.choice(match.legal_moves()))
        yield match


RULESETS = [
    Ruleset(set_max=9, players=4, rounds=3),
    Ruleset(set_max=6, players=3),
    Ruleset(set_max=12, players=5, rounds=2),
]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: f"double-{r.set_max}-{r.players}p")
def test_nobody_sees_another_hand_the_boneyard_or_the_seed_while_playing(ruleset: Ruleset) -> None:
    """ "Nobody sees another player's hand or the boneyard's order while the round is
    running.\" - "when the game ends, the seed.\""""
    checked = 0
    for match in positions(ruleset):
        if match.status != PLAYING:
            break
        for seat in range(ruleset.players):
            view = seat_view(match, seat)
            text = scanned_text(view)
            leaked = [tile_text(t) for t in hidden_from(match, seat) if quoted(t) in text]
            assert not leaked, f"seat {seat} sees {leaked}"
            assert "boneyard" not in view and "hands" not in view
            assert str(SEED) not in json.dumps(view) and '"seed"' not in json.dumps(view)
            if seat != match.turn:
                assert view["drawn_tile"] is None and view["legal_moves"] == []
            checked += 1
        spectator = public_view(match)
        text = scanned_text(spectator)
        assert not [t for t in hidden_from(match, None) if quoted(t) in text]
        assert str(SEED) not in json.dumps(spectator)
    assert checked > 100


def test_a_seat_sees_its_hand_the_layout_all_sizes_scores_and_history() -> None:
    """ "A player sees their own hand, the layout, every player's hand *size*, the
    boneyard's *size*, all scores, and the whole public move history\""""
    for match in positions(Ruleset(set_max=9, players=4, rounds=2), chooser_seed=3):
        if match.status != PLAYING:
            break
        for seat in range(4):
            view = seat_view(match, seat)
            assert view["seat"] == seat
            assert view["hand"] == [tile_text(t) for t in match.hands[seat]]
            assert view["hand_sizes"] == [len(h) for h in match.hands]
            assert view["boneyard_size"] == len(match.boneyard)
            assert view["totals"] == match.totals and view["rounds"] == match.rounds
            assert view["history"] == match.log
            assert view["open_ends"] == match.layout.open_ends()
            assert view["layout"] == match.layout.tree()
            assert view["turn"] == match.turn


def test_history_never_says_which_tile_was_drawn() -> None:
    """ "(who played what where, who drew, who passed; never *which* tile was drawn)\""""
    for match in positions(Ruleset(set_max=6, players=2)):
        for event in match.log:
            if event["type"] == "drew":
                assert set(event) <= {"type", "seat", "boneyard_size", "round", "for_starting_double"}


def test_the_drawn_tile_is_shown_to_the_drawer_only() -> None:
    match = free_match(["1-0"], ["1-1", "0-0"], draws=["5-0"])
    draw(match)
    mine = seat_view(match, 1)
    assert mine["drawn_tile"] == "5-0" and "5-0" in mine["hand"]
    assert {"type": "play", "tile": "5-0", "end": "e5"} in mine["legal_moves"]
    theirs = seat_view(match, 0)
    assert theirs["drawn_tile"] is None and '"5-0"' not in scanned_text(theirs)
    assert '"5-0"' not in scanned_text(public_view(match))
    assert full_view(match)["drawn_tile"] == "5-0"


def test_public_view_has_no_hand() -> None:
    """A spectator sees what every player sees, minus any hand."""
    match, _ = Match.new(Ruleset(), SEED)
    view = public_view(match)
    assert not {"hand", "hands", "boneyard", "seed", "drawn_tile", "legal_moves"} & set(view)
    assert view["hand_sizes"] == [len(h) for h in match.hands]


def test_full_view_has_everything() -> None:
    """``full_view`` (replays, moderators) holds the hidden parts: every hand, the
    boneyard in order, the drawn tile, the seed."""
    match, _ = Match.new(Ruleset(set_max=6, players=3), SEED)
    view = full_view(match)
    assert view["hands"] == [[tile_text(t) for t in h] for h in match.hands]
    assert view["boneyard"] == [tile_text(t) for t in match.boneyard]
    assert view["seed"] == SEED
    assert view["legal_moves"] == [m.to_dict() for m in match.legal_moves()]
    text = json.dumps(view)
    assert all(quoted(t) in text for t in hidden_from(match, None))


@pytest.mark.parametrize("chooser_seed", range(6))
def test_round_end_reveals_every_hand(chooser_seed: int) -> None:
    """ "When a round ends, all hands are revealed": the round_ended event (and the
    round's summary everyone sees) holds every hand as it was at the end."""
    match, _ = Match.new(Ruleset(set_max=6, players=3, rounds=2), SEED + chooser_seed)
    chooser = random.Random(chooser_seed)
    while match.round_number == 1:
        hands = [[tile_text(t) for t in h] for h in match.hands]
        next_draw = tile_text(match.boneyard[0]) if match.boneyard else None
        seat, move = match.turn, chooser.choice(match.legal_moves())
        events = match.apply(seat, move)
    if move.type == "play":
        assert move.tile is not None
        hands[seat].remove(tile_text(move.tile))
    elif move.type == "draw":
        assert next_draw is not None
        hands[seat].append(next_draw)
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["hands"] == hands
    assert seat_view(match, 0)["rounds"][0]["hands"] == hands
    assert public_view(match)["rounds"][0]["hands"] == hands


def test_match_end_reveals_the_seed() -> None:
    """ "when the game ends, the seed.\""""
    *_, match = positions(Ruleset(set_max=6, players=2, rounds=2))
    assert match.status != PLAYING
    assert match.log[-1]["type"] == "match_ended" and match.log[-1]["seed"] == SEED
    for view in (seat_view(match, 0), seat_view(match, 1), public_view(match)):
        assert view["result"]["seed"] == SEED and view["turn"] is None
