"""A browser stops reconnecting to a game's stream once the game is over.

Server-Sent Events have one way for a server to make a client stop: answer its
reconnect with ``204 No Content``. The game stream does that when a client comes
back with ``Last-Event-ID`` equal to the game's last seq and the game is over
(finished or aborted). Before, a browser's ``EventSource`` reconnected every 2 s
(the stream's ``retry: 2000``) after ``event: end``, for as long as the page was
open, and got ``snapshot`` and ``end`` again each time.

The browser test runs headless Chromium's own ``EventSource`` (nothing of it is
simulated) against the production web server (gunicorn + uvicorn), while server
bots play a whole match in a real Celery worker, on PostgreSQL and Redis; the
server's access log counts the requests the browser made, and Chrome's network
log shows what it sent. The other tests check the same answers over plain HTTP.

Chromium comes from Debian's ``chromium`` and ``chromium-driver`` (``.ci/run``
installs them); without them the browser tests are skipped, saying why, except
under ``CI=true``, where that is a failure (as in tests/moderation/test_admin_browser.py).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.sse import RETRY_MS
from games import services
from games.models import Game, GameStatus
from games.serializers import ALL_EVENT_TYPES
from players import services as player_services
from tests.integration.web import SseClient, SseMessage, WebServer, logged_events
from tests.integration.workers import wait_for
from tests.moderation.test_admin_browser import CHROMIUM_FLAGS, _missing_browser
from tests.openapi_check import OPENAPI_PATH
from tests.services import in_ci

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RETRY_SECONDS = RETRY_MS / 1000
MATCH_SECONDS = 120  # two bots play one round of double-6 in a few seconds; the deadline is far from it
STREAM_SECONDS = 30  # how long a test waits for what a stream must send or do
QUIET_SECONDS = 3 * RETRY_SECONDS  # after CLOSED, three reconnect delays with no new request
TWO_BOTS = {"set_max": 6, "players": 2, "rounds": 1}
# A practice deal: seat 0 places the 6-6 spinner at the start; seat 1, to move, goes
# out with 6-1, which ends the round and (one round) the match.
ONE_MOVE_SETUP = {"hands": [["6-6", "5-5"], ["6-1"]]}
LAST_MOVE = {"type": "play", "tile": "6-1", "end": "e1"}


def stream_path(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/stream/"


def token_of(user: Any) -> str:
    return player_services.token_create(user=user, name="stream").secret


# -- over HTTP (no browser) -----------------------------------------------------------


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebServer]:
    server = WebServer(tmp_path / "web.log", redis_url=None)
    yield server
    server.stop()


def within(seconds: float, messages: Iterator[SseMessage]) -> Iterator[SseMessage]:
    """``messages`` without keep-alives, failing the test once ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    for message in messages:
        if message.comment is None:
            yield message
        if time.monotonic() > deadline:
            pytest.fail(f"the stream did not send what the test waits for within {seconds} s")


def read_to_the_end(stream: SseClient, what: str, messages: Iterator[SseMessage] | None = None) -> list[SseMessage]:
    """Every (further) message of ``stream`` until the server closes it (a stream of a game
    that is over closes after ``end``; one that stays open fails the test)."""
    try:
        return list(within(STREAM_SECONDS, stream.messages()) if messages is None else messages)
    except TimeoutError:
        pytest.fail(f"{what}: the stream fell silent and stayed open")
    finally:
        stream.close()


def reconnect(port: int, game_id: int, last_event_id: int, *, query: bool = False) -> SseClient:
    """Reconnect as a client that got event ``last_event_id``: with the Last-Event-ID
    header, as EventSource does, or with ``?last_event_id=`` (clients that cannot set it)."""
    if query:
        return SseClient(port, f"{stream_path(game_id)}?last_event_id={last_event_id}")
    return SseClient(port, stream_path(game_id), last_event_id=str(last_event_id))


def assert_no_content(stream: SseClient) -> None:
    try:
        body = stream.response.read()
    finally:
        stream.close()
    assert (stream.status, body) == (204, b""), (stream.status, body[:500])
    assert not stream.content_type.startswith("text/event-stream")


def assert_resumed(messages: list[SseMessage], events: list[dict[str, Any]], status: str) -> None:
    """``messages``: the snapshot, exactly ``events`` (with their seqs as ids), then ``end``."""
    assert [m.event for m in messages] == ["snapshot", *(e["type"] for e in events), "end"]
    assert messages[0].id is None
    assert [m.data for m in messages[1:-1]] == events
    assert [m.id for m in messages[1:-1]] == [str(e["seq"]) for e in events]
    assert messages[-1].data == {"seq": events[-1]["seq"], "status": status}


