"""The opponent model and the information-set search (``bots.knowledge.Knowledge.likelihood``,
``bots.search``: ``SearchSettings.slip``, ``tries``, ``depth``), and that ``hard`` still
plays exactly as the search did before them (a golden record of its moves)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bots.knowledge import Knowledge
from bots.search import CHECK_EVERY, SearchSettings, _settled, candidates, search_move
from bots.sim import DRAW, PASS, Sim, move_tile
from bots.strategies import INFORMATION_SET, LEVELS, STRATEGIES, choose_greedy
from games.engine import PLAYING, Match, Ruleset, seat_view
from tests.bots.test_search import views

GOLDEN = Path(__file__).with_name("golden_hard_moves.json")


def test_hard_plays_exactly_as_the_search_before_the_opponent_model() -> None:
    """``hard`` is the one-level search as it was (200 play-outs, no opponent model,
    no tree): the same moves on fixed seeds as the old ``strong`` (recorded from it,
    commit 1516c9c), so the arena compares the new ``strong`` with it."""
    assert LEVELS["hard"] == SearchSettings(rollouts=200)
    moves = []
    for seed in (11, 12, 13):
        for i, view in enumerate(views(Ruleset(set_max=9, players=4, rounds=3), seed, every=3)[:12]):
            moves.append(STRATEGIES["hard"].choose(view, random.Random(seed * 100 + i)))
    assert moves == json.loads(GOLDEN.read_text())


def test_strong_is_the_search_with_the_tree_and_plays_differently() -> None:
    """``strong`` is ``hard``'s search with the tree over its own next decision, 400
    play-outs, the early stop and the measured spread of a round (docs/bots.md: what the
    arena measured of it); it changes some moves."""
    assert LEVELS["strong"] == SearchSettings(rollouts=400, depth=2, settle=2.0, spread_scale=16 / 22)
    found = views(Ruleset(set_max=9, players=4, rounds=3), 12, every=3)[:12]
    strong = [STRATEGIES["strong"].choose(v, random.Random(i)) for i, v in enumerate(found)]
    assert all(move in v["legal_moves"] for move, v in zip(strong, found, strict=True))
    assert strong == [STRATEGIES["strong"].choose(v, random.Random(i)) for i, v in enumerate(found)]
    assert strong != [STRATEGIES["hard"].choose(v, random.Random(i)) for i, v in enumerate(found)]


def test_the_information_set_search_plays_differently_from_hard() -> None:
    assert LEVELS["hard"] != INFORMATION_SET
    found = views(Ruleset(set_max=9, players=4, rounds=3), 11, every=3)[:12]
    differ = [
        search_move(v, random.Random(i), INFORMATION_SET) != STRATEGIES["hard"].choose(v, random.Random(i))
        for i, v in enumerate(found)
    ]
    assert any(differ)


def _points(tile: tuple[int, int], blank: int) -> int:
    return blank if tile == (0, 0) else tile[0] + tile[1]


def played_match(ruleset: Ruleset, seed: int, greedy_share: float) -> list[tuple[Match, dict[str, Any], int]]:
    """Positions of a match whose seats play ``greedy`` or (now and then) a random
    legal move: (match, view of the seat to move, how many of the others' plays so
    far in the round were not ``greedy``'s with a surely heavier tile still held now
    and not drawn since), counted here from the real hands, independently of
    ``Knowledge``."""
    rng = random.Random(seed)
    match, _ = Match.new(ruleset, seed)
    blank = ruleset.double_blank_points
    # Per round: (seat, hand before, playable pips, tile played) of plays not made at once after a draw.
    plays: list[tuple[int, list[tuple[int, int]], set[int], tuple[int, int]]] = []
    draws: list[tuple[int, int]] = []  # (seat, index into plays at the draw)
    found = []
    round_index = match.round_index
    while match.status == PLAYING:
        if match.round_index != round_index:
            plays, draws, round_index = [], [], match.round_index
        seat = match.turn
        view = seat_view(match, seat)
        held_now = {s: set(match.hands[s]) for s in range(ruleset.players)}
        slips = 0
        for i, (s, hand, pips, tile) in enumerate(plays):
            if s == seat or any(d_seat == s and at > i for d_seat, at in draws):
                continue
            weight = _points(tile, blank) + (9 if tile[0] == tile[1] else 0)
            heavier = [
                t for t in hand if t in held_now[s] and (t[0] in pips or t[1] in pips) and _points(t, blank) > weight
            ]
            slips += bool(heavier)
        found.append((match.copy(), view, slips))
        layout = match.layout
        pips = {layout.ends[e] for e in layout.playable_ends()}
        move = choose_greedy(view, rng) if rng.random() < greedy_share else rng.choice(view["legal_moves"])
        if move["type"] == "play" and match.drawn is None:
            high, low = (int(p) for p in move["tile"].split("-"))
            plays.append((seat, list(match.hands[seat]), pips, (high, low)))
        elif move["type"] == "draw":
            draws.append((seat, len(plays)))
        match.apply(seat, move)
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_likelihood_of_the_true_deal_counts_the_plays_that_were_not_greedy(seed: int) -> None:
    ruleset = Ruleset(set_max=9, players=4, rounds=2)
    checked = slipped = 0
    for match, view, slips in played_match(ruleset, seed, greedy_share=0.7)[::3]:
        knowledge = Knowledge.from_view(view)
        truth = Sim.from_match(match)
        assert knowledge.likelihood(truth, 0.5) == 0.5**slips
        assert knowledge.likelihood(truth, 1.0) == 1.0
        checked += 1
        slipped += slips > 0
    assert checked > 30 and slipped > 5  # the random plays left their marks


def test_against_greedy_players_the_true_deal_is_never_less_likely() -> None:
    ruleset = Ruleset(set_max=9, players=4, rounds=2)
    for match, view, slips in played_match(ruleset, 4, greedy_share=1.0)[::2]:
        assert slips == 0
        assert Knowledge.from_view(view).likelihood(Sim.from_match(match), 0.0) == 1.0


def test_deals_that_contradict_greedy_play_weigh_less() -> None:
    """A seat that shed a light tile probably held no heavier playable one: among
    the sampled deals, those that give it one weigh ``slip`` per such play, and a
    deal's weight is read from its hands alone."""
    ruleset = Ruleset(set_max=9, players=4, rounds=1)
    for _match, view, _ in played_match(ruleset, 5, greedy_share=1.0)[20::4]:
        knowledge = Knowledge.from_view(view)
        evidence = knowledge.greedy_evidence()
        rng = random.Random(1)
        for _ in range(20):
            sim = knowledge.sample(rng)
            expected = 0.25 ** sum(1 for seat, beaten in evidence if any(beaten >> t & 1 for t in sim.hands[seat]))
            assert knowledge.likelihood(sim, 0.25) == expected
        for seat, beaten in evidence:
            assert seat != view["seat"] and beaten & knowledge.pool_mask == beaten


