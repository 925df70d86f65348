"""Positions sampled for a seat (``bots.knowledge``) are consistent with
everything public and are built from the seat's view alone.

The strongest check replays the round: ``Knowledge.world`` gives the whole deal and
draw order behind a sample; the round's public moves, made on a ``Match`` dealt
that way, must produce exactly the round's public history (every play, draw and
pass, for the same reasons: a drawn tile unplayable or declined, a pass with
nothing to play). A sample that put a tile in a hand that passed on its pip, or
left a seat without the tiles it later played, fails there.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings

from bots import knowledge as knowledge_module
from bots.knowledge import Knowledge, NoConsistentDeal, World
from bots.search import SearchSettings, search_move
from bots.sim import tile_index
from bots.strategies import choose_greedy
from games.engine import PLAYING, Match, Ruleset, full_set, parse_tile, seat_view
from tests.engine.helpers import free_match
from tests.engine.test_properties import PROPERTY_SETTINGS, choosers, rulesets, seeds


def replay_round(view: dict[str, Any], world: World) -> Match:
    """The round of ``view`` dealt as ``world`` says, its public moves made again."""
    ruleset = Ruleset.from_dict(view["ruleset"])
    match = Match(ruleset, 0)
    if view["rounds"]:
        match.starter = view["rounds"][-1]["starter"]  # who draws first for the spinner

    def deal(index: int) -> None:
        match.hands = [list(h) for h in world.hands]
        match.boneyard = list(world.boneyard)

    match._deal = deal  # type: ignore[method-assign]
    match._start_round(view["round"]["number"] - 1, [])
    for event in view["history"]:
        kind = event["type"]
        if kind == "tile_played":
            match.apply(event["seat"], {"type": "play", "tile": event["tile"], "end": event["end"]})
        elif kind == "drew" and not event.get("for_starting_double"):
            match.apply(event["seat"], {"type": "draw"})
        elif kind == "passed" and event["reason"] != "drawn_tile_unplayable":
            match.apply(event["seat"], {"type": "pass"})
    return match


def check_sample(view: dict[str, Any], knowledge: Knowledge, rng: random.Random) -> None:
    """A sample has the seat's hand, every size, every tile once - and is a
    possible position: a whole deal leads to it, the same public history replayed."""
    seat = view["seat"]
    sim = knowledge.sample(rng)
    replayed = replay_round(view, knowledge.world(rng, sim))
    assert replayed.log == view["history"]
    assert [sorted(tile_index(t) for t in h) for h in replayed.hands] == [sorted(h) for h in sim.hands]
    assert sorted(tile_index(t) for t in replayed.boneyard) == sorted(sim.boneyard)
    assert sorted(sim.hands[seat]) == sorted(tile_index(parse_tile(t)) for t in view["hand"])
    assert [len(h) for h in sim.hands] == view["hand_sizes"]
    assert len(sim.boneyard) == view["boneyard_size"]
    laid = [
        tile_index(parse_tile(e["tile"])) for e in view["history"] if e["type"] in ("tile_played", "spinner_placed")
    ]
    everything = Counter(range(len(full_set(view["ruleset"]["set_max"]))))
    assert Counter([t for h in sim.hands for t in h] + sim.boneyard + laid) == everything
    assert sim.turn == view["turn"] and sim.playable_pips() == sorted(
        {e["pip"] for e in view["open_ends"] if e["playable"]}
    )


def check_world(view: dict[str, Any], knowledge: Knowledge, rng: random.Random) -> Match:
    world = knowledge.world(rng)
    replayed = replay_round(view, world)
    assert replayed.log == view["history"]
    again = seat_view(replayed, view["seat"])
    for key in ("hand_sizes", "boneyard_size", "open_ends", "layout", "drawn_tile", "turn"):
        assert again[key] == view[key], key
    # The same tiles; their order in the hand is the order they were dealt and drawn in.
    assert sorted(again["hand"]) == sorted(view["hand"])
    assert sorted(map(str, again["legal_moves"])) == sorted(map(str, view["legal_moves"]))
    return replayed


def positions(ruleset: Ruleset, seed: int, chooser: random.Random, share: float) -> list[tuple[Match, dict[str, Any]]]:
    """About ``share`` of the positions of a match played half randomly, half greedily
    (greedy play draws and passes in ways random play rarely does), as (match, view)."""
    match, _ = Match.new(ruleset, seed)
    greedy = chooser.random() < 0.5
    found = []
    while match.status == PLAYING:
        view = seat_view(match, match.turn)
        if chooser.random() < share:
            found.append((match.copy(), view))
        move = choose_greedy(view, chooser) if greedy else chooser.choice(view["legal_moves"])
        match.apply(match.turn, move)
    return found


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(rulesets(), seeds, choosers)
def test_samples_and_their_worlds_agree_with_everything_public(
    ruleset: Ruleset, seed: int, chooser: random.Random
) -> None:
    for _match, view in positions(ruleset, seed, chooser, 0.08):
        knowledge = Knowledge.from_view(view, random.Random(seed))
        for _ in range(2):
            check_sample(view, knowledge, chooser)
            check_world(view, knowledge, chooser)


@settings(PROPERTY_SETTINGS, max_examples=12)
@given(rulesets(), seeds, choosers)
def test_the_complete_search_deals_consistently_too(ruleset: Ruleset, seed: int, chooser: random.Random) -> None:
    """The exact matching behind every sample that quick random picks cannot settle."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(knowledge_module.Knowledge, "_try_deal", lambda *args: None)
        for _match, view in positions(ruleset, seed, chooser, 0.05):
            knowledge = Knowledge.from_view(view, random.Random(seed))
            check_sample(view, knowledge, chooser)
            check_world(view, knowledge, chooser)