def test_a_stream_stays_open_while_the_game_runs_and_answers_204_once_the_client_has_its_end(make_player, web):
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset=TWO_BOTS, setup=ONE_MOVE_SETUP)
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    running = Game.objects.get(pk=game.pk)
    assert (running.status, running.turn_seat) == (GameStatus.RUNNING, 1)

    # Running, and the client has every event so far: a stream (200), not 204; it stays open
    # (the last move is only made once its snapshot came), brings that move's events and `end`,
    # then closes.
    live = reconnect(web.port, game.pk, running.seq)
    assert live.status == 200 and live.content_type.startswith("text/event-stream")
    messages = within(STREAM_SECONDS, live.messages())
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["game"]["seq"] == running.seq
    bob_token = token_of(bob)
    status, body = web.request(
        "POST", f"/api/v1/games/{game.pk}/moves/", {**LAST_MOVE, "expected_seq": running.seq}, token=bob_token
    )
    assert status == 201, body
    finished = Game.objects.get(pk=game.pk)
    assert finished.status == GameStatus.FINISHED
    rest = logged_events(web.port, game.pk, after=running.seq)
    assert [e["seq"] for e in rest] == list(range(running.seq + 1, finished.seq + 1))
    assert_resumed([snapshot, *read_to_the_end(live, "the running game's stream", messages)], rest, "finished")

    # Over, and the client has the last event: 204, nothing else; the header and the query
    # parameter alike.
    assert_no_content(reconnect(web.port, game.pk, finished.seq))
    assert_no_content(reconnect(web.port, game.pk, finished.seq, query=True))

    # Over, but the client missed events: the rest of them, then `end`, then the stream closes.
    for last in (running.seq, finished.seq - 1):
        again = reconnect(web.port, game.pk, last)
        assert again.status == 200
        resumed = read_to_the_end(again, f"resumed after {last}")
        assert resumed[0].data["game"]["status"] == "finished"
        assert_resumed(resumed, rest[last - running.seq :], "finished")

    # A first connect (no Last-Event-ID) to a finished game: its snapshot and `end`.
    first = SseClient(web.port, stream_path(game.pk))
    assert first.status == 200
    assert [m.event for m in read_to_the_end(first, "a first connect")] == ["snapshot", "end"]


def test_the_contract_documents_the_204() -> None:
    operation = next(
        o
        for methods in yaml.safe_load(OPENAPI_PATH.read_text())["paths"].values()
        for o in methods.values()
        if isinstance(o, dict) and o.get("operationId") == "games_stream"
    )
    assert "content" not in operation["responses"]["204"]


def test_an_aborted_game_answers_204_to_a_client_that_has_its_last_event(make_player, web):
    alice = make_player("alice")
    game = services.game_create(creator=alice, ruleset=TWO_BOTS)
    status, body = web.request(
        "POST", f"/api/v1/games/{game.pk}/abort/", {"reason": "nobody came"}, token=token_of(alice)
    )
    assert status == 200, body
    aborted = Game.objects.get(pk=game.pk)
    assert aborted.status == GameStatus.ABORTED

    assert_no_content(reconnect(web.port, game.pk, aborted.seq))
    assert_no_content(reconnect(web.port, game.pk, aborted.seq, query=True))

    again = reconnect(web.port, game.pk, aborted.seq - 1)
    assert again.status == 200
    events = logged_events(web.port, game.pk, after=aborted.seq - 1)
    assert [e["type"] for e in events] == ["game_aborted"]
    assert_resumed(read_to_the_end(again, "the aborted game's stream"), events, "aborted")


def test_an_open_game_is_no_reason_for_204(make_player, web):
    """Open (not over) and the client has every event: a stream that stays open."""
    game = services.game_create(creator=make_player("alice"), ruleset=TWO_BOTS)
    stream = reconnect(web.port, game.pk, Game.objects.get(pk=game.pk).seq)
    try:
        assert stream.status == 200 and stream.content_type.startswith("text/event-stream")
        assert next(within(STREAM_SECONDS, stream.messages())).event == "snapshot"
    finally:
        stream.close()


# -- in a real browser ------------------------------------------------------------------