def test_policy_move_is_the_play_outs_next_move_and_advance_stops_at_a_choice() -> None:
    for view in views(Ruleset(set_max=9, players=4, rounds=2), 31, every=2)[:30]:
        knowledge = Knowledge.from_view(view)
        rng = random.Random(3)
        sim = knowledge.sample(rng)
        record: list[int] = []
        sim.copy().rollout(random.Random(9), record=record)
        assert sim.policy_move(random.Random(9)) == record[0]
        me = view["seat"]
        moved = sim.copy()
        moved.apply(candidates(view)[0][0])
        moves = moved.advance(me, random.Random(4))
        if moves:
            assert moved.turn == me and moves == moved.legal_moves() and len(moves) > 1
        else:
            assert moved.ended


def test_a_draw_or_pass_is_the_policy_when_nothing_fits() -> None:
    view = views(Ruleset(set_max=9, players=4, rounds=1), 8, every=1)[0]
    sim = Knowledge.from_view(view).sample(random.Random(1))
    seat = sim.turn
    fitting = [t for t in sim.hands[seat] if sim.can_play(t)]
    sim.hands[seat] = [t for t in sim.hands[seat] if t not in fitting] or [sim.hands[seat][0]]
    if not any(sim.can_play(t) for t in sim.hands[seat]):
        assert sim.policy_move(random.Random(1)) == (DRAW if sim.stock else PASS)
    else:  # pragma: no cover - the one tile left fits: the policy plays it
        assert move_tile(sim.policy_move(random.Random(1))) in sim.hands[seat]


@pytest.mark.parametrize(
    "settings",
    [
        SearchSettings(rollouts=40, depth=2),
        SearchSettings(rollouts=40, depth=3, slip=0.3, tries=3),
        SearchSettings(rollouts=40, slip=0.0, tries=2),
    ],
)
def test_the_tree_search_is_legal_replays_and_keeps_its_budget(
    settings: SearchSettings, rollout_calls: list[int]
) -> None:
    calls = rollout_calls
    for ruleset in (Ruleset(set_max=9, players=4, rounds=2), Ruleset(set_max=6, players=2)):
        for view in views(ruleset, 5)[:8]:
            calls.clear()
            move = search_move(view, random.Random(5), settings)
            assert move in view["legal_moves"]
            choices = len(candidates(view))
            assert 40 - 2 * choices <= len(calls) <= 40 + choices
            assert search_move(view, random.Random(5), settings) == move


def test_the_early_stop_settles_only_on_a_clear_lead() -> None:
    """``settle``: the leader must beat the runner-up by more than ``settle`` standard
    errors of their paired difference, over at least ``CHECK_EVERY`` deals."""
    clear = [[0.6 + 0.01 * (i % 3) for i in range(CHECK_EVERY)], [0.4 + 0.01 * (i % 5) for i in range(CHECK_EVERY)]]
    # Ahead by 0.02 on average, with a spread of 0.3 a deal: not clear after 16 deals.
    noisy = [[0.52 + (0.3 if i % 2 else -0.3) for i in range(CHECK_EVERY)], [0.5] * CHECK_EVERY]
    assert _settled(clear[0], clear[1], 2.0)
    assert not _settled(clear[0][:8], clear[1][:8], 2.0)  # too few deals yet
    assert not _settled(noisy[0], noisy[1], 2.0)


def test_the_early_stop_spends_less_and_keeps_clear_choices(rollout_calls: list[int]) -> None:
    """With ``settle`` the search spends less of its budget over a match's decisions,
    never more, and replays; where it stops early, its choice is the one the whole
    budget picks in most decisions (the leader was clear)."""
    calls = rollout_calls
    whole, settled = SearchSettings(rollouts=300, depth=2), SearchSettings(rollouts=300, depth=2, settle=2.0)
    spent = {"whole": 0, "settled": 0}
    same = early = 0
    for view in views(Ruleset(set_max=9, players=4, rounds=2), 21, every=2)[:24]:
        calls.clear()
        full = search_move(view, random.Random(3), whole)
        spent["whole"] += len(calls)
        calls.clear()
        move = search_move(view, random.Random(3), settled)
        spent["settled"] += len(calls)
        assert move in view["legal_moves"] and len(calls) <= 300 + len(candidates(view))
        assert search_move(view, random.Random(3), settled) == move
        if len(calls) < 280:
            early += 1
            same += move == full
    assert spent["settled"] < spent["whole"] and early
    assert same >= early * 3 // 4