def test_a_draw_proves_a_seat_holds_none_of_the_pips_it_could_play_on() -> None:
    """Seat 1 (ends need 5, 4, 3, 2) has to draw, and draws the unplayable 0-0: seat 0's
    samples give it only tiles without a 5, 4, 3 or 2 - which leaves 6-1, 1-1, 1-0, 0-0."""
    match = free_match(["6-0", "5-5"], ["1-0", "6-1"], draws=["0-0"], rounds=1)
    match.apply(1, {"type": "draw"})
    assert match.log[-1]["reason"] == "drawn_tile_unplayable" and match.turn == 0
    view = seat_view(match, 0)
    knowledge = Knowledge.from_view(view)
    rng = random.Random(3)
    allowed = {tile_index(t) for t in [(6, 1), (1, 1), (1, 0), (0, 0)]}
    seen: set[int] = set()
    for _ in range(60):
        hand = set(knowledge.sample(rng).hands[1])
        assert len(hand) == 3 and hand <= allowed
        seen |= hand
        check_world(view, knowledge, rng)
    assert seen == allowed


@settings(PROPERTY_SETTINGS, max_examples=8)
@given(rulesets(), seeds, choosers)
def test_a_strategy_cannot_tell_apart_two_worlds_with_one_view(
    ruleset: Ruleset, seed: int, chooser: random.Random
) -> None:
    """Another world behind the same view (hidden tiles elsewhere): the seat's view
    is the same, so the search's choice is too - it reads nothing hidden."""
    quick = SearchSettings(rollouts=12)
    modelled = SearchSettings(rollouts=12, slip=0.3, tries=2, depth=2)  # the opponent model and the tree
    for match, view in positions(ruleset, seed, chooser, 0.04):
        if len(view["legal_moves"]) < 2:
            continue
        other = check_world(view, Knowledge.from_view(view), chooser)
        other.totals, other.rounds, other.move_count = list(match.totals), list(match.rounds), match.move_count
        seat = view["seat"]
        other.hands[seat] = list(match.hands[seat])  # the same order too
        assert seat_view(other, seat) == view
        for settings_ in (quick, modelled):
            assert search_move(seat_view(other, view["seat"]), random.Random(7), settings_) == search_move(
                view, random.Random(7), settings_
            )


def test_a_view_no_deal_fits_is_refused() -> None:
    match, _ = Match.new(Ruleset(set_max=6, players=2), 5)
    view = seat_view(match, match.turn)
    view["hand_sizes"] = [n + 1 for n in view["hand_sizes"]]
    with pytest.raises(NoConsistentDeal):
        Knowledge.from_view(view)