# Opens the stream with the page's own EventSource and records, in window.record, every
# message of every event type (a named event reaches only its own listener, not
# onmessage), every `open` and `error` with the readyState it left, and each change of
# readyState (sampled every 10 ms, and at each event).
RECORDER = """
const [url, types] = arguments;
const record = {messages: [], opens: 0, errors: [], states: []};
const source = new EventSource(url);
window.record = record;
window.source = source;
const sample = () => {
  const last = record.states[record.states.length - 1];
  if (last === undefined || last[0] !== source.readyState) record.states.push([source.readyState, performance.now()]);
};
sample();
setInterval(sample, 10);
source.addEventListener('open', () => { sample(); record.opens += 1; });
source.addEventListener('error', () => { sample(); record.errors.push(source.readyState); });
const message = (event) => {
  sample();
  record.messages.push({type: event.type, id: event.lastEventId, data: event.data, at: performance.now()});
};
for (const type of types) source.addEventListener(type, message);
source.onmessage = message;
"""
CONNECTING, OPEN, CLOSED = 0, 1, 2
ACCESS_LINE = re.compile(r'"GET (?P<path>\S+) HTTP/[\d.]+" (?P<status>\d{3})')


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium that keeps its network log (``driver.get_log("performance")``)."""
    problem = _missing_browser()
    if problem:
        if in_ci():
            pytest.fail(f"CI=true and the browser test cannot run: {problem}")
        pytest.skip(f"needs headless Chromium: {problem}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(STREAM_SECONDS)
    try:
        yield driver
    finally:
        driver.quit()


class StreamRequests:
    """The game stream's requests as the server's access log has them (path, status), and
    as Chrome's network log has them (the Last-Event-ID it sent, the status it got)."""

    def __init__(self, access_log: Path, driver: Any, game_id: int) -> None:
        self.access_log = access_log
        self.driver = driver
        self.path = stream_path(game_id)
        self.order: list[str] = []  # Chrome's ids of the stream's requests
        self.headers: dict[str, dict[str, str]] = {}  # request id -> the headers sent
        self.statuses: dict[str, int] = {}  # request id -> the status received

    def served(self) -> list[tuple[str, int]]:
        text = self.access_log.read_text(errors="replace") if self.access_log.exists() else ""
        return [
            (m["path"], int(m["status"])) for m in ACCESS_LINE.finditer(text) if m["path"].split("?", 1)[0] == self.path
        ]

    def sent(self) -> list[dict[str, Any]]:
        """What the browser sent and got, request by request, in order. The headers as they
        went on the wire come in ``requestWillBeSentExtraInfo`` (the EventSource's own
        Last-Event-ID is not among ``requestWillBeSent``'s), which may come first."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if method == "Network.requestWillBeSent" and self.path in params["request"]["url"]:
                self.order.append(params["requestId"])
            elif method == "Network.requestWillBeSentExtraInfo":
                self.headers[params["requestId"]] = {k.lower(): v for k, v in params["headers"].items()}
            elif method == "Network.responseReceived":
                self.statuses[params["requestId"]] = params["response"]["status"]
        return [
            {"last_event_id": self.headers.get(r, {}).get("last-event-id"), "status": self.statuses.get(r)}
            for r in self.order
        ]


@pytest.fixture
def live_stack(
    make_player: Callable[..., Any], start_worker: Callable[..., Any], redis_url: str, broker_url: str, tmp_path: Path
) -> Iterator[tuple[WebServer, Path]]:
    """A worker (it plays the bots), and the web server with its access log."""
    start_worker()
    access_log = tmp_path / "access.log"
    server = WebServer(
        tmp_path / "web.log",
        redis_url=redis_url,
        broker_url=broker_url,
        env={"GUNICORN_CMD_ARGS": f"--access-logfile {access_log}"},
    )
    yield server, access_log
    server.stop()


def browser_state(driver: Any) -> dict[str, Any]:
    return driver.execute_script("return {...window.record, readyState: window.source.readyState}")


def describe(state: dict[str, Any], requests: StreamRequests) -> str:
    """What a failure shows: the browser's record (messages by type and id), the requests."""
    messages = " ".join(f"{m['type']}#{m['id']}" for m in state["messages"])
    return (
        f"browser: readyState {state['readyState']}, {state['opens']} open(s), errors at readyStates "
        f"{state['errors']}, readyStates {[s for s, _ in state['states']]}\nmessages: {messages}\n"
        f"served (access log): {requests.served()}\nsent (Chrome): {requests.sent()}"
    )


