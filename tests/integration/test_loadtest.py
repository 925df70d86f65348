"""``manage.py loadtest``: the load generator plays real matches over HTTP.

A smoke test of the generator's logic against pytest-django's threaded WSGI
live server, not a measurement: it asserts that moves were made without errors
and that the report ends with the two lines scripts read, never a speed. The
comparison with the bare locked write (``--compare-bare``) runs on a server of
its own (``--spawn``: gunicorn and a Celery worker on the test database), briefly.
"""

from __future__ import annotations

import io
import json
import random
import re
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from games.engine import Match, Ruleset, public_view, seat_view
from games.models import Game
from tests.integration.loadtest_runs import made_up_report, spawned_run
from tools.loadtest.clients import legal_moves_from
from tools.loadtest.compare import Comparison
from tools.loadtest.options import Options


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("follow", "idle"), [("notify", 0), ("local", 0), ("poll", 0), ("longpoll", 3)])
def test_loadtest_plays_matches_and_reports(live_server: Any, follow: str, idle: int) -> None:
    out = io.StringIO()
    # Idle long-polls, not streams: the WSGI live server cannot stream an async iterator.
    call_command(
        "loadtest",
        url=live_server.url,
        clients=4,
        duration=2,
        warmup=0.5,
        follow=follow,
        seed=1,
        idle_streams=idle,
        idle_mode="longpoll",
        idle_wait=2,
        idle_games=1,
        stdout=out,
    )
    lines = out.getvalue().strip().splitlines()

    assert re.fullmatch(r"p50_ms: \d+", lines[-3]), lines
    assert re.fullmatch(r"moves_per_second: \d+", lines[-2]), lines
    assert re.fullmatch(r"p99_ms: \d+", lines[-1]), lines
    requests = next(line for line in lines if line.startswith("requests: "))
    accepted = re.search(r"(\d+) moves accepted", requests)
    assert accepted is not None and int(accepted.group(1)) > 0, requests
    assert "errors: 0" in lines, lines
    if idle:
        assert any(line.startswith(f"idle_streams: {idle} longpoll") for line in lines), lines


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("clock", [True, False])
def test_no_turn_clock_opens_tables_without_one(live_server: Any, clock: bool) -> None:
    """``--no-turn-clock``: the load test's tables have no turn clock (no deadline,
    no follow-up task a move); by default they have the server's."""
    before = set(Game.objects.values_list("pk", flat=True))
    call_command(
        "loadtest",
        url=live_server.url,
        clients=2,
        duration=1,
        warmup=0.2,
        seed=1,
        no_turn_clock=not clock,
        stdout=io.StringIO(),
    )
    games = Game.objects.exclude(pk__in=before)
    assert games.exists()
    limits = set(games.values_list("turn_time_limit", flat=True))
    assert limits == ({settings.DEFAULT_TURN_SECONDS} if clock else {None})


