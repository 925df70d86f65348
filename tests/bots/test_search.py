"""The searching strategy (``bots.search``) and its levels
(``bots.strategies``): legal, replayable from its seed, within its budget."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bots import search as search_module
from bots.knowledge import Knowledge
from bots.search import SearchSettings, candidates, search_move, utility_function
from bots.sim import Sim
from bots.strategies import LEVELS, STRATEGIES, choose_greedy
from games.engine import PLAYING, Match, Ruleset, seat_view
from tests.engine.helpers import free_match


def views(ruleset: Ruleset, seed: int, every: int = 5) -> list[dict[str, Any]]:
    """Views of the seat to move with two choices or more, along a greedy match."""
    match, _ = Match.new(ruleset, seed)
    rng = random.Random(seed)
    found = []
    while match.status == PLAYING:
        view = seat_view(match, match.turn)
        if len(candidates(view)) > 1 and match.move_count % every == 0:
            found.append(view)
        match.apply(match.turn, choose_greedy(view, rng))
    return found


def test_a_tile_that_fits_two_pips_is_two_choices() -> None:
    # Seat 1 holds 4-4 (fits e6, needing 4) and 5-2 (fits e5 needing 5 and e8 needing 2).
    match = free_match(["1-0"], ["4-4", "5-2"])
    view = seat_view(match, 1)
    assert len(view["legal_moves"]) == 3
    assert [m for _, m in candidates(view)] == view["legal_moves"]


def test_plays_of_a_tile_on_two_ends_needing_one_pip_are_one_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    match = free_match(["1-0"], ["4-2", "4-1"], draws=["0-0"])
    match.apply(1, {"type": "play", "tile": "4-2", "end": "e8"})  # e9 needs 4, like e6
    match.apply(0, {"type": "draw"})  # 1-0 fits nothing; the drawn 0-0 neither
    view = seat_view(match, 1)
    assert view["legal_moves"] == [
        {"type": "play", "tile": "4-1", "end": "e6"},
        {"type": "play", "tile": "4-1", "end": "e9"},
    ]
    assert [m for _, m in candidates(view)] == [view["legal_moves"][0]]
    monkeypatch.setattr(search_module, "Knowledge", None)  # one choice: no search
    assert search_move(view, random.Random(1), SearchSettings()) == view["legal_moves"][0]


@pytest.mark.parametrize("ruleset", [Ruleset(set_max=9, players=4, rounds=2), Ruleset(set_max=6, players=2)])
def test_the_search_picks_a_legal_move_and_replays_from_its_seed(ruleset: Ruleset) -> None:
    quick = SearchSettings(rollouts=24)
    for view in views(ruleset, 3)[:12]:
        move = search_move(view, random.Random(5), quick)
        assert move in view["legal_moves"]
        assert search_move(view, random.Random(5), quick) == move


def test_the_budget_is_a_count_of_rollouts(rollout_calls: list[int]) -> None:
    calls = rollout_calls
    for halving in (True, False):
        for view in views(Ruleset(set_max=9, players=4, rounds=1), 8, every=3)[:8]:
            calls.clear()
            search_move(view, random.Random(1), SearchSettings(rollouts=40, halving=halving))
            choices = len(candidates(view))
            # The budget is spent, give or take the rounding of its shares (at least one deal a stage).
            assert 40 - 2 * choices <= len(calls) <= 40 + choices


def test_stop_ends_the_search_after_one_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    view = views(Ruleset(set_max=9, players=4, rounds=1), 2)[0]
    samples = []
    sample = Knowledge.sample

    def counted(self: Any, rng: random.Random) -> Sim:
        samples.append(1)
        return sample(self, rng)

    monkeypatch.setattr(Knowledge, "sample", counted)
    move = search_move(view, random.Random(1), SearchSettings(rollouts=10_000), stop=lambda: True)
    assert move in view["legal_moves"] and len(samples) == 1


def test_a_single_choice_is_played_without_searching(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "Knowledge", None)  # any search would fail
    match = free_match(["1-0"], ["6-1"])  # seat 1: nothing fits, it must draw
    view = seat_view(match, 1)
    assert search_move(view, random.Random(1), SearchSettings()) == {"type": "draw"}


def test_utility_prefers_fewer_points_and_is_a_win_chance_in_the_last_round() -> None:
    match, _ = Match.new(Ruleset(set_max=9, players=4, rounds=2), 1)
    view = seat_view(match, match.turn)
    me = view["seat"]
    utility = utility_function(view, SearchSettings())
    base = [20, 20, 20, 20]
    better = list(base)
    better[me] = 5
    assert utility(better) > utility(base)
    worse = [30, 30, 30, 30]
    worse[me] = 60
    assert utility(worse) < utility(base)
    points_only = utility_function(view, SearchSettings(win_weight=0))
    assert points_only(better) > points_only(base) > points_only(worse)
    # The last round: the lowest total wins, whatever the margin.
    last = {**view, "round": {**view["round"], "number": 2, "of": 2}, "totals": [100, 100, 100, 100]}
    final = utility_function(last, SearchSettings())
    winning = [10, 10, 10, 10]
    winning[me] = 9
    losing = [10, 10, 10, 10]
    losing[(me + 1) % 4] = 0
    assert final(winning) > 0.9 and final(losing) < 0.1


def test_strong_values_the_standings_with_a_rounds_measured_spread() -> None:
    """``strong``'s utility takes a round's spread of points as measured for double-9
    (16, where the rough rule says 22) and scales it with the set on others."""
    scores = [[20, 20, 20, 20], [5, 30, 12, 40], [0, 50, 3, 9], [33, 2, 17, 8]]
    for set_max, spread in ((9, 16.0), (6, 16.0 * 16 / 22), (12, 16.0 * 28 / 22)):
        match, _ = Match.new(Ruleset(set_max=set_max, players=4, rounds=3), 3)
        view = {**seat_view(match, match.turn), "totals": [40, 55, 38, 61]}
        strong = utility_function(view, LEVELS["strong"])
        measured = utility_function(view, SearchSettings(spread=spread))
        rough = utility_function(view, SearchSettings())
        assert [strong(s) for s in scores] == pytest.approx([measured(s) for s in scores], rel=1e-12)
        assert [strong(s) for s in scores] != pytest.approx([rough(s) for s in scores], rel=1e-6)


def test_every_level_is_registered_and_plays_legally() -> None:
    view = views(Ruleset(set_max=9, players=4, rounds=1), 4)[0]
    for name in LEVELS:
        assert name in STRATEGIES
        assert STRATEGIES[name].choose(view, random.Random(0)) in view["legal_moves"]


def test_a_blunder_is_still_a_legal_move() -> None:
    for view in views(Ruleset(set_max=9, players=3, rounds=1), 6)[:5]:
        assert search_move(view, random.Random(2), SearchSettings(rollouts=8, blunder=1.0)) in view["legal_moves"]


def test_a_choice_replays_in_another_process() -> None:
    """A bot's move is made again in whatever worker replays it: nothing in the
    search depends on the process (string hashing, set order, the clock)."""
    code = (
        "import random, json\n"
        "from games.engine import Ruleset\n"
        "from bots.search import SearchSettings, search_move\n"
        "from tests.bots.test_search import views\n"
        "found = views(Ruleset(set_max=9, players=3, rounds=1), 21, every=2)[:10]\n"
        "print(json.dumps([search_move(v, random.Random(i), SearchSettings(rollouts=30)) for i, v in enumerate(found)]))\n"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = [
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            check=True,
        ).stdout
        for hash_seed in ("1", "2")
    ]
    assert outputs[0] == outputs[1] and len(json.loads(outputs[0])) == 10
