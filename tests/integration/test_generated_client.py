"""The contract (openapi.yaml) used the way a client author uses it: through a client that
a real generator makes of it, with no hand edit.

openapi-python-client (pinned in requirements-dev.txt) generates a Python client into a
temporary folder; it must have nothing to say about the document (it warns about every
schema or operation it cannot generate), and every operation must get its function.
Then two accounts and two server bots play a whole match on a live stack (gunicorn +
uvicorn, a real Celery worker, PostgreSQL, Redis): the people's seats are played with
the generated functions only, each following the game's Server-Sent Events stream
with the bot kit's typed stream reader (``chickenfoot_bot.streams``) over the request the
generated ``games_stream`` builds and the generated client's own httpx client, every
frame decoded with the generated model of its parsed form (``x-itemMessageSchema``: the
frame schema's ``...Message``, its data of the schema the contract names). Nothing
the server sends may go undecoded: no member a schema does not declare, no object left
as a plain dict (``generated_client.audit``). The record of the finished match, read
through the client, must replay to the same result.

``GENERATED_CLIENT_CONTRACT=/path/to/openapi.yaml`` tries a draft of the contract
instead of the checkout's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from inspect import signature
from pathlib import Path
from typing import Any

import pytest
import yaml
from chickenfoot_bot.streams import End, Notice, Snapshot, Update

from games.engine import Match, Ruleset
from live import account_feeds, game_feeds
from tests.integration.generated_client import (
    GeneratedClient,
    Generation,
    StreamContract,
    audit,
    decode_frame,
    generate,
    operation_ids,
    snake_case,
    stream_reader,
    untyped_fields,
)
from tests.integration.web import WebServer
from tests.integration.workers import ROOT

CONTRACT = Path(os.environ.get("GENERATED_CLIENT_CONTRACT") or ROOT / "openapi.yaml")

GAME_STREAM = "/api/v1/games/{game_id}/stream/"
#: The account stream's frames about the lobby's open tables, anyone's (feed "tables").
LOBBY_FRAMES = ("table_open", "table_closed")
ACCOUNT_STREAM = "/api/v1/me/stream/"

#: Four seats, a double-6 set, two rounds: a whole match in seconds.
RULESET = {"set_max": 6, "players": 4, "rounds": 2}
BOTS = {2: "greedy", 3: "random"}
PASSWORD = "a long passphrase 42"

#: The longest the match may take, and the longest any one request may.
MATCH_SECONDS = 90
REQUEST_SECONDS = 15
#: A seat closes its stream after this many events and resumes with Last-Event-ID, twice;
#: never right after match_ended (it waits for the end frame: resuming after a game's last
#: event is answered 204, which the test checks on its own).
RESUME_EVERY = 10
RESUMES = 2

#: Members of generated models that may stay untyped (``Any``): none so far. A member
#: that must stay free-form goes here with the reason.
UNTYPED_ALLOWED: dict[str, str] = {}


# -- the generated client ---------------------------------------------------------------


@pytest.fixture(scope="module")
def contract() -> dict[str, Any]:
    return yaml.safe_load(CONTRACT.read_text())


@pytest.fixture(scope="module")
def generation(tmp_path_factory: pytest.TempPathFactory) -> Generation:
    return generate(CONTRACT, tmp_path_factory.mktemp("generated"))


@pytest.fixture(scope="module")
def generated(generation: Generation) -> Iterator[GeneratedClient]:
    if not (generation.package_dir / "__init__.py").exists():
        pytest.fail(f"the generator wrote no client:\n{generation.output}")
    client = GeneratedClient(generation)
    yield client
    client.close()


def test_the_generator_has_nothing_to_say_about_the_contract(generation: Generation) -> None:
    assert generation.quiet, f"openapi-python-client (exit status {generation.returncode}):\n{generation.output}"


def test_every_operation_has_a_generated_function(contract: dict[str, Any], generated: GeneratedClient) -> None:
    operations = operation_ids(contract)
    assert operations
    unnamed = [o for o in operations if " " in o]
    assert not unnamed, f"operations without an operationId: {unnamed}"
    missing = [o for o in operations if snake_case(o) not in generated.operations]
    assert not missing, f"no generated function for: {missing} (generated: {sorted(generated.operations)})"
    for operation in operations:
        module = generated.operation(operation)
        for function in ("sync_detailed", "sync", "asyncio_detailed", "asyncio"):
            assert callable(getattr(module, function, None)), f"{operation}: no {function}"
    extra = sorted(set(generated.operations) - {snake_case(o) for o in operations})
    assert not extra, f"functions for no operation of the contract: {extra}"


def test_the_generated_models_pass_mypy_strict(generation: Generation) -> None:
    """The models a client author types against check under ``mypy --strict``: no schema
    shape makes the generator write code that does not (an object with a member named as
    the object itself did: ``core.schema.NAMED_OTHERWISE``). The generator's own
    ``client.py`` is not the contract's doing and is not checked."""
    models = generation.package_dir / "models"
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", str(models)],
        cwd=generation.package_dir.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert not errors, "\n".join(errors)
    assert run.returncode == 0, run.stdout + run.stderr


