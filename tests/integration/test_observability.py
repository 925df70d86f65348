"""Metrics and logs of a real server: ``manage.py serve`` (the web server, a Celery
worker and beat, each writing its metrics to the run folder), driven over HTTP.

* After a bot match, ``GET /metrics`` shows the moves the database holds, the bot
  tasks the worker ran, the bots' decisions, the requests by route.
* With ``LOG_FORMAT=json`` every line is a JSON object; the request that started
  the match and the bot tasks it sent log the same request id.
* No password or token a user sent ever appears in a log line.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.serve import Serve, assert_played_exactly, is_finished, open_bot_table
from tests.integration.web import request
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.slow]

Page = dict[tuple[str, tuple[tuple[str, str], ...]], float]
PASSWORD = "obs passphrase not-in-logs 7431"


def scrape(port: int, headers: dict[str, str] | None = None) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/metrics", headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def page_of(port: int) -> Page:
    status, text = scrape(port)
    assert status == 200, text
    found: Page = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def total(page: Page, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (others: any value)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in page.items() if n == name and wanted <= set(ls))


def delta(before: Page, after: Page, name: str, **labels: str) -> float:
    return total(after, name, **labels) - total(before, name, **labels)


def test_open_streams_are_counted_while_open(serve):
    connection = http.client.HTTPConnection("127.0.0.1", serve.port, timeout=30)
    connection.request("GET", "/api/v1/me/stream/", headers={"Authorization": f"Bearer {serve.token}"})
    response = connection.getresponse()
    assert response.status == 200
    assert response.fp.readline()  # the stream's first bytes: it is open
    try:
        wait_for(
            lambda: total(page_of(serve.port), "chickenfoot_streams_open", kind="account") == 1,
            30,
            interval=0.3,
            what="the open account stream to be counted",
        )
    finally:
        connection.close()
    wait_for(
        lambda: total(page_of(serve.port), "chickenfoot_streams_open", kind="account") == 0,
        30,
        interval=0.3,
        what="the closed stream to be counted out",
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    """The JSON objects among the log's lines (serve's own banner lines are plain)."""
    entries = []
    for line in text.splitlines():
        if line.startswith("{"):
            entries.append(json.loads(line))
    return entries


@pytest.fixture
def serve(tmp_path):
    server = Serve(tmp_path / "serve", env={"LOG_FORMAT": "json", "LOG_LEVEL": "DEBUG"})
    yield server
    server.stop()


def test_after_a_bot_match_the_counters_moved_by_what_the_database_holds(serve):
    before = page_of(serve.port)
    game_id = open_bot_table(serve, rounds=1, strategies=("greedy", "random", "greedy"))
    wait_for(lambda: is_finished(serve, game_id), 120, interval=0.5, what="the bot match to finish")
    moves = assert_played_exactly(serve, game_id)
    assert moves > 0
    # A move refused: the test's account has no seat at the bots' table.
    status, body = serve.api("POST", f"/games/{game_id}/moves/", {"type": "draw", "expected_seq": 0})
    assert status >= 400, body

    def settled() -> bool:  # the worker's last task is counted just after its commit
        page = page_of(serve.port)
        return delta(before, page, "chickenfoot_moves_accepted_total") >= moves

    wait_for(settled, 30, interval=0.3, what="the last bot move to be counted")
    after = page_of(serve.port)
    assert delta(before, after, "chickenfoot_moves_accepted_total", source="bot") == moves
    assert delta(before, after, "chickenfoot_moves_accepted_total") == moves
    refused_code = body["code"]
    assert delta(before, after, "chickenfoot_moves_refused_total", code=refused_code) == 1
    # Every bot move was chosen by its strategy, and timed.
    assert delta(before, after, "chickenfoot_bot_decision_seconds_count") == moves
    assert delta(before, after, "chickenfoot_bot_decision_seconds_count", strategy="random") > 0
    # The worker ran at least one task per move (a duplicate finds the game moved on and does nothing).
    succeeded = delta(before, after, "chickenfoot_celery_tasks_total", task="bots.play_bot_turn", state="succeeded")
    assert succeeded >= moves
    assert delta(before, after, "chickenfoot_celery_task_duration_seconds_count", task="bots.play_bot_turn") == (
        succeeded
    )
    # The requests that set the table up, by route template (never an id).
    start = {"route": "api/v1/games/<int:game_id>/start/", "method": "POST", "status": "200"}
    assert delta(before, after, "chickenfoot_http_requests_total", **start) == 1
    bots = {"route": "api/v1/games/<int:game_id>/bots/", "method": "POST", "status": "200"}
    assert delta(before, after, "chickenfoot_http_requests_total", **bots) == 3
    assert delta(before, after, "chickenfoot_notices_published_total") > moves
    assert total(after, "chickenfoot_health_check_ok", check="database") == 1
    assert total(after, "chickenfoot_health_check_ok", check="workers") == 1
    assert total(after, "chickenfoot_breaker_open") == 0
    assert f'game_id="{game_id}"' not in scrape(serve.port)[1]


def test_a_request_and_the_tasks_it_sent_log_one_request_id_and_no_secret(serve):
    request_id = "obs-test-7f3a9c"
    status, _ = request(serve.port, "POST", "/api/v1/players/", {"username": "loggy", "password": PASSWORD})
    assert status == 201
    status, made = request(
        serve.port, "POST", "/api/v1/tokens/", {"username": "loggy", "password": PASSWORD, "name": "logs"}
    )
    assert status == 201
    token = made["token"]
    # A wrong password too (a log-in failure), then the session log-in form of the browsable API.
    status, _ = request(serve.port, "POST", "/api/v1/tokens/", {"username": "loggy", "password": PASSWORD + "x"})
    assert status >= 400
    game_id = open_bot_table(serve, rounds=1, strategies=("greedy", "random"))
    status, body = request(
        serve.port, "GET", f"/api/v1/games/{game_id}/", token=token, headers={"X-Request-ID": request_id}
    )
    assert status == 200, body
    # A table the test's own request starts: its bot tasks carry the request's id.
    host_token, serve.token = serve.token, token
    status, body = serve.api("POST", "/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}, "sit": False})
    assert status == 201, body
    second = body["game"]["id"]
    for strategy in ("greedy", "greedy"):
        assert serve.api("POST", f"/games/{second}/bots/", {"strategy": strategy})[0] == 200
    status, _ = request(
        serve.port, "POST", f"/api/v1/games/{second}/start/", token=token, headers={"X-Request-ID": request_id}
    )
    assert status == 200
    wait_for(lambda: is_finished(serve, second) and is_finished(serve, game_id), 120, interval=0.5, what="the games")

    def logged_by_task() -> list[dict[str, Any]]:
        return [e for e in json_lines(serve.log()) if e.get("request_id") == request_id and e.get("task")]

    wait_for(lambda: logged_by_task(), 30, interval=0.3, what="the bot task's log line", explain=serve.log)
    entries = json_lines(serve.log())
    assert entries, serve.log()
    for entry in entries:
        assert {"time", "level", "logger", "message"} <= entry.keys(), entry
    web_side = [e for e in entries if e.get("request_id") == request_id and not e.get("task")]
    assert web_side and all(e.get("account_id") for e in web_side), web_side
    assert any(e.get("game_id") == second for e in web_side), web_side
    task_side = logged_by_task()
    assert {e["task"] for e in task_side} == {"bots.play_bot_turn"}
    assert all(e.get("game_id") == second for e in task_side), task_side
    # Nothing a user keeps secret is in any line, plain or JSON.
    text = serve.log()
    for secret in (PASSWORD, token, host_token, "a long passphrase 42"):  # (the host's: tests/integration/web.py)
        assert secret not in text
