"""Live updates: the long-poll, the resumable SSE streams, keep-alives, and the
Redis fan-out between two real web processes. Real PostgreSQL, real Redis, real
uvicorn processes; nothing mocked."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from config.routing import bridged as request_bridged
from games import services
from games.engine import Match
from games.models import Game
from live import streams
from players import services as player_services
from tests.integration.web import SseClient, SseMessage, WebServer
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TWO = {"set_max": 6, "players": 2, "rounds": 1}

# No assertion here is about how fast the machine is. A wait that must end early
# is given a long ``wait`` (LONG_WAIT, the API's maximum) and must end within
# PROMPT - a third of it: "at once" on a loaded machine, and far from what a
# long-poll that did wait would take. A client that must not be answered early
# is held by the server's own timer, never by a sleep in the test.
LONG_WAIT = 30
PROMPT = 10.0


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
    services.move_submit(
        game_id=game_id, player=players[match.turn], move=match.legal_moves()[0].to_dict(), expected_seq=game.seq
    )


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


def in_background(request: Callable[[], Any]) -> Future:
    """Run a test-client request in a daemon thread (the caller goes on; a long-poll
    that never answers becomes a ``TimeoutError`` at ``result(timeout)``)."""
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(request())
        except BaseException as error:
            future.set_exception(error)
        finally:
            connection.close()

    threading.Thread(target=run, daemon=True).start()
    return future


def answer_within(seconds: float, future: Future, what: str) -> Any:
    try:
        return future.result(timeout=seconds)
    except TimeoutError:
        pytest.fail(f"{what}: no answer within {seconds} s")


@pytest.fixture
def no_polling(settings) -> None:
    """Waiters no longer re-read the database every LIVE_POLL_SECONDS_EMBEDDED: only
    a notice (or the end of the wait) wakes a long-poll."""
    settings.LIVE_POLL_SECONDS = settings.LIVE_POLL_SECONDS_EMBEDDED = 600


def test_long_poll_returns_at_once_when_events_exist(make_player, api_client, no_polling):
    game, _ = duel(make_player)
    response = answer_within(
        PROMPT,
        in_background(lambda: api_client.get(f"/api/v1/games/{game.pk}/events/?after=0&wait={LONG_WAIT}")),
        f"a long-poll (wait={LONG_WAIT}) on a game that has events",
    )
    assert response.status_code == 200
    body = response.json()
    assert [e["seq"] for e in body["events"]] == list(range(1, game.seq + 1))
    assert body["status"] == "running"


def test_long_poll_returns_empty_after_the_wait(make_player, api_client, no_polling):
    game, _ = duel(make_player)
    started = time.monotonic()
    response = answer_within(
        1 + PROMPT,
        in_background(lambda: api_client.get(f"/api/v1/games/{game.pk}/events/?after={game.seq}&wait=1")),
        "a long-poll with wait=1 and nothing happening",
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert response.json()["events"] == []
    assert elapsed >= 1.0, f"answered after {elapsed:.2f} s, before its wait ran out"  # the server's own timer


def test_long_poll_wakes_on_a_new_move(make_player, token_client, no_polling, monkeypatch):
    game, players = duel(make_player)
    client = token_client(players[1])
    waiting = threading.Event()
    real_wait = streams._wait

    async def wait_and_tell(wake, seconds):  # the long-poll has read the game, found nothing, and now waits
        waiting.set()
        await real_wait(wake, seconds)

    monkeypatch.setattr(streams, "_wait", wait_and_tell)
    answer = in_background(lambda: client.get(f"/api/v1/games/{game.pk}/events/?after={game.seq}&wait={LONG_WAIT}"))
    assert waiting.wait(PROMPT), "the long-poll never started waiting"
    move_once(game.pk, players)
    # Not polling, it can only answer now if the move's notice woke it (else at the end of its wait).
    response = answer_within(PROMPT, answer, f"a waiting long-poll (wait={LONG_WAIT}) after a move")
    events = response.json()["events"]
    assert events and events[0]["seq"] == game.seq + 1
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
        server = WebServer(
            tmp_path / f"web{len(servers)}.log", redis_url=redis_url, env={"LIVE_KEEPALIVE_SECONDS": "1", **env}
        )
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def token_of(user) -> str:
    return player_services.token_create(user=user, name="stream").secret


def within(seconds: float, messages: Iterator[SseMessage]) -> Iterator[SseMessage]:
    """``messages``, failing the test once ``seconds`` have passed: a stream that keeps
    sending keep-alives never times out by itself, so a missing event would hang the test."""
    deadline = time.monotonic() + seconds
    for message in messages:
        yield message
        if time.monotonic() > deadline:
            pytest.fail(f"the stream did not send what the test waits for within {seconds} s")


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
    seen: list[SseMessage] = []
    keepalive = None
    for message in within(30, messages):
        if message.comment == "keep-alive":
            keepalive = message
            if seen:
                break
        elif message.id is not None:
            seen.append(message)
    stream.close()
    assert keepalive is not None
    assert [int(m.id or -1) for m in seen] == list(range(game.seq + 1, int(seen[-1].id or -1) + 1))
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
    for message in within(30, messages):
        if message.id is not None:
            received.append(int(message.id))
            break
    first.close()
    for _ in range(3):  # the game moves on while the client is away
        move_once(game.pk, players)
    final_seq = Game.objects.get(pk=game.pk).seq

    again = SseClient(
        server.port, f"/api/v1/games/{game.pk}/stream/", token=token_of(players[0]), last_event_id=str(received[-1])
    )
    messages = again.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["game"]["seq"] == final_seq
    for message in within(30, messages):
        if message.id is not None:
            received.append(int(message.id))
            if received[-1] == final_seq:
                break
    again.close()
    assert received == list(range(received[0], final_seq + 1))


def test_stream_takes_a_last_event_id_beyond_the_game_as_its_seq(make_player, web_servers):
    """An id the game has not reached (the contract allows any ten digits): the
    snapshot, then the game's next event, as if the id were the game's seq."""
    server = web_servers()
    game, players = duel(make_player)
    stream = SseClient(
        server.port, f"/api/v1/games/{game.pk}/stream/", token=token_of(players[0]), last_event_id="9999999999"
    )
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["game"]["seq"] == game.seq
    move_once(game.pk, players)
    for message in within(30, messages):
        if message.id is not None:
            assert int(message.id) == game.seq + 1
            break
    stream.close()


def post_move(server: WebServer, game_id: int, players: dict) -> int:
    """The seat to move makes its first legal move over HTTP, through ``server``; the game's seq after it."""
    match = Match.from_dict(Game.objects.get(pk=game_id).state)
    token = token_of(players[match.turn])
    status, view = server.request("GET", f"/api/v1/games/{game_id}/", token=token)
    assert status == 200, view
    status, body = server.request(
        "POST",
        f"/api/v1/games/{game_id}/moves/",
        {**view["you"]["legal_moves"][0], "expected_seq": view["game"]["seq"]},
        token=token,
    )
    assert status == 201, body
    return Game.objects.get(pk=game_id).seq


