"""Live updates: the long-poll, the resumable SSE streams, keep-alives, and the
Redis fan-out between two real web processes. Real PostgreSQL, real Redis, real
uvicorn processes; nothing mocked."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from games import services
from games.engine import Match
from games.models import Game
from players import services as player_services
from tests.integration.web import SseClient, WebServer

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TWO = {"set_max": 6, "players": 2, "rounds": 1}


def duel(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset=TWO)
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    return Game.objects.get(pk=game.pk), {0: alice, 1: bob}


def move_once(game_id: int, players: dict) -> None:
    """The seat to move makes its first legal move (through the same service as the API)."""
    game = Game.objects.get(pk=game_id)
    match = Match.from_dict(game.state)
    services.move_submit(game_id=game_id, player=players[match.turn], move=match.legal_moves()[0].to_dict(),
                         expected_seq=game.seq)


def hidden_tiles(game_id: int, seat: int | None) -> set[str]:
    """Tiles the viewer may not see right now: other hands and the boneyard."""
    match = Match.from_dict(Game.objects.get(pk=game_id).state)
    hands = [h for s, h in enumerate(match.to_dict()["hands"]) if s != seat]
    return {t for h in hands for t in h} | set(match.to_dict()["boneyard"])


def assert_no_hidden_tile(payload, hidden: set[str]) -> None:
    """No ``tile`` field and no hand-like list in ``payload`` names a hidden tile."""
    def walk(node, key=None):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            if key in ("hand", "hands", "boneyard"):
                flat = [t for x in node for t in (x if isinstance(x, list) else [x])]
                assert not (set(flat) & hidden), f"{key} shows hidden tiles {set(flat) & hidden}"
            for v in node:
                walk(v, key)
        elif key in ("tile", "drawn_tile") and isinstance(node, str):
            assert node not in hidden, f"hidden tile {node} shown in {key}"
    walk(payload)


# -- long-poll (in process: Django's test client runs the async view) -----------------

def test_long_poll_returns_at_once_when_events_exist(make_player, api_client):
    game, _ = duel(make_player)
    started = time.monotonic()
    response = api_client.get(f"/api/v1/games/{game.pk}/events/?after=0&wait=10")
    assert response.status_code == 200
    assert time.monotonic() - started < 1.0
    body = response.json()
    assert [e["seq"] for e in body["events"]] == list(range(1, game.seq + 1))
    assert body["status"] == "running"


def test_long_poll_returns_empty_after_the_wait(make_player, api_client):
    game, _ = duel(make_player)
    started = time.monotonic()
    response = api_client.get(f"/api/v1/games/{game.pk}/events/?after={game.seq}&wait=0.6")
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert response.json()["events"] == []
    assert 0.6 <= elapsed < 2.0


def test_long_poll_wakes_on_a_new_move(make_player, token_client):
    game, players = duel(make_player)
    client = token_client(players[1])
    timer = threading.Timer(0.4, move_once, args=(game.pk, players))
    started = time.monotonic()
    timer.start()
    response = client.get(f"/api/v1/games/{game.pk}/events/?after={game.seq}&wait=20")
    elapsed = time.monotonic() - started
    timer.join()
    events = response.json()["events"]
    assert events and events[0]["seq"] == game.seq + 1
    assert 0.3 < elapsed < 1.5, f"woke after {elapsed:.2f} s"
    assert_no_hidden_tile(response.json(), hidden_tiles(game.pk, seat=1))


def test_long_poll_refuses_bad_input(make_player, api_client):
    game, _ = duel(make_player)
    assert api_client.get(f"/api/v1/games/{game.pk}/events/?wait=31").json()["code"] == "validation_error"
    assert api_client.get(f"/api/v1/games/{game.pk}/events/?after=-1").json()["code"] == "validation_error"
    assert api_client.get("/api/v1/games/999999/events/?wait=1").json()["code"] == "not_found"


# -- streams over real web processes ---------------------------------------------------

@pytest.fixture
def web_servers(tmp_path: Path):
    servers: list[WebServer] = []

    def start(redis_url: str | None = None, **env: str) -> WebServer:
        server = WebServer(tmp_path / f"web{len(servers)}.log", redis_url=redis_url,
                           env={"LIVE_KEEPALIVE_SECONDS": "1", **env})
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def token_of(user) -> str:
    return player_services.token_create(user=user, name="stream").secret


def test_stream_sends_snapshot_then_events_and_keepalives(make_player, web_servers):
    server = web_servers()
    game, players = duel(make_player)
    stream = SseClient(server.port, f"/api/v1/games/{game.pk}/stream/", token=token_of(players[1]))
    assert stream.status == 200 and stream.content_type.startswith("text/event-stream")
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.id is None
    assert snapshot.data["game"]["seq"] == game.seq
    assert snapshot.data["you"]["hand"] == Match.from_dict(game.state).to_dict()["hands"][1]
    assert_no_hidden_tile(snapshot.data, hidden_tiles(game.pk, seat=1))

    move_once(game.pk, players)
    seen, keepalive = [], None
    for message in messages:
        if message.comment == "keep-alive":
            keepalive = message
            if seen:
                break
        elif message.id is not None:
            seen.append(message)
    stream.close()
    assert keepalive is not None
    assert [int(m.id) for m in seen] == list(range(game.seq + 1, int(seen[-1].id) + 1))
    assert all(m.event == m.data["type"] for m in seen)
    for message in seen:
        assert_no_hidden_tile(message.data, hidden_tiles(game.pk, seat=1))


def test_stream_resumes_from_last_event_id_without_gap_or_duplicate(make_player, web_servers):
    server = web_servers()
    game, players = duel(make_player)
    first = SseClient(server.port, f"/api/v1/games/{game.pk}/stream/?", token=token_of(players[0]))
    messages = first.messages()
    next(messages)  # snapshot
    move_once(game.pk, players)
    received = []
    for message in messages:
        if message.id is not None:
            received.append(int(message.id))
            break
    first.close()
    for _ in range(3):  # the game moves on while the client is away
        move_once(game.pk, players)
    final_seq = Game.objects.get(pk=game.pk).seq

    again = SseClient(server.port, f"/api/v1/games/{game.pk}/stream/", token=token_of(players[0]),
                      last_event_id=str(received[-1]))
    messages = again.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["game"]["seq"] == final_seq
    for message in messages:
        if message.id is not None:
            received.append(int(message.id))
            if received[-1] == final_seq:
                break
    again.close()
    assert received == list(range(received[0], final_seq + 1))


def test_stream_refuses_a_last_event_id_beyond_the_game(make_player, web_servers):
    server = web_servers()
    game, _ = duel(make_player)
    status, body = server.request("GET", f"/api/v1/games/{game.pk}/stream/?last_event_id={game.seq + 5}")
    assert status == 400 and body["code"] == "validation_error"


@pytest.mark.redis
def test_a_move_posted_to_one_web_process_reaches_a_stream_on_another(make_player, web_servers, redis_url):
    # Polling is set to 60 s: only the Redis fan-out can deliver the event in time.
    a = web_servers(redis_url, LIVE_POLL_SECONDS="60")
    b = web_servers(redis_url, LIVE_POLL_SECONDS="60")
    game, players = duel(make_player)
    stream = SseClient(b.port, f"/api/v1/games/{game.pk}/stream/", token=token_of(players[1]))
    messages = stream.messages()
    next(messages)
    match = Match.from_dict(Game.objects.get(pk=game.pk).state)
    token = token_of(players[match.turn])
    status, view = a.request("GET", f"/api/v1/games/{game.pk}/", token=token)
    posted = time.monotonic()
    status, _ = a.request("POST", f"/api/v1/games/{game.pk}/moves/",
                          {**view["you"]["legal_moves"][0], "expected_seq": view["game"]["seq"]}, token=token)
    assert status == 201
    message = next(m for m in messages if m.id is not None)
    stream.close()
    assert int(message.id) == game.seq + 1
    assert message.received - posted < 1.0


@pytest.mark.redis
def test_account_stream_says_your_turn(make_player, web_servers, redis_url):
    server = web_servers(redis_url)
    game, players = duel(make_player)
    match = Match.from_dict(game.state)
    waiting = players[1 - match.turn]
    stream = SseClient(server.port, "/api/v1/me/stream/", token=token_of(waiting))
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot"
    assert [g["game"] for g in snapshot.data["games"]] == [game.pk]
    assert snapshot.data["games"][0]["your_turn"] is False
    move_once(game.pk, players)  # the other seat moves; now (unless it drew and may play on) it is ours
    game = Game.objects.get(pk=game.pk)
    if game.turn_seat == 1 - match.turn:
        event = next(m for m in messages if m.event == "your_turn")
        assert event.data["game"] == game.pk and event.data["your_turn"] is True
    stream.close()


def test_account_stream_needs_authentication(web_servers):
    server = web_servers()
    status, body = server.request("GET", "/api/v1/me/stream/")
    assert status == 401 and body["code"] == "not_authenticated"


def test_events_are_the_same_for_every_viewer(make_player, api_client, token_client):
    """Redaction: event payloads are public by construction - a seated player, a
    stranger and an anonymous client get identical event lists, none naming a
    drawn tile."""
    game, players = duel(make_player)
    for _ in range(6):
        move_once(game.pk, players)
    pages = [c.get(f"/api/v1/games/{game.pk}/events/").json()["events"]
             for c in (api_client, token_client(players[0]), token_client(make_player("carol")))]
    assert pages[0] == pages[1] == pages[2]
    assert all("tile" not in e["data"] for e in pages[0] if e["type"] == "drew")
    assert_no_hidden_tile(pages[0], hidden_tiles(game.pk, seat=None))
    json.dumps(pages)


def test_waiting_clients_do_not_hold_up_the_rest_api(make_player, web_servers):
    """Twenty long-polls - more than the web process's WSGI threads - wait on the
    event loop, so a move and a read are still answered at once."""
    server = web_servers()
    game, players = duel(make_player)
    answers: list[tuple[int, float]] = []

    def wait() -> None:
        started = time.monotonic()
        status, _ = server.request("GET", f"/api/v1/games/{game.pk}/events/?after={game.seq}&wait=4")
        answers.append((status, time.monotonic() - started))

    waiters = [threading.Thread(target=wait) for _ in range(20)]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.5)
    match = Match.from_dict(Game.objects.get(pk=game.pk).state)
    token = token_of(players[match.turn])
    started = time.monotonic()
    status, view = server.request("GET", f"/api/v1/games/{game.pk}/", token=token)
    status, _ = server.request("POST", f"/api/v1/games/{game.pk}/moves/",
                               {**view["you"]["legal_moves"][0], "expected_seq": view["game"]["seq"]}, token=token)
    elapsed = time.monotonic() - started
    for waiter in waiters:
        waiter.join(10)
    assert status == 201
    assert elapsed < 1.0, f"a read and a move took {elapsed:.2f} s behind 20 waiting clients"
    assert len(answers) == 20 and all(status == 200 for status, _ in answers)
    assert min(seconds for _, seconds in answers) > 0.5  # they did wait (until the move woke them)


@pytest.mark.parametrize(("path", "query", "waits"), [
    ("/api/v1/games/7/stream/", b"", True),
    ("/api/v1/me/stream/", b"", True),
    ("/api/v1/games/7/events/", b"after=3&wait=20", True),
    ("/api/v1/games/7/events/", b"after=3", False),
    ("/api/v1/games/7/moves/", b"", False),
    ("/admin/", b"", False),
])
def test_only_waiting_requests_take_the_async_handler(path, query, waits):
    from config.asgi import waits as request_waits

    assert request_waits({"type": "http", "path": path, "query_string": query}) is waits