@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.parametrize("from_seq_0", [False, True], ids=["opened-on-the-open-table", "from-seq-0"])
def test_a_browser_gets_the_whole_match_then_stops_reconnecting(
    chromium: Any, live_stack: tuple[WebServer, Path], make_player: Callable[..., Any], from_seq_0: bool
) -> None:
    server, access_log = live_stack
    host = make_player("host")
    game = services.game_create(creator=host, ruleset=TWO_BOTS, sit=False)
    for strategy in ("greedy", "random"):
        services.game_add_bot(game_id=game.pk, by=host, strategy=strategy)
    lobby_seq = Game.objects.get(pk=game.pk).seq
    # With ?last_event_id=0 (what a page that cannot set headers sends) the stream starts at
    # the first event; on reconnecting, the browser's own Last-Event-ID header wins over it.
    url = stream_path(game.pk) + ("?last_event_id=0" if from_seq_0 else "")
    first_id = 1 if from_seq_0 else lobby_seq + 1

    chromium.get(f"http://127.0.0.1:{server.port}/api/v1/bots/")  # any page of the server's origin
    chromium.execute_script(RECORDER, url, ["snapshot", "end", *sorted(ALL_EVENT_TYPES)])
    requests = StreamRequests(access_log, chromium, game.pk)

    def explain() -> str:
        return describe(browser_state(chromium), requests)

    # The snapshot came: the server is subscribed to the game; only now do the bots start.
    wait_for(
        lambda: browser_state(chromium)["messages"], STREAM_SECONDS, what="the snapshot in the browser", explain=explain
    )
    services.game_start(game_id=game.pk, by=host)

    def ended() -> bool:
        return any(m["type"] == "end" for m in browser_state(chromium)["messages"])

    wait_for(ended, MATCH_SECONDS, what="the match to end in the browser", explain=explain)
    final = Game.objects.get(pk=game.pk)
    assert final.status == GameStatus.FINISHED
    # After `end` the browser reconnects (after retry: 2000) and gets 204: EventSource gives up.
    wait_for(
        lambda: browser_state(chromium)["readyState"] == CLOSED,
        STREAM_SECONDS,
        what="EventSource to be CLOSED after the end",
        explain=explain,
    )

    # Three reconnect delays more: no new connection, no new request.
    quiet_until = time.monotonic() + QUIET_SECONDS
    while time.monotonic() < quiet_until:
        state = browser_state(chromium)
        assert (state["readyState"], state["opens"], len(requests.served())) == (CLOSED, 1, 2), explain()
        time.sleep(0.25)
    state = browser_state(chromium)

    # Every event of the log, once, in order, no gap - the same JSON the events API serves.
    logged = logged_events(server.port, game.pk, after=first_id - 1)
    assert [e["seq"] for e in logged] == list(range(first_id, final.seq + 1))
    messages = state["messages"]
    types = [m["type"] for m in messages]
    assert types == ["snapshot", *(e["type"] for e in logged), "end"], (
        f"unrecorded types: {sorted({e['type'] for e in logged} - set(types))}"
    )
    snapshot, *events, end = messages
    assert json.loads(snapshot["data"])["game"]["seq"] == lobby_seq
    assert [json.loads(m["data"]) for m in events] == logged
    assert [m["id"] for m in events] == [str(e["seq"]) for e in logged]
    assert json.loads(end["data"]) == {"seq": final.seq, "status": "finished"}
    assert end["id"] == str(final.seq)  # the browser's last event id when `end` came: what it resumes from

    # One connection opened; the stream's end (-> CONNECTING) and the 204 (-> CLOSED) are the
    # two errors; readyState went CONNECTING, OPEN, CONNECTING, CLOSED, and nothing after.
    assert state["opens"] == 1
    assert state["errors"] == [CONNECTING, CLOSED]
    assert [s for s, _ in state["states"]] == [CONNECTING, OPEN, CONNECTING, CLOSED]
    reconnecting_at, closed_at = state["states"][2][1], state["states"][3][1]
    assert closed_at - reconnecting_at >= RETRY_MS * 0.9  # it waited for retry: before reconnecting

    # The server served the stream and then one 204; the browser sent the last seq by itself.
    assert [status for _, status in requests.served()] == [200, 204]
    assert requests.sent() == [
        {"last_event_id": None, "status": 200},
        {"last_event_id": str(final.seq), "status": 204},
    ]


def test_a_browser_opened_on_a_finished_game_stops_reconnecting(
    chromium: Any, make_player: Callable[..., Any], tmp_path: Path
) -> None:
    access_log = tmp_path / "access.log"
    server = WebServer(
        tmp_path / "web.log", redis_url=None, env={"GUNICORN_CMD_ARGS": f"--access-logfile {access_log}"}
    )
    try:
        alice, bob = make_player("alice"), make_player("bob")
        game = services.game_create(creator=alice, ruleset=TWO_BOTS, setup=ONE_MOVE_SETUP)
        services.game_join(game_id=game.pk, player=bob)
        services.game_start(game_id=game.pk, by=alice)
        services.move_submit(game_id=game.pk, player=bob, move=LAST_MOVE, expected_seq=Game.objects.get(pk=game.pk).seq)
        assert Game.objects.get(pk=game.pk).status == GameStatus.FINISHED

        chromium.get(f"http://127.0.0.1:{server.port}/api/v1/bots/")
        chromium.execute_script(RECORDER, stream_path(game.pk), ["snapshot", "end"])
        requests = StreamRequests(access_log, chromium, game.pk)

        def closed_or_reopened() -> dict[str, Any] | None:
            state = browser_state(chromium)
            return state if state["readyState"] == CLOSED or state["opens"] > 1 else None

        state = wait_for(closed_or_reopened, STREAM_SECONDS, what="EventSource to close or reconnect")
        assert (state["readyState"], state["opens"]) == (CLOSED, 1), describe(state, requests)
    finally:
        server.stop()