def ids_until(messages: Iterator[SseMessage], seq: int, what: str) -> list[int]:
    """The event ids the stream sends, up to ``seq``; fails if it falls silent for the client's timeout."""
    ids: list[int] = []
    try:
        for message in messages:
            if message.id is not None:
                ids.append(int(message.id))
                if ids[-1] >= seq:
                    return ids
    except TimeoutError:
        pytest.fail(f"{what}: the stream fell silent after ids {ids}, before seq {seq}")
    pytest.fail(f"{what}: the stream ended after ids {ids}, before seq {seq}")


@pytest.mark.redis
def test_a_move_posted_to_one_web_process_reaches_a_stream_on_another(make_player, web_servers, redis_url):
    # b re-reads the database and sends keep-alives only every 600 s, and the client gives up
    # after 20 s of silence: only a notice through Redis can bring b's stream a move made on a.
    quiet = {"LIVE_POLL_SECONDS": "600", "LIVE_POLL_SECONDS_EMBEDDED": "600", "LIVE_KEEPALIVE_SECONDS": "600"}
    a = web_servers(redis_url, **quiet)
    b = web_servers(redis_url, **quiet)
    game, players = duel(make_player)
    stream = SseClient(b.port, f"/api/v1/games/{game.pk}/stream/", token=token_of(players[1]), timeout=20)
    messages = stream.messages()
    next(messages)
    # b subscribes to Redis when its first waiter (this stream) arrives, and re-reads once when the
    # subscription is live. The first move may reach the stream that way; once it has, b is
    # subscribed, and the second move can only arrive as a notice published by a.
    first = post_move(a, game.pk, players)
    received = ids_until(messages, first, "the first move, made on a")
    second = post_move(a, game.pk, players)
    received += ids_until(messages, second, "the second move, made on a once b was subscribed")
    stream.close()
    assert received == list(range(game.seq + 1, second + 1))


