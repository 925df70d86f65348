"""Traces (core.tracing) of a move: its request, its SQL, its Redis calls and the bot
task it sends, one trace across the Celery hop.

This process traces into OpenTelemetry's in-memory exporter; the real worker
process (started with ``TRACING_FILE``) appends its spans to a file. The chain
checked: the request's span -> its SQL and Redis spans and the task's send span
-> (in the worker) the task's run span -> the bot's SQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from core import cache, notify, tracing
from games import services
from games.engine import Match
from games.models import Game, GameStatus
from tests.integration.workers import WITH_WORKERS, wait_for

pytestmark = WITH_WORKERS


@pytest.fixture
def traced(settings, redis_url, tmp_path, monkeypatch) -> Iterator[tuple[InMemorySpanExporter, Any]]:
    """This process traced in memory (with Redis for the live notices); a worker started
    after it writes its spans to a file."""
    worker_spans = tmp_path / "worker-spans.jsonl"
    monkeypatch.setenv("TRACING_FILE", str(worker_spans))
    settings.REDIS_URL = redis_url
    notify._redis.cache_clear()
    # An earlier test of this process may have left the Redis breaker open (an outage
    # it made): then the move would skip Redis, and there would be no call to trace.
    cache.REDIS.succeeded()
    exporter = InMemorySpanExporter()
    tracing.setup(exporter=exporter)
    connection.close()  # the next statement opens a connection that is traced
    try:
        yield exporter, worker_spans
    finally:
        tracing.teardown()
        connection.close()
        notify._redis.cache_clear()


def read_spans(path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_moves_request_its_sql_redis_and_bot_task_are_one_trace(traced, make_player, token_client, start_worker):
    exporter, worker_file = traced
    worker = start_worker()
    human = make_player("tracer")
    game = services.game_create(creator=human, ruleset={"set_max": 6, "players": 2, "rounds": 1})
    services.game_add_bot(game_id=game.pk, by=human, strategy="greedy")
    services.game_start(game_id=game.pk, by=human)
    current = wait_for(
        lambda: ((g := Game.objects.get(pk=game.pk)).turn_seat == 0 and g) or None, 30, what="the human's turn"
    )
    assert current.status == GameStatus.RUNNING
    exporter.clear()
    move = Match.from_dict(current.state).legal_moves(0)[-1].to_dict()
    client = token_client(human)
    response = client.post(f"/api/v1/games/{game.pk}/moves/", {**move, "expected_seq": current.seq}, format="json")
    assert response.status_code == 201, response.content

    spans = exporter.get_finished_spans()
    requests = [s for s in spans if s.kind.name == "SERVER" and "moves" in s.name]
    assert len(requests) == 1, [s.name for s in spans]
    request = requests[0]
    trace_id = request.context.trace_id
    children = [s for s in spans if s.parent is not None and s.parent.span_id == request.context.span_id]
    assert any(s.attributes.get("db.system") == "postgresql" for s in children), [s.name for s in children]
    assert any(s.attributes.get("db.system") == "redis" for s in children), [
        (s.name, s.attributes.get("db.system"), s.parent and s.parent.span_id == request.context.span_id) for s in spans
    ]
    sends = [s for s in spans if s.name == "apply_async/bots.play_bot_turn"]
    assert len(sends) == 1, [s.name for s in spans]
    send = sends[0]
    assert send.context.trace_id == trace_id
    assert send.parent is not None and send.parent.span_id == request.context.span_id

    def bot_run() -> dict[str, Any] | None:
        runs = [
            s
            for s in read_spans(worker_file)
            if s["name"] == "run/bots.play_bot_turn" and s["context"]["trace_id"] == f"0x{trace_id:032x}"
        ]
        return runs[0] if runs else None

    run = wait_for(bot_run, 30, interval=0.2, what="the worker's span of the bot task", explain=worker.log)
    assert run["parent_id"] == f"0x{send.context.span_id:016x}"
    worker_sql = [
        s
        for s in read_spans(worker_file)
        if s["parent_id"] == run["context"]["span_id"] and s["attributes"].get("db.system") == "postgresql"
    ]
    assert worker_sql, "the bot's statements are children of its task's span"
