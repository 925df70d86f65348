"""The ladder in the embedded default: ``manage.py serve`` (SQLite, the folder broker,
its own worker and beat) plays a scheduled round to the end, seen over HTTP only."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.integration.serve import Serve
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.slow]


def test_serve_plays_the_ladder_round_of_its_slot_to_the_end(tmp_path):
    serve = Serve(
        tmp_path / "serve",
        env={
            "LADDER_INTERVAL_SECONDS": "3600",
            "LADDER_CHECK_SECONDS": "0.5",
            "LADDER_RULESET": '{"set_max": 6, "rounds": 1}',
        },
    )
    try:

        def round_over() -> dict | None:
            status, body = serve.api("GET", "/ladder/")
            assert status == 200, body
            last = body["schedule"]["last_round"]
            played = [p for p in body["participants"] if p["games"]]
            if last and last["games"] and played and not any(p["games_running"] for p in body["participants"]):
                return body
            return None

        body = wait_for(round_over, 90, interval=0.5, what="the ladder round to be played out", explain=serve.log)
    finally:
        serve.stop()
    last = body["schedule"]["last_round"]
    assert (last["table_size"], last["games"]) == (4, 1)  # the first round: 4 of the 6 levels at one table
    assert sum(p["games"] for p in body["participants"]) == 4
    assert all(p["level"] and p["joined_at"] for p in body["participants"])  # every level's account made
    # The slot has its round: the next one is due when the next hour-long slot starts.
    assert datetime.fromisoformat(body["schedule"]["next_round_at"]) > datetime.fromisoformat(last["created_at"])