def test_anonymous_operations_take_a_plain_client(generated: GeneratedClient) -> None:
    """Registering and creating a token by password need no credentials: the generated
    functions take the anonymous ``Client`` (``security: []`` in the contract)."""
    for operation in ("players_register", "tokens_create"):
        annotation = str(signature(generated.operation(operation).sync_detailed).parameters["client"].annotation)
        assert "Client" in annotation.replace("AuthenticatedClient", ""), f"{operation}: client is {annotation}"


def test_the_generated_models_leave_nothing_untyped(generated: GeneratedClient) -> None:
    untyped = [u for u in untyped_fields(generated.models) if u.split(":")[0] not in UNTYPED_ALLOWED]
    assert not untyped, "members the contract leaves untyped:\n" + "\n".join(untyped)


def test_the_streams_frames_name_their_schemas(contract: dict[str, Any]) -> None:
    """Each stream's frame is a oneOf of frame schemas told apart by ``event``; each frame's
    data names the schema of its JSON (``contentSchema``)."""
    game = StreamContract(contract, GAME_STREAM)
    account = StreamContract(contract, ACCOUNT_STREAM)
    assert not game.problems + account.problems, "\n".join(game.problems + account.problems)
    event_types = set(contract["components"]["schemas"].get("EventType", {}).get("enum", []))
    assert event_types, "no EventType schema"
    game_feed_events = {event: feed.component for feed in game_feeds.feeds() for event in feed.events}  # the chat
    assert (
        game.data_schemas()
        == {"snapshot": "GameView", "end": "GameStreamEndData"} | dict.fromkeys(event_types, "Event") | game_feed_events
    )
    feeds = {
        event: feed.component for feed in account_feeds.feeds() for event in feed.events
    }  # the apps' feeds (challenges, seeks): their own frames
    assert account.data_schemas() == {
        "snapshot": "AccountSnapshot",
        "your_turn": "AccountGame",
        "game_started": "AccountGame",
        "game_over": "AccountGame",
        **feeds,
    }


# -- a match played through it ---------------------------------------------------------


class Api:
    """The generated client as one account uses it; ``call`` runs an operation's
    ``sync_detailed`` and checks the status and that the answer decoded completely."""

    def __init__(self, generated: GeneratedClient, client: Any, name: str) -> None:
        self.generated = generated
        self.client = client
        self.name = name

    def call(self, operation: str, *args: Any, expect: int, schema: str | None, **kwargs: Any) -> Any:
        response = self.generated.operation(operation).sync_detailed(*args, client=self.client, **kwargs)
        return self.check(response, operation, expect, schema)

    def check(self, response: Any, operation: str, expect: int, schema: str | None) -> Any:
        assert response.status_code == expect, (
            f"{self.name} {operation}: {int(response.status_code)} (expected {expect}): {response.content[:2000]!r}"
        )
        parsed = response.parsed
        if schema is not None:
            model = self.generated.model(schema)
            items = parsed if isinstance(parsed, list) else [parsed]
            wrong = [type(item).__name__ for item in items if not isinstance(item, model)]
            assert not wrong, f"{operation}: {int(response.status_code)} decoded as {wrong}, not {schema}"
            problems = audit(parsed, f"{operation} {int(response.status_code)} ({schema})")
            assert not problems, "\n".join(problems)
        return parsed

    def body(self, schema: str, data: dict[str, Any]) -> Any:
        return self.generated.model(schema).from_dict(data)


