"""Challenges on a live stack: the invitee's client follows GET /me/stream/ on a
real web server, reads ``challenge_received``, accepts over HTTP, and is told
``challenge_started`` and ``game_started``; the bot kit (``--accept-challenges``)
accepts a challenge and plays the table to its end; beat expires a challenge
through a real worker. Real PostgreSQL, Redis, gunicorn/uvicorn and Celery
processes; nothing mocked."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from challenges import services
from challenges.models import Challenge, ChallengeStatus
from games.models import Game, GameStatus, Move, MoveSource
from players import services as player_services
from tests.integration.web import SseClient, SseMessage, WebServer, sign_up
from tests.integration.workers import ROOT, WITH_WORKERS, wait_for

KIT = ROOT / "clients" / "python"
EXAMPLE = ROOT / "examples" / "kit_bot.py"
QUICK = {"set_max": 6, "rounds": 1}
WAIT = 30  # seconds: a deadline for what takes well under one


@pytest.fixture
def web_servers(tmp_path: Path) -> Iterator:
    servers: list[WebServer] = []

    def start(redis_url: str | None = None, **options) -> WebServer:
        server = WebServer(tmp_path / f"web{len(servers)}.log", redis_url=redis_url, **options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def until(messages: Iterator[SseMessage], wanted: set[str], what: str) -> dict[str, SseMessage]:
    """Read frames until every event in ``wanted`` has come (the first of each), failing
    after WAIT seconds: keep-alives (every second here) never let the stream go quiet."""
    seen: dict[str, SseMessage] = {}
    deadline = time.monotonic() + WAIT
    for message in messages:
        if message.event in wanted:
            seen.setdefault(message.event, message)
        if wanted <= seen.keys():
            return seen
        if time.monotonic() > deadline:
            break
    pytest.fail(f"the stream did not send {what} within {WAIT} s: had {sorted(seen)}")


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_an_invitee_accepts_over_the_stream_and_is_told_the_table_started(make_player, web_servers, redis_url):
    server = web_servers(redis_url, env={"LIVE_KEEPALIVE_SECONDS": "1"})
    alice, bob = make_player("alice"), make_player("bob")
    alice_token = player_services.token_create(user=alice, name="t").secret
    bob_token = player_services.token_create(user=bob, name="t").secret

    stream = SseClient(server.port, "/api/v1/me/stream/", token=bob_token, timeout=WAIT)
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["challenges"] == []

    status, body = server.request("POST", "/api/v1/challenges/", {"invitees": ["bob"], "ruleset": QUICK}, alice_token)
    assert status == 201, body
    received = until(messages, {"challenge_received"}, "challenge_received")["challenge_received"]
    assert received.data["id"] == body["id"] and received.data["your_invite"] == "pending"
    assert received.id is not None and received.id.startswith(f"challenges.{body['id']}.")

    status, accepted = server.request("POST", f"/api/v1/challenges/{body['id']}/accept/", None, bob_token)
    assert status == 200 and accepted["status"] == "started", accepted
    told = until(messages, {"challenge_started", "game_started"}, "challenge_started and game_started")
    assert told["challenge_started"].data["game"] == accepted["game"]
    assert told["game_started"].data["game"] == accepted["game"] and told["game_started"].data["seat"] == 1
    stream.close()

    # a stream opened now has nothing waiting: the challenge is over, not in the snapshot
    again = SseClient(server.port, "/api/v1/me/stream/", token=bob_token, timeout=WAIT)
    snapshot = next(again.messages())
    assert snapshot.data["challenges"] == [] and [g["game"] for g in snapshot.data["games"]] == [accepted["game"]]
    again.close()


def with_workers(function):  # WITH_WORKERS marks for one test (the first test needs no worker)
    for mark in reversed(WITH_WORKERS):
        function = mark(function)
    return function


@with_workers
def test_the_bot_kit_accepts_a_challenge_and_plays_the_table_to_its_end(
    make_player, start_worker, queue_name, broker_url, redis_url, web_servers, tmp_path
):
    start_worker(beat=True)
    web = web_servers(redis_url, broker_url=broker_url, env={"CELERY_QUEUE": queue_name})
    token = sign_up(web.port, "kitbot")
    alice = make_player("alice")
    # alice never moves: her clock runs out (1 s) and after three timeouts a server bot plays her seat
    challenge = services.challenge_create(creator=alice, invitees=["kitbot"], ruleset=QUICK, turn_time_limit=1)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "chickenfoot_bot",
            "--url",
            f"http://127.0.0.1:{web.port}",
            "--token",
            token,
            "--accept-challenges",
            "--games",
            "1",
            f"{EXAMPLE}:choose",
        ],
        env={**os.environ, "PYTHONPATH": str(KIT)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    log = run.stderr
    assert run.returncode == 0, log
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.STARTED, log
    assert f"accepted challenge {challenge.pk} from alice: started" in log
    assert challenge.game_id is not None
    game = Game.objects.get(pk=challenge.game_id)
    assert game.status == GameStatus.FINISHED, log
    kit_moves = Move.objects.filter(game=game, seat=1)
    assert kit_moves.exists() and set(kit_moves.values_list("source", flat=True)) == {MoveSource.PLAYER}


@with_workers
def test_beat_expires_a_challenge_through_a_real_worker(make_player, start_worker, monkeypatch):
    monkeypatch.setenv("CHALLENGE_EXPIRY_INTERVAL_SECONDS", "0.5")  # the worker's beat reads it
    worker = start_worker(beat=True)
    alice = make_player("alice")
    make_player("bob")
    soon = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK, expires_in=1)
    later = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK, expires_in=3600)
    # nothing here reads through the API (which would expire it lazily): only beat's task can
    wait_for(
        lambda: Challenge.objects.get(pk=soon.pk).status == ChallengeStatus.EXPIRED,
        timeout=WAIT,
        what="beat to expire the challenge",
        explain=lambda: worker.log()[-3000:],
    )
    assert Challenge.objects.get(pk=later.pk).status == ChallengeStatus.PENDING
    assert "challenges.expire" in worker.log()
