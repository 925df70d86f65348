"""``manage.py loadtest``: the load generator plays real matches over HTTP.

A smoke test of the generator's logic against pytest-django's threaded WSGI
live server, not a measurement: it asserts that moves were made without errors
and that the report ends with the two lines scripts read, never a speed.
"""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest
from django.core.management import call_command

from games.engine import Match, Ruleset, public_view, seat_view
from tools.loadtest.clients import legal_moves_from


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