def sign_up(generated: GeneratedClient, base_url: str, username: str) -> Api:
    anonymous = Api(generated, generated.anonymous(base_url, REQUEST_SECONDS), username)
    account = anonymous.call(
        "players_register",
        body=anonymous.body("PlayerRegister", {"username": username, "password": PASSWORD}),
        expect=201,
        schema="Account",
    )
    assert account.username == username
    token = anonymous.call(
        "tokens_create",
        body=anonymous.body("TokenCreate", {"username": username, "password": PASSWORD, "name": "generated client"}),
        expect=201,
        schema="TokenCreated",
    )
    return Api(generated, generated.authenticated(base_url, token.token, REQUEST_SECONDS), username)


class Deadline:
    """The match's deadline, shared by the threads; ``cancel`` stops them all at their next
    check (keep-alive comments come every second) once one of them has failed."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.cancelled = threading.Event()

    def left(self) -> float:
        return self.at - time.monotonic()

    def cancel(self) -> None:
        self.cancelled.set()

    def check(self, what: str) -> None:
        if self.cancelled.is_set():
            raise AssertionError(f"{what}: stopped (another part of the test failed)")
        if self.left() <= 0:
            raise AssertionError(f"{what}: not done within {self.seconds} s")


class Seat:
    """One person's seat: follows the game's stream (resuming it now and then with
    Last-Event-ID), keeps the latest game view it has (the snapshot, a move's answer, a
    stale_seq refusal's game, or a re-read), and moves whenever that view says it is its
    turn - the first legal move, sent with expected_seq and an Idempotency-Key. Its first
    move is first sent with a stale expected_seq (the refusal must carry the game as it
    is now), and its first accepted move is sent twice with the same key (the second
    answer must be the first, replayed)."""

    def __init__(self, api: Api, stream: StreamContract, game_id: int, event_data: dict[str, str], deadline: Deadline):
        self.api = api
        self.stream = stream
        self.game_id = game_id
        self.event_data = event_data  # event type -> its EventData schema (the discriminator's mapping)
        self.deadline = deadline
        self.view: Any = None
        self.first_seq: int | None = None  # the first snapshot's seq: the stream sends every event after it
        self.seqs: list[int] = []
        self.types: dict[int, str] = {}
        self.frames: Counter[str] = Counter()
        self.retry: int | None = None
        self.connections = 0
        self.moves: list[Any] = []
        self.stale_refusals: list[Any] = []
        self.replayed: Any = None
        self.end: Any = None
        self.match_ended: Any = None

    def run(self) -> Seat:
        """Follow the game with the kit's reader until its end frame; every RESUME_EVERY
        events (RESUMES times) close the connection, which the reader resumes with
        Last-Event-ID."""
        reader = stream_reader(self.api.client, self.api.generated.operation("games_stream"), self.game_id)
        reader.max_connections = RESUMES + 5  # a drop would be resumed too, but not for ever
        # Keep-alives come every second (LIVE_KEEPALIVE_SECONDS): the deadline is checked while bots think.
        reader.on_comment = lambda: self.deadline.check(f"{self.api.name} following the game")
        events = 0
        for item in reader:
            self.connections = reader.connections
            self.deadline.check(f"{self.api.name} following the game")
            decoded = decode_frame(self.api.generated, self.stream, item)
            self.frames[item.event] += 1
            self.retry = None if reader.retry is None else round(reader.retry * 1000)
            if isinstance(item, Snapshot):
                self.view = decoded.data
                if self.first_seq is None:
                    self.first_seq = self.view.game.seq
            elif isinstance(item, End):
                self.end = decoded.data
                assert reader.last_id == item.id == str(self.end.seq), (reader.last_id, item)
                break
            elif isinstance(item, Update):
                self._event(item, decoded.data)
                events += 1
            else:
                assert isinstance(item, Notice)  # the table chat: no move
            self._play()
            if events >= RESUME_EVERY and reader.connections <= RESUMES and self.match_ended is None:
                events = 0
                reader.reconnect()  # close this connection; the next one resumes after the last id
        if self.end is None:
            raise AssertionError(f"{self.api.name}: the stream ended without its end frame")
        return self

    def _event(self, item: Update, event: Any) -> None:
        assert item.id == str(event.seq), (item, event.seq)
        assert event.type_ == item.event, (item, event.type_)
        expected = self.event_data.get(item.event)
        assert type(event.data).__name__ == expected, f"{item.event}: data decoded as {type(event.data).__name__}"
        assert event.data.type_ == item.event
        self.seqs.append(event.seq)
        self.types[event.seq] = item.event
        if item.event == "match_ended":
            self.match_ended = event.data
        if self.view is not None and event.seq > self.view.game.seq:
            self.view = None  # the game moved on: read it again before deciding

    def _play(self) -> None:
        while True:
            if self.view is None:
                self.view = self.api.call("games_retrieve", self.game_id, expect=200, schema="GameView")
            game = self.view
            if game.game.status != "running" or game.you is None or not game.you.your_turn:
                return
            self.deadline.check(f"{self.api.name} playing")
            self._move(game)

    def _move(self, game: Any) -> None:
        legal = game.you.legal_moves
        assert legal, f"{self.api.name}: my turn, but no legal move: {game.to_dict()}"
        choice = legal[0]
        seq = game.game.seq
        expected_seq = seq - 1 if not self.stale_refusals else seq
        # The request is a oneOf of a play, a draw and a pass: the generated models, one per type.
        model = {"play": "PlayMoveSubmit", "draw": "DrawMoveSubmit", "pass": "PassMoveSubmit"}[choice.type_]
        body = self.api.body(model, {**choice.to_dict(), "expected_seq": expected_seq})
        key = uuid.uuid4().hex
        moves = self.api.generated.operation("games_moves_create")
        response = moves.sync_detailed(self.game_id, client=self.api.client, body=body, idempotency_key=key)
        if expected_seq != seq:
            problem = self.api.check(response, "games_moves_create", 409, "Problem")
            assert problem.code == "stale_seq", problem.to_dict()
            assert problem.current_seq == seq, problem.to_dict()
            assert isinstance(problem.game, self.api.generated.model("GameView")), problem.to_dict()
            assert problem.game.game.seq == seq
            self.stale_refusals.append(problem)
            self.view = problem.game  # decide again on the game the refusal carries
            return
        result = self.api.check(response, "games_moves_create", 201, "MoveResult")
        assert result.move.seat == game.you.seat
        assert result.move.move.to_dict() == choice.to_dict()
        assert result.events and all(e.seq > seq for e in result.events)
        if self.replayed is None:
            again = moves.sync_detailed(self.game_id, client=self.api.client, body=body, idempotency_key=key)
            self.replayed = self.api.check(again, "games_moves_create", 200, "MoveResult")
            assert again.headers.get("Idempotent-Replayed") == "true"
            assert self.replayed.move.number == result.move.number
        self.moves.append(result.move)
        self.view = result.game


class AccountWatcher:
    """An account's stream (GET /me/stream/), read until the game is over: every frame
    decoded; ``ready`` once the first snapshot is in."""

    def __init__(self, api: Api, stream: StreamContract, game_id: int, deadline: Deadline) -> None:
        self.api = api
        self.stream = stream
        self.game_id = game_id
        self.deadline = deadline
        self.ready = threading.Event()
        self.snapshots: list[Any] = []
        self.updates: list[tuple[str, Any]] = []

    def run(self) -> AccountWatcher:
        reader = stream_reader(self.api.client, self.api.generated.operation("me_stream"))
        reader.max_connections = 5  # resumed after a drop, but not for ever
        reader.on_comment = lambda: self.deadline.check(f"{self.api.name} following the account stream")
        for item in reader:
            self.deadline.check(f"{self.api.name} following the account stream")
            decoded = decode_frame(self.api.generated, self.stream, item)
            if isinstance(item, Snapshot):
                self.snapshots.append(decoded.data)
                self.ready.set()
                continue
            if item.event in LOBBY_FRAMES:
                continue  # the lobby's open tables (the feed "tables"): not this account's games
            assert isinstance(item, Update), item
            game = decoded.data
            assert item.id == f"{game.game}.{game.seq}", item
            if game.game == self.game_id:
                self.updates.append((item.event, game))
                if item.event == "game_over":
                    return self
        raise AssertionError(f"{self.api.name}: the account stream ended before the game was over")


def wait_for_event(event: threading.Event, deadline: Deadline, what: str, worker: Future[Any]) -> None:
    """Until ``event`` is set; the worker's failure (or the deadline) ends the wait."""
    while not event.wait(timeout=0.05):
        if worker.done():
            worker.result()  # raises what the worker raised
            raise AssertionError(f"{what}: the worker ended without it")
        deadline.check(what)


def paged(api: Api, operation: str, game_id: int, schema: str, items: str) -> list[Any]:
    """Every item of an ``after``-paged list (the events, the moves)."""
    found: list[Any] = []
    after = 0
    while True:
        page = api.call(operation, game_id, after=after, expect=200, schema=schema)
        found += getattr(page, items)
        if not page.has_more:
            return found
        after = found[-1].seq if items == "events" else found[-1].number


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_people_and_two_server_bots_play_a_match_through_the_generated_client(
    contract, generated, start_worker, queue_name, broker_url, redis_url, tmp_path
):
    game_stream = StreamContract(contract, GAME_STREAM)
    account_stream = StreamContract(contract, ACCOUNT_STREAM)
    event_data = {
        event: ref.rsplit("/", 1)[-1]
        for event, ref in contract["components"]["schemas"]["EventData"]["discriminator"]["mapping"].items()
    }
    start_worker()
    web = WebServer(
        tmp_path / "web.log",
        redis_url=redis_url,
        broker_url=broker_url,
        # Keep-alive comments every second: the readers see the stream is alive (and check
        # their deadline) while bots think.
        env={"CELERY_QUEUE": queue_name, "LIVE_KEEPALIVE_SECONDS": "1", "THROTTLE_REGISTER": "100/hour"},
    )
    try:
        base_url = f"http://127.0.0.1:{web.port}"
        deadline = Deadline(MATCH_SECONDS)
        host = sign_up(generated, base_url, "gen_host")
        guest = sign_up(generated, base_url, "gen_guest")

        # The table: the host sits at seat 0, the guest takes seat 1, two server bots the rest.
        game = host.call(
            "games_create",
            body=host.body("GameCreate", {"ruleset": RULESET, "bot_delay_ms": 0}),
            expect=201,
            schema="GameView",
        )
        game_id = game.game.id
        assert game.game.status == "open" and game.state is None and game.you.seat == 0
        joined = guest.call(
            "games_join", game_id, body=guest.body("SeatChoice", {"seat": 1}), expect=200, schema="GameView"
        )
        assert joined.you.seat == 1
        for bot_seat, strategy in BOTS.items():
            host.call(
                "games_bots_add",
                game_id,
                body=host.body("BotAdd", {"seat": bot_seat, "strategy": strategy}),
                expect=200,
                schema="GameView",
            )

        watcher = AccountWatcher(guest, account_stream, game_id, deadline)
        seats = [Seat(api, game_stream, game_id, event_data, deadline) for api in (host, guest)]
        with ThreadPoolExecutor(max_workers=3) as pool:
            try:
                # The guest's account stream is open before the start: it must tell the
                # start, the guest's turns and the end.
                watching = pool.submit(watcher.run)
                wait_for_event(watcher.ready, deadline, "the account stream's snapshot", watching)
                started = host.call("games_start", game_id, expect=200, schema="GameView")
                assert started.game.status == "running"
                futures: list[Future[Any]] = [*(pool.submit(seat.run) for seat in seats), watching]
                # The first failure is the one to tell (the others wait for a turn that never comes).
                done, running = wait(futures, max(deadline.left(), 0) + REQUEST_SECONDS, FIRST_EXCEPTION)
                for future in done:
                    future.result()  # raises what failed
                assert not running, f"the match did not end within {MATCH_SECONDS} s"
            finally:
                deadline.cancel()  # whatever still runs stops at its next check

        # Both seats followed the whole game to its end frame, resuming without a gap or a repeat.
        last_seq = seats[0].end.seq
        for seat in seats:
            name = seat.api.name
            assert seat.end.status == "finished" and seat.end.seq == last_seq, name
            assert seat.first_seq is not None
            assert seat.seqs == list(range(seat.first_seq + 1, last_seq + 1)), f"{name} events: {seat.seqs}"
            assert seat.connections == RESUMES + 1 and seat.frames["snapshot"] == seat.connections, name
            assert seat.retry is not None, name  # the stream's `retry:` line
            assert seat.moves and len(seat.stale_refusals) == 1 and seat.replayed is not None, name
            assert seat.types[last_seq] == "match_ended" and seat.match_ended is not None, name
        ended = seats[0].match_ended
        assert seats[1].match_ended.to_dict() == ended.to_dict()

        # A reconnection with the last id of a game that is over: 204, stop reconnecting. (The
        # generated keyword is last_event_id_header while ?last_event_id= is documented too.)
        stream_function = generated.operation("games_stream").sync_detailed
        header = next(
            p for p in ("last_event_id_header", "last_event_id") if p in signature(stream_function).parameters
        )
        host.call("games_stream", game_id, **{header: str(last_seq)}, expect=204, schema=None)

        final = host.call("games_retrieve", game_id, expect=200, schema="GameView")
        assert final.game.status == "finished" and final.game.seq == last_seq
        assert final.seed == ended.seed
        assert final.game.result.winners == ended.winners and final.game.result.totals == ended.totals

        # The record replays to the same result, read with nothing but the generated models.
        record = host.call("games_record", game_id, expect=200, schema="GameRecord")
        assert record.seed == ended.seed and record.setup is None
        replayed = Match.replay(
            Ruleset.from_dict(record.ruleset.to_dict()),
            record.seed,
            [(m.seat, m.move.to_dict()) for m in record.moves],
        )
        assert replayed.status == "ended"
        assert replayed.totals == ended.totals == record.result.totals
        assert replayed.winners == ended.winners == record.result.winners
        assert len(replayed.rounds) == RULESET["rounds"]

        # The move log and the event log agree with the record and the stream.
        moves = paged(host, "games_moves_list", game_id, "MovePage", "moves")
        assert [m.number for m in moves] == list(range(1, len(record.moves) + 1))
        assert [(m.seat, m.move.to_dict()) for m in moves] == [(m.seat, m.move.to_dict()) for m in record.moves]
        by_source = {(m.seat, m.source) for m in moves}
        assert {s for s, source in by_source if source == "player"} == {0, 1}
        assert {s for s, source in by_source if source == "bot"} == set(BOTS)
        played = {m.number for seat in seats for m in seat.moves}
        assert played == {m.number for m in moves if m.seat in (0, 1)}
        events = paged(guest, "games_events_list", game_id, "EventPage", "events")
        assert [e.seq for e in events] == list(range(1, last_seq + 1))
        for seat in seats:
            assert {e.seq: e.type_ for e in events if e.seq in seat.types} == seat.types

        # The hands of the match, one by one.
        hands = host.call("games_hands_list", game_id, expect=200, schema="Hand")
        assert [h.number for h in hands] == list(range(1, RULESET["rounds"] + 1))
        for hand in hands:
            detail = guest.call("games_hands_retrieve", game_id, hand.number, expect=200, schema="HandDetail")
            assert detail.status == "ended" and len(detail.revealed_hands) == RULESET["players"]

        # The guest's account stream told the start, its turns and the end, with the result.
        told = [event for event, _ in watcher.updates]
        assert told[0] == "game_started" and told[-1] == "game_over" and "your_turn" in told, told
        over = watcher.updates[-1][1]
        assert over.status == "finished" and over.result.winners == ended.winners
        assert any(g.game == game_id for g in watcher.snapshots[0].games)

        # The rest of what a client reads, decoded the same way.
        assert {b.name for b in host.call("bots_list", expect=200, schema="BotStrategy")} >= set(BOTS.values())
        assert host.call("me_retrieve", expect=200, schema="Account").username == "gen_host"
        assert guest.call("players_retrieve", "gen_host", expect=200, schema="Player").username == "gen_host"
        assert host.call("tokens_list", expect=200, schema="PaginatedTokenList").count == 1
        mine = host.call("games_list", mine=True, expect=200, schema="PaginatedGameSummaryList")
        assert [g.id for g in mine.results] == [game_id]
    finally:
        web.stop()
