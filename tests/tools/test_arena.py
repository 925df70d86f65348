"""The arena (``tools/arena``): its statistics, its duplicate schedule, its summary
per strategy, and a tiny run end to end (command line and ``manage.py arena``)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tools.arena.cli import main, split_seats
from tools.arena.lineup import LineupError, parse_spec, strategy
from tools.arena.play import MatchResult
from tools.arena.report import summarize, table
from tools.arena.runner import ArenaConfig, run, schedule
from tools.arena.stats import estimate, regularized_beta, t_cdf, t_quantile, t_test
from tools.stats import percentile

# -- statistics ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [
        (0.975, 1, 12.7062),
        (0.95, 1, 6.3138),
        (0.975, 5, 2.5706),
        (0.995, 10, 3.1693),
        (0.975, 10, 2.2281),
        (0.975, 30, 2.0423),
        (0.975, 1_000_000, 1.9600),
        (0.025, 10, -2.2281),
    ],
)
def test_t_quantiles_match_the_tables(p: float, df: float, expected: float) -> None:
    assert t_quantile(p, df) == pytest.approx(expected, abs=1e-4)


def test_t_distribution_function() -> None:
    assert t_cdf(0.0, 7) == pytest.approx(0.5)
    assert t_cdf(2.2281, 10) == pytest.approx(0.975, abs=1e-5)
    assert t_cdf(-2.2281, 10) == pytest.approx(0.025, abs=1e-5)
    assert t_cdf(1.0, 1) == pytest.approx(0.75)  # Cauchy: 1/2 + atan(1)/pi
    assert t_cdf(math.inf, 3) == 1.0 and t_cdf(-math.inf, 3) == 0.0
    assert regularized_beta(0.5, 2, 2) == pytest.approx(0.5)
    assert regularized_beta(0.3, 1, 1) == pytest.approx(0.3)
    assert regularized_beta(0.2, 2, 3) == pytest.approx(0.1808)  # 1 - (1-x)^4 - 4x(1-x)^3... = 0.1808
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)


def test_estimate_is_the_mean_with_a_t_interval() -> None:
    values = [5.1, 4.9, 5.6, 5.8, 6.0, 5.7]
    est = estimate(values)
    mean = sum(values) / 6
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 5)
    assert est.n == 6 and est.mean == pytest.approx(mean)
    assert est.stderr == pytest.approx(sd / math.sqrt(6))
    half = 2.5706 * sd / math.sqrt(6)
    assert est.low == pytest.approx(mean - half, abs=1e-4) and est.high == pytest.approx(mean + half, abs=1e-4)
    one = estimate([3.0])
    assert one.mean == 3.0 and math.isnan(one.low)
    with pytest.raises(ValueError):
        estimate([])


def test_t_test_against_a_null() -> None:
    values = [5.1, 4.9, 5.6, 5.8, 6.0, 5.7]
    test = t_test(values, 5.0)
    est = estimate(values)
    assert test.t == pytest.approx((est.mean - 5.0) / est.stderr)
    assert test.p == pytest.approx(2 * (1 - t_cdf(abs(test.t), 5)))
    # t = 2.969 on 5 degrees of freedom; the closed form of Student's t for 5 degrees
    # (1/2 + (θ + sin θ cos θ (1 + 2/3 cos² θ)) / π, θ = atan(t / √5)) gives p = 0.03118.
    assert test.t == pytest.approx(2.96926, abs=1e-4)
    assert test.p == pytest.approx(0.031179, abs=1e-5)
    assert t_test([0.25] * 10, 0.25).p == 1.0
    assert t_test([0.5] * 10, 0.25).p == 0.0 and t_test([0.5] * 10, 0.25).t == math.inf
    assert math.isnan(t_test([0.5], 0.25).p)


def test_a_fair_coin_is_rejected_about_one_time_in_twenty() -> None:
    """The test's size: deals of a strategy no better than the null are rejected at
    the 5% level about 5% of the time."""
    rng = random.Random(1)
    rejected = sum(t_test([float(rng.random() < 0.25) for _ in range(60)], 0.25).p < 0.05 for _ in range(400))
    assert 8 <= rejected <= 36


def test_percentile_by_nearest_rank() -> None:
    values = list(range(1, 101))
    assert percentile(values, 0.99) == 99
    assert percentile(values, 1.0) == 100
    assert percentile(values, 0.5) == 50
    assert percentile([7.0], 0.99) == 7.0
    assert math.isnan(percentile([], 0.99))


# -- line-ups and the schedule -------------------------------------------------------------------


def test_specs() -> None:
    assert parse_spec("greedy") == ("greedy", {})
    assert parse_spec("strong:rollouts=50,win_weight=0.5,halving=false") == (
        "strong",
        {"rollouts": 50, "win_weight": 0.5, "halving": False},
    )
    assert split_seats("strong:rollouts=50+policy=1, greedy") == ("strong:rollouts=50,policy=1", "greedy")
    for bad in ("nobody", "greedy:rollouts=3", "strong:speed=3", "strong:rollouts=x", "strong:rollouts"):
        with pytest.raises(LineupError):
            parse_spec(bad)
    assert callable(strategy("strong:rollouts=8"))


def test_every_deal_is_played_once_per_rotation() -> None:
    config = ArenaConfig(lineup=("strong", "greedy", "greedy"), matches=10, seed=4, ruleset={"set_max": 6})
    jobs = schedule(config)
    assert config.deals == 4 and len(jobs) == 12  # 10 matches, rounded up to whole deals
    for deal in range(4):
        rotations = [j for j in jobs if j.deal == deal]
        assert len({j.seed for j in rotations}) == 1
        assert sorted(j.rotation for j in rotations) == [0, 1, 2]
        for seat in range(3):  # each spec sits at each seat as often as it appears in the line-up
            assert sorted(j.seats[seat] for j in rotations) == ["greedy", "greedy", "strong"]
    assert len({j.seed for j in jobs}) == 4
    assert schedule(config) == jobs  # the run's seed makes the deals
    assert (
        schedule(ArenaConfig(lineup=config.lineup, matches=10, seed=5, ruleset={"set_max": 6}))[0].seed != jobs[0].seed
    )


def test_summary_counts_shared_wins_as_shares_and_pairs_by_deal() -> None:
    config = ArenaConfig(lineup=("a", "b"), matches=4)

    def result(deal: int, rotation: int, winners: list[int]) -> MatchResult:
        seats = ["a", "b"] if rotation == 0 else ["b", "a"]
        return MatchResult(deal, rotation, seats, [10, 20], winners, 50, [[0.001, 0.003], [0.002]])

    results = [
        result(0, 0, [0]),  # a wins
        result(0, 1, [1]),  # a wins (seat 1)
        result(1, 0, [0, 1]),  # a shared win: a half each
        result(1, 1, [0]),  # b wins
    ]
    a, b = summarize(config, results)
    assert (a.spec, a.seats, a.matches) == ("a", 1, 4)
    assert a.win.mean == pytest.approx((1.0 + 0.25) / 2)  # deal 0: 1; deal 1: (0.5 + 0) / 2
    assert b.win.mean == pytest.approx(1 - a.win.mean)
    assert a.test.null == 0.5 and a.test.t == pytest.approx(-b.test.t)
    assert a.points.mean == pytest.approx(15.0)
    assert a.decisions == 2 + 1 + 2 + 1 == b.decisions
    assert a.cpu_mean_ms == pytest.approx(1000 * (0.001 + 0.003 + 0.002) * 2 / 6)
    assert a.cpu_p99_ms == pytest.approx(3.0)
    lines = table(config, [a, b], 1.0)
    assert lines[1].split()[:3] == ["strategy", "seats", "win/seat"] and lines[2].startswith("a ")
    assert lines[1].endswith("points edge [95% CI]")
    # The points edge, paired per deal: the other strategy's mean points less its own.
    # Deal 0: a has 5 and 20, b 30 and 10 (edge of a +7.5); deal 1: a 8 and 4, b 9 and 9 (+3).
    scored = [
        MatchResult(0, 0, ["a", "b"], [5, 30], [0], 9, [[], []]),
        MatchResult(0, 1, ["b", "a"], [10, 20], [0], 9, [[], []]),
        MatchResult(1, 0, ["a", "b"], [8, 9], [0], 9, [[], []]),
        MatchResult(1, 1, ["b", "a"], [9, 4], [1], 9, [[], []]),
    ]
    a, b = summarize(config, scored)
    assert (
        a.edge.n == 2 and a.edge.mean == pytest.approx((7.5 + 3.0) / 2) and b.edge.mean == pytest.approx(-a.edge.mean)
    )
    assert a.edge.low < a.edge.mean < a.edge.high
    assert table(config, [a, b], 1.0)[2].endswith(f"+5.25 [{a.edge.low:+.2f}, {a.edge.high:+.2f}]")
    alone = summarize(
        ArenaConfig(lineup=("a", "a"), matches=2), [MatchResult(0, 0, ["a", "a"], [1, 2], [0], 9, [[], []])]
    )
    assert math.isnan(alone[0].edge.mean) and table(config, alone, 1.0)[2].endswith("  -")


# -- a whole run -------------------------------------------------------------------------------


def test_a_small_run_is_consistent_and_replays() -> None:
    config = ArenaConfig(lineup=("greedy", "random"), matches=4, seed=3, ruleset={"set_max": 6, "rounds": 2})
    results = run(config)
    assert [(r.deal, r.rotation) for r in results] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for r in results:
        assert len(r.totals) == 2 and r.winners and sum(r.shares) == pytest.approx(1.0)
        assert all(t >= 0 for seat in r.cpu for t in seat)
    again = run(config)
    assert [(r.totals, r.winners) for r in again] == [(r.totals, r.winners) for r in results]
    # The rotation hands each deal's seats to the other strategy: same deal, other player.
    assert results[0].seats == ["greedy", "random"] and results[1].seats == ["random", "greedy"]


def test_the_command_line_prints_the_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "arena.json"
    argv = ["--seats", "strong:rollouts=6,greedy", "--matches", "2", "--set-max", "6", "--rounds", "1"]
    assert main([*argv, "--processes", "2", "--json", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("arena: 2 matches (1 deals x 2 rotations), double-6, 2 players, 1 rounds")
    assert [line.split()[0] for line in printed[2:4]] == ["strong:rollouts=6", "greedy"]
    document = json.loads(out.read_text())
    assert document["config"]["lineup"] == ["strong:rollouts=6", "greedy"]
    assert len(document["matches"]) == 2 and {s["spec"] for s in document["summaries"]} == {
        "strong:rollouts=6",
        "greedy",
    }
    # The table again, from the file alone.
    assert main(["--report", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == printed[:-1]  # all but the "json: FILE" line
    for bad in (["--seats", "nobody,greedy"], []):
        with pytest.raises(SystemExit):
            main(bad)


def test_manage_py_arena(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("arena", "--seats", "greedy,random", "--matches", "2", "--set-max", "6", "--rounds", "1", "--quiet")
    assert "greedy" in capsys.readouterr().out
    with pytest.raises(CommandError):
        call_command("arena", "--seats", "greedy,random", "--set-max", "7", "--quiet")


def test_runs_in_pieces_report_as_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs of one line-up with other seeds, reported together, are the run of
    all their matches: every deal its own paired sample."""
    argv = ["--seats", "greedy,random", "--set-max", "6", "--rounds", "1", "--quiet", "--processes", "1"]
    paths = []
    for seed, matches in (("1", "4"), ("2", "6")):
        paths.append(tmp_path / f"run{seed}.json")
        assert main([*argv, "--matches", matches, "--seed", seed, "--json", str(paths[-1])]) == 0
    capsys.readouterr()
    assert main(["--report", f"{paths[0]},{paths[1]}"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert (
        printed[0].startswith("arena: 10 matches (5 deals x 2 rotations)")
        and "merged: 2 runs, seeds 1, 2" in printed[0]
    )
    both = [json.loads(p.read_text()) for p in paths]
    wins = [m["shares"][m["seats"].index("greedy")] for d in both for m in d["matches"]]
    greedy = next(line for line in printed if line.startswith("greedy"))
    assert greedy.split()[2] == f"{100 * sum(wins) / len(wins):.1f}%"
    other = tmp_path / "other.json"
    assert (
        main(
            [
                "--seats",
                "random,greedy",
                "--matches",
                "2",
                "--set-max",
                "6",
                "--rounds",
                "1",
                "--quiet",
                "--json",
                str(other),
            ]
        )
        == 0
    )
    with pytest.raises(SystemExit):
        main(["--report", f"{paths[0]},{other}"])


def test_the_referee_screen_ranks_a_small_budget_below_a_large_one(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m tools.arena.referee``: a row per spec, the first the baseline, the
    others paired with it; the referee values exactly the distinct choices."""
    from bots.search import candidates
    from games.engine import seat_view
    from tools.arena.bench import positions
    from tools.arena.referee import main as referee_main
    from tools.arena.referee import referee_values, settings_of

    view = next(v for v in (seat_view(m, m.turn) for m in positions(40, seed=11)) if len(candidates(v)) > 2)
    values = referee_values(view, 60, 1)
    assert len(values) == len(candidates(view))
    assert all(json.loads(key) in view["legal_moves"] for key in values)
    assert referee_values(view, 60, 1) == values  # seeded: it replays
    # Its tree's exploration is a setting: a greedier tree values the choices otherwise.
    assert referee_values(view, 60, 1, explore=0.01) != values
    with pytest.raises(LineupError):
        settings_of("greedy")
    referee_main(["--positions", "40", "--referee", "200", "--specs", "hard:rollouts=100,hard:rollouts=4"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("decisions: ")
    first, second = out[2].split(), out[3].split()
    assert first[0] == "hard:rollouts=100" and second[0] == "hard:rollouts=4"
    assert len(second) == len(first) + 4  # the paired difference and its interval
    assert float(second[1]) > float(first[1])  # 4 play-outs a decision err more than 100


def test_the_oracle_deals_the_true_hands_and_prints_both_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m tools.arena.oracle``: inside ``seeing(match)`` the search's every deal
    is the match's true hands (the boneyard's tiles in some order), outside it the
    search deals from the view again; the command prints both rows and the gain."""
    import bots.search
    from bots.knowledge import Knowledge
    from bots.sim import tile_index
    from games.engine import Match, Ruleset, seat_view
    from tools.arena.oracle import main as oracle_main
    from tools.arena.oracle import seeing

    match, _ = Match.new(Ruleset(set_max=9, players=4, rounds=1), 7)
    view = seat_view(match, match.turn)
    with seeing(match):
        deal = vars(bots.search)["Knowledge"](view, random.Random(1)).sample(random.Random(2))
    assert deal.hands == [[tile_index(t) for t in hand] for hand in match.hands]
    assert sorted(deal.boneyard) == sorted(tile_index(t) for t in match.boneyard)
    assert vars(bots.search)["Knowledge"] is Knowledge
    own = Knowledge(view, random.Random(1)).sample(random.Random(2))
    assert own.hands[match.turn] == deal.hands[match.turn]
    oracle_main(["--deals", "2", "--spec", "hard:rollouts=8"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 deals x 4 rotations") and "hard:rollouts=8" in out[0]
    assert out[2].startswith("own deals") and out[3].startswith("true hands")
    assert out[4].startswith("true hands less own deals: win ")


def test_a_report_against_other_runs_pairs_the_first_seat_by_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--report A --against B``: the first seat's strategy of A less that of B on the
    deals both played (same seed and deal): a run against itself differs by exactly
    nothing; two line-ups on the same deals differ by their per-deal win shares."""
    argv = ["--set-max", "6", "--rounds", "1", "--quiet", "--processes", "1", "--matches", "8", "--seed", "3"]
    greedy, again, random_first, elsewhere = (tmp_path / f"{name}.json" for name in ("g", "g2", "r", "x"))
    assert main(["--seats", "greedy,random", *argv, "--json", str(greedy)]) == 0
    assert main(["--seats", "greedy,random", *argv, "--json", str(again)]) == 0
    assert main(["--seats", "random,greedy", *argv, "--json", str(random_first)]) == 0
    assert main(["--seats", "random,greedy", *argv[:-1], "4", "--json", str(elsewhere)]) == 0
    capsys.readouterr()
    assert main(["--report", str(greedy), "--against", str(again)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == (
        "paired over 4 deals: greedy less greedy: win/seat +0.0 points [+0.0, +0.0], points edge +0.00 [+0.00, +0.00]"
    )
    assert main(["--report", str(greedy), "--against", str(random_first)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]

    def shares(path: Path, name: str) -> dict[int, float]:
        per_deal: dict[int, list[float]] = {}
        for m in json.loads(path.read_text())["matches"]:
            per_deal.setdefault(m["deal"], []).append(m["shares"][m["seats"].index(name)])
        return {deal: sum(v) / len(v) for deal, v in per_deal.items()}

    mine, theirs = shares(greedy, "greedy"), shares(random_first, "random")
    expected = 100 * sum(mine[d] - theirs[d] for d in mine) / len(mine)
    assert last.startswith(f"paired over 4 deals: greedy less random: win/seat {expected:+.1f} points")
    for bad in (["--against", str(again)], ["--report", str(greedy), "--against", str(elsewhere)]):
        with pytest.raises(SystemExit):
            main(bad)