def test_local_legal_moves_match_the_engine_at_every_turn_start() -> None:
    """``--follow local`` works a move out from the hand and the public state; at
    the start of a turn that is exactly the engine's list of legal moves."""
    rng = random.Random(5)
    checked = 0
    for seed in range(4):
        match, _ = Match.new(Ruleset(set_max=9, players=2), seed)
        while match.status == "playing":
            seat = match.turn
            if match.drawn is None:
                mine = seat_view(match, seat)
                expected = sorted(map(str, mine["legal_moves"]))
                assert sorted(map(str, legal_moves_from(mine["hand"], public_view(match)))) == expected
                checked += 1
            match.apply(seat, rng.choice(match.legal_moves(seat)))
    assert checked > 1000


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_compare_bare_serves_both_paths_and_prints_their_ratio(
    redis_url: str, queue_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One bare run and one real run (clients following the game streams) on a
    spawned server: both rows, the summary, the ratio lines; no speed asserted."""
    lines = spawned_run(monkeypatch, redis_url, queue=queue_name, compare_bare=True, follow="stream")

    rows = {
        line.split()[0] + " " + line.split()[1]: line.split() for line in lines if re.match(r"(bare|real) 1 ", line)
    }
    assert set(rows) == {"bare 1", "real 1"}, lines
    for row in rows.values():
        assert int(row[2]) > 0 and row[5] == "0", row  # moves/s, errors
    assert any(line.startswith("real/bare ") for line in lines), lines
    assert any("stream events received per move" in line for line in lines), lines
    assert "errors: 0" in lines, lines
    assert re.fullmatch(r"bare_moves_per_second: \d+", lines[-4]), lines
    assert re.fullmatch(r"real_moves_per_second: \d+", lines[-3]), lines
    assert re.fullmatch(r"ratio_moves_per_second: \d+\.\d\d", lines[-2]), lines
    assert re.fullmatch(r"ratio_cpu_per_move: (\d+\.\d\d|-)", lines[-1]), lines


def test_comparison_summary_ratios_and_json() -> None:
    """The table's arithmetic: medians and ranges per mode, real/bare ratios; --json's document."""
    runs = [
        ("bare", 1, made_up_report(300, [10.0, 20.0, 50.0], 4.0)),
        ("real", 1, made_up_report(150, [30.0, 40.0, 90.0], 8.0)),
        ("real", 2, made_up_report(170, [30.0, 40.0, 110.0], 9.0)),
        ("bare", 2, made_up_report(340, [10.0, 20.0, 70.0], 5.0)),
    ]
    comparison = Comparison(Options(clients=16), 2, runs, ["web", "worker", "pg", "pg-bg", "redis"], 4)

    bare, real = comparison.summary("bare"), comparison.summary("real")
    assert bare["moves_per_second"] == {"median": 320.0, "range": [300.0, 340.0]}
    assert real["p99_ms"] == {"median": 100.0, "range": [90.0, 110.0]}
    assert bare["cpu_ms_per_move"]["total"]["median"] == pytest.approx(5.5)  # web 4.5 + pg 1.0
    ratios = comparison.ratios()
    assert ratios["moves_per_second"] == pytest.approx(0.5)
    assert ratios["moves_per_second_by_repetition"] == [0.5, 0.5]
    assert ratios["cpu_per_move"]["web"] == pytest.approx(8.5 / 4.5, abs=0.01)
    assert ratios["cpu_per_move"]["worker"] is None  # nothing to compare with
    lines = comparison.lines()
    assert lines[-4:] == [
        "bare_moves_per_second: 320",
        "real_moves_per_second: 160",
        "ratio_moves_per_second: 0.50",
        "ratio_cpu_per_move: 1.73",
    ]
    document = json.loads(json.dumps(comparison.as_dict()))
    assert [run["mode"] for run in document["runs"]] == ["bare", "real", "real", "bare"]
    assert document["ratio_real_to_bare"]["moves_per_second"] == 0.5


def test_comparison_with_idle_streams_gives_their_cost_against_the_same_minutes() -> None:
    """With idle streams, the real path without them ran between the two: its row,
    the idle/no-idle ratios and the two lines that say what the idle streams cost."""
    runs = [
        ("bare", 1, made_up_report(300, [10.0, 20.0, 50.0], 4.0)),
        ("no-idle", 1, made_up_report(200, [30.0, 40.0, 80.0], 6.0)),
        ("real", 1, made_up_report(180, [30.0, 40.0, 100.0], 7.0)),
        ("real", 2, made_up_report(180, [30.0, 40.0, 100.0], 7.0)),
        ("no-idle", 2, made_up_report(200, [30.0, 40.0, 80.0], 6.0)),
        ("bare", 2, made_up_report(300, [10.0, 20.0, 50.0], 4.0)),
    ]
    comparison = Comparison(Options(clients=16, idle_streams=2000), 2, runs, ["web", "worker", "pg"], 4)

    assert comparison.modes == ("bare", "no-idle", "real")
    idle = comparison.ratios("real", "no-idle")
    assert idle["moves_per_second"] == pytest.approx(0.9)
    assert idle["p99_ms"] == pytest.approx(1.25)
    lines = comparison.lines()
    assert any(line.startswith("real/no-idle ") for line in lines), lines
    assert "idle_streams_moves_per_second_ratio: 0.90" in lines
    assert "idle_streams_p99_ratio: 1.25" in lines
    assert lines[-3:-1] == ["real_moves_per_second: 180", "ratio_moves_per_second: 0.60"]
    document = json.loads(json.dumps(comparison.as_dict()))
    assert document["ratio_real_to_no_idle"]["moves_per_second"] == 0.9
    assert set(document["summary"]) == {"bare", "no-idle", "real"}
