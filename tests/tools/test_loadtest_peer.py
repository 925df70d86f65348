"""``manage.py loadtest --peer boardgameio`` without Node: how the peer's clients
choose a move, the side-by-side report's arithmetic, and the refusals before
anything is started. The run itself needs Node.js and npm (a documented
command: tools/peers/README.md), so it is not part of ``make test``; it is a
benchmark, never a timed test."""

from __future__ import annotations

import io
import json
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tools.loadtest.clients import Run
from tools.loadtest.options import LoadTestError, Options
from tools.loadtest.peer import PeerClient, PeerComparison, Seat, check_peer, peer_move, peer_url
from tools.loadtest.report import CpuFigures, Report


def test_a_peer_client_plays_a_matching_tile_else_draws_else_passes() -> None:
    rng = random.Random(1)
    for _ in range(20):
        move, args = peer_move(["6-6", "5-3", "2-1"], [3, 4], 10, rng)
        assert (move, args) == ("play", ["5-3", 0])  # only 5-3 matches, on the end showing 3
    plays = {tuple(peer_move(["4-2"], [4, 2], 0, rng)[1]) for _ in range(50)}
    assert plays == {("4-2", 0), ("4-2", 1)}  # either end it matches
    assert peer_move(["6-6"], [3, 4], 5, rng) == ("draw", [])
    assert peer_move(["6-6"], [3, 4], 0, rng) == ("pass", [])


def _report(moves_per_second: float, latencies: list[float], web_ms: float, worker_ms: float | None) -> Report:
    report = Report(Options(), 10.0, latencies, round(moves_per_second * 10), 0, 0, Counter(), 0, 0)
    moves = report.moves
    split = {"web": web_ms * moves / 1000, "pg": 2 * moves / 1000, "pg-bg": 0.5}
    if worker_ms is not None:
        split["worker"] = worker_ms * moves / 1000
    report.cpu_figures = CpuFigures(10.0, 1.9, 0.1, moves, None, split)
    return report


def test_side_by_side_medians_ratios_and_json() -> None:
    """Ours with a worker, the peer without: totals are web + worker + pg of each
    (PostgreSQL's shared background writers left out), ratios are ours / peer."""
    comparison = PeerComparison(Options(clients=4), 2, ("http://127.0.0.1:8600", "http://127.0.0.1:8601"))
    comparison.runs = [
        ("ours", 1, _report(300, [5.0, 10.0, 40.0], 4.0, 1.0)),
        ("boardgameio", 1, _report(100, [10.0, 20.0, 80.0], 9.0, None)),
        ("boardgameio", 2, _report(120, [10.0, 20.0, 60.0], 11.0, None)),
        ("ours", 2, _report(320, [5.0, 10.0, 30.0], 4.0, 1.0)),
    ]
    ours, peer = comparison.summary("ours"), comparison.summary("boardgameio")
    assert ours["moves_per_second"] == {"median": 310.0, "range": [300.0, 320.0]}
    assert ours["cpu_ms_per_move"]["total"]["median"] == pytest.approx(7.0)  # 4 + 1 + 2
    assert "worker" not in peer["cpu_ms_per_move"]
    assert peer["cpu_ms_per_move"]["total"]["median"] == pytest.approx(12.0)  # (9 + 11) / 2 + 2
    ratios = comparison.ratios()
    assert ratios["moves_per_second"] == pytest.approx(round(310 / 110, 2))
    assert ratios["p99_ms"] == pytest.approx(round(35 / 70, 2))
    assert ratios["cpu_ms_per_move"] == pytest.approx(round(7 / 12, 2))
    lines = comparison.lines()
    assert "ratio_moves_per_second: 2.82" in lines
    assert "boardgameio_cpu_ms_per_move: 12.0" in lines
    assert any(line.startswith("boardgameio 2") for line in lines)
    document = json.loads(json.dumps(comparison.as_dict()))
    assert document["order"] == ["ours 1", "boardgameio 1", "boardgameio 2", "ours 2"]
    assert document["ratio_ours_to_boardgameio"]["moves_per_second"] == pytest.approx(2.82)


def test_the_peer_is_refused_before_anything_starts(tmp_path: Path) -> None:
    assert peer_url("http://127.0.0.1:8600") == "http://127.0.0.1:8601"
    with pytest.raises(LoadTestError, match="is one of"):
        check_peer("colyseus", "http://127.0.0.1:8601", tmp_path)
    with pytest.raises(LoadTestError, match=r"127\.0\.0\.1 only"):
        check_peer("boardgameio", "http://10.77.0.50:8601", tmp_path)


@pytest.mark.skipif(shutil.which("node") is None, reason="without Node.js the refusal is 'needs Node.js', not this one")
def test_an_uninstalled_peer_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(LoadTestError, match="make peer-boardgameio-install"):
        check_peer("boardgameio", "http://127.0.0.1:8601", tmp_path)  # no node_modules there


def test_the_command_wants_spawn_and_one_comparison_at_a_time() -> None:
    with pytest.raises(CommandError, match="one at a time"):
        call_command("loadtest", peer="boardgameio", compare_bare=True, stdout=io.StringIO())
    with pytest.raises(CommandError, match="add --spawn"):
        call_command("loadtest", peer="boardgameio", url="http://127.0.0.1:8600", stdout=io.StringIO())


def test_a_third_side_without_the_turn_clock_gets_its_own_rows_and_ratio() -> None:
    comparison = PeerComparison(Options(clients=4), 1, ("http://127.0.0.1:8600", "http://127.0.0.1:8601"))
    comparison.runs = [
        ("ours", 1, _report(300, [5.0, 10.0, 40.0], 4.0, 1.0)),
        ("ours-no-clock", 1, _report(360, [5.0, 10.0, 20.0], 3.0, 0.0)),
        ("boardgameio", 1, _report(100, [10.0, 20.0, 80.0], 9.0, None)),
    ]
    assert comparison.labels == ("ours", "ours-no-clock", "boardgameio")
    assert comparison.sides["ours-no-clock"] == "http://127.0.0.1:8600"
    assert comparison.ratios("ours-no-clock")["cpu_ms_per_move"] == pytest.approx(round(5 / 11, 2))
    lines = comparison.lines()
    assert any(line.startswith("no-clock/peer") for line in lines)
    assert "ours_no_clock_moves_per_second: 360.0" in lines
    assert "ratio_moves_per_second: 3.00" in lines  # the last lines stay ours (with the clock) / peer
    assert comparison.as_dict()["ratio_ours_no_clock_to_boardgameio"]["moves_per_second"] == pytest.approx(3.6)


def test_a_peer_client_drops_news_of_a_turn_it_has_already_played() -> None:
    """At a match's start a player may read the state after its partner's move, and
    move, before the partner's word of that move arrives: the word is stale then."""
    client = PeerClient(Run(Options(clients=2)), 0, "127.0.0.1", 1, "a")
    seat = client.seats["m"] = Seat("m", "1", "secret", state_id=2, my_turn=False, hand=["1-0"], ends=[3, 4])
    client.tell("turn", "m", 1, [5, 6], 3)  # the partner's move that made state 1
    client._drain(block=False)
    assert (seat.my_turn, seat.state_id, seat.ends) == (False, 2, [3, 4])
    client.tell("turn", "m", 3, [0, 4], 2)  # the partner's next move
    client._drain(block=False)
    assert (seat.my_turn, seat.state_id, seat.ends, seat.boneyard) == (True, 3, [0, 4], 2)
    client.http.close()