@pytest.mark.redis
def test_account_stream_says_your_turn(make_player, web_servers, redis_url, settings):
    server = web_servers(redis_url)
    # The moves below are made in this process: their notices reach the server through
    # Redis, as a worker's or another web process's would (the server re-reads only
    # every LIVE_POLL_SECONDS while it hears Redis).
    settings.REDIS_URL = redis_url
    game, players = duel(make_player)
    match = Match.from_dict(game.state)
    waiting = players[1 - match.turn]
    stream = SseClient(server.port, "/api/v1/me/stream/", token=token_of(waiting))
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot"
    assert [g["game"] for g in snapshot.data["games"]] == [game.pk]
    assert snapshot.data["games"][0]["your_turn"] is False
    while Game.objects.get(pk=game.pk).turn_seat == match.turn:  # the other seat moves (and plays on after a draw)
        move_once(game.pk, players)
    event = next(m for m in within(30, messages) if m.event == "your_turn")
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
    pages = [
        c.get(f"/api/v1/games/{game.pk}/events/").json()["events"]
        for c in (api_client, token_client(players[0]), token_client(make_player("carol")))
    ]
    assert pages[0] == pages[1] == pages[2]
    assert all("tile" not in e["data"] for e in pages[0] if e["type"] == "drew")
    assert_no_hidden_tile(pages[0], hidden_tiles(game.pk, seat=None))
    json.dumps(pages)


def tcp_sockets() -> dict[tuple[int, int], tuple[int, int]]:
    """(local port, remote port) -> (bytes not yet acknowledged by the peer, bytes not
    yet read by the process) of this machine's established IPv4 TCP sockets (Linux)."""
    sockets = {}
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            _, local, remote, state, queues, *_ = line.split()
            if state == "01":  # ESTABLISHED
                unsent, unread = (int(n, 16) for n in queues.split(":"))
                sockets[(int(local.rsplit(":", 1)[1], 16), int(remote.rsplit(":", 1)[1], 16))] = (unsent, unread)
    return sockets


def server_has_read(port: int, client_ports: list[int]) -> bool:
    """Has the server on ``port`` taken in the request of each client connection: its
    kernel acknowledged every byte sent, and its process read them all?"""
    sockets = tcp_sockets()
    return all(
        (client, port) in sockets
        and (port, client) in sockets
        and sockets[(client, port)][0] == 0
        and sockets[(port, client)][1] == 0
        for client in client_ports
    )


def test_waiting_clients_do_not_hold_up_the_rest_api(make_player, web_servers):
    """Twenty long-polls - more than the web process's WSGI threads - wait on the
    event loop, so a move and a read are still answered while they wait."""
    server = web_servers()
    game, players = duel(make_player)
    wait = 20
    waiters = []
    for _ in range(20):
        waiter = http.client.HTTPConnection("127.0.0.1", server.port, timeout=wait + 30)
        waiter.request("GET", f"/api/v1/games/{game.pk}/events/?after={game.seq}&wait={wait}")
        waiters.append(waiter)
    # All twenty requests are inside the server (which answers none of them before a move or the end of the wait).
    wait_for(
        lambda: server_has_read(server.port, [w.sock.getsockname()[1] for w in waiters]),
        PROMPT,
        what="the server to read the twenty long-polls",
    )

    started = time.monotonic()
    try:
        seq = post_move(server, game.pk, players)  # a read and a move
    except TimeoutError:
        pytest.fail("a read and a move behind 20 waiting clients got no answer within 30 s")
    elapsed = time.monotonic() - started
    answers = []
    for waiter in waiters:
        response = waiter.getresponse()
        answers.append((response.status, json.loads(response.read())))
        waiter.close()
    # Had the waiters held the threads, the read would only have been served once they gave up,
    # and they would have answered empty lists.
    assert elapsed < PROMPT, f"a read and a move took {elapsed:.2f} s behind 20 waiting clients"
    assert [status for status, _ in answers] == [200] * 20
    assert all([e["seq"] for e in body["events"]] == list(range(game.seq + 1, seq + 1)) for _, body in answers), [
        body["events"] for _, body in answers
    ]


@pytest.mark.parametrize(
    ("path", "query", "headers", "bridged"),
    [
        ("/api/v1/games/7/stream/", b"", [], True),
        ("/api/v1/me/stream/", b"", [(b"content-length", b"0")], True),
        ("/api/v1/games/7/stream/", b"", [(b"content-length", b"5")], False),
        ("/api/v1/games/7/stream/", b"", [(b"transfer-encoding", b"chunked")], False),
        ("/api/v1/games/7/events/", b"after=3&wait=20", [], False),
        ("/api/v1/games/7/events/", b"after=3", [], True),
        ("/api/v1/games/7/moves/", b"", [(b"content-length", b"50")], True),
        ("/admin/", b"", [], True),
    ],
)
def test_only_long_polls_and_streams_with_a_body_take_the_async_handler(path, query, headers, bridged):
    """Long-polls wait in Django's ASGI handler; a stream's request goes through the
    bridge (which drives the stream on the loop), unless it has a body: a2wsgi,
    which the bridge hands bodies to, would buffer the stream whole."""
    assert request_bridged({"type": "http", "path": path, "query_string": query, "headers": headers}) is bridged
