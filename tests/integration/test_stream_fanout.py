"""A game's stream sends the events a notice carries without reading the database,
and reads it whenever the notice cannot be trusted to follow on: the interleavings
forced one by one. The real HUB, the real commit path and (where named) the real
Redis; the stream runs in a thread of its own, as in a web process, and every wait
has a deadline."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import queue
import threading
import time
import uuid
import weakref
from collections.abc import AsyncGenerator
from typing import Any

import pytest
import redis
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from core import notify
from core.sse import KEEP_ALIVE
from games import output, selectors
from games.models import Event, Game, GameStatus
from live import dispatch, hub, streams
from players import selectors as player_selectors
from players import services as player_services
from players.models import ApiToken
from tests.integration.test_live_updates import duel, move_once
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DEADLINE = 20.0  # seconds a frame may take to come on a loaded machine


@pytest.fixture
def quiet(settings) -> None:
    """No poll, no keep-alive, no Redis (unless a test sets it): a stream wakes only when
    a notice of this process comes."""
    settings.REDIS_URL = ""
    settings.LIVE_POLL_SECONDS = settings.LIVE_POLL_SECONDS_EMBEDDED = 600
    settings.LIVE_KEEPALIVE_SECONDS = 600


@pytest.fixture
def lost_notices(monkeypatch) -> None:
    """Commits publish nothing (a notice lost on the way): only the test's own notices come."""
    monkeypatch.setattr(hub, "publish", lambda **kwargs: None)


class Follow:
    """A game's stream (``streams.event_stream`` with its ``_GameReader``) run in a
    thread with its own event loop, its frames handed to the test."""

    def __init__(self, game_id: int, after: int, credentials: streams.Credentials | None = None) -> None:
        self.game_id = game_id
        self.credentials = credentials
        self.reader = streams._GameReader(game_id, after)
        self.frames: queue.Queue[str | None] = queue.Queue()
        self.waiting = threading.Event()  # set each time the stream waits for a wake
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self._thread.start()
        assert started.wait(DEADLINE)

    def _run(self, started: threading.Event) -> None:
        async def main() -> None:
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
            started.set()
            channel = hub.game_channel(self.game_id)
            frames = streams.event_stream({}, channel, self.reader.read, self.credentials)
            async for chunk in frames:  # one write may carry several frames
                for frame in chunk.split("\n\n"):
                    if frame:
                        self.frames.put(frame + "\n\n")
            self.frames.put(None)

        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(main())

    def stop(self) -> None:
        # Again and again: a cancellation that lands while a read is in its thread is
        # swallowed (asgiref's sync_to_async waits for the read and returns its result).
        deadline = time.monotonic() + DEADLINE
        while self._thread.is_alive() and time.monotonic() < deadline:
            if self._loop is not None and self._task is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed in between
                    self._loop.call_soon_threadsafe(self._task.cancel)
            self._thread.join(0.1)
        assert not self._thread.is_alive(), "the stream did not stop"

    def until(self, seq: int, *, end: bool = False) -> list[tuple[int, str, dict[str, Any]]]:
        """The (id, event, data) of the frames up to id ``seq`` (and the ``end`` frame
        with ``end``), failing at the deadline or if the stream closes before."""
        got: list[tuple[int, str, dict[str, Any]]] = []
        deadline = time.monotonic() + DEADLINE
        while True:
            try:
                frame = self.frames.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"the stream did not reach seq {seq} within {DEADLINE} s (got {got})")
            if frame is None:
                pytest.fail(f"the stream closed before seq {seq} (got {got})")
            fields = dict(line.split(": ", 1) for line in frame.splitlines() if ": " in line)
            if "id" not in fields:
                continue  # the snapshot, a keep-alive
            got.append((int(fields["id"]), fields.get("event", ""), json.loads(fields["data"])))
            if got[-1][1] == "end" or (not end and got[-1][0] >= seq):
                return got

    def idle(self, what: str) -> None:
        """Until the stream has read and waits again."""
        if not self.waiting.wait(DEADLINE):
            pytest.fail(f"the stream never went back to waiting: {what}")
        self.waiting.clear()


@pytest.fixture
def follow(monkeypatch):
    runs: list[Follow] = []
    real_wait = streams._wait

    async def wait_and_tell(wake: asyncio.Event, seconds: float) -> None:
        for run in runs:
            if asyncio.current_task() is run._task:
                run.waiting.set()
        await real_wait(wake, seconds)

    monkeypatch.setattr(streams, "_wait", wait_and_tell)

    def start(game_id: int, after: int, credentials: streams.Credentials | None = None) -> Follow:
        run = Follow(game_id, after, credentials)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.stop()


def seq_of(game_id: int) -> int:
    return Game.objects.only("seq").get(pk=game_id).seq


def notice(game_id: int, events: list[Event] | None = None, **changes: Any) -> dict[str, Any]:
    """A game notice as ``live.dispatch`` publishes it, of ``events`` (default: the game's
    last ``NOTICE_EVENTS``), with ``changes`` made to it."""
    tail = selectors.event_tail(game_id=game_id, count=dispatch.NOTICE_EVENTS)
    assert tail is not None
    seq, status, last = tail
    if events is not None:
        seq = events[-1].seq
    message = hub.game_notice(game_id=game_id, seq=seq, status=status, events=last if events is None else events)
    return {**message, **changes}


def events_of(game_id: int, first: int, last: int) -> list[Event]:
    return list(Event.objects.filter(game_id=game_id, seq__gte=first, seq__lte=last).order_by("seq"))


def assert_ids(got: list[tuple[int, str, dict[str, Any]]], first: int, last: int) -> None:
    ids = [i for i, event, _ in got if event != "end"]
    assert ids == list(range(first, last + 1)), f"ids {ids}: not exactly {first}..{last} once each, in order"


def publish_to(game_id: int, message: Any) -> None:
    hub.HUB.notify([hub.game_channel(game_id)], message)


def test_a_commits_notice_brings_its_events_without_a_read(make_player, quiet, follow):
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    assert stream.reader.reads == 1
    start = game.seq
    for _ in range(4):
        move_once(game.pk, players)
    got = stream.until(seq_of(game.pk))
    assert_ids(got, start + 1, seq_of(game.pk))
    assert stream.reader.reads == 1, "a notice that followed on was read from the database again"
    # The frames say what a read would: the events as event_output gives them.
    expected = events_of(game.pk, start + 1, got[-1][0])
    assert got == [
        (e.seq, e.type, json.loads(json.dumps(output.event_output(e), cls=DjangoJSONEncoder))) for e in expected
    ]


def test_a_notice_after_a_gap_sends_the_stream_to_the_database(make_player, quiet, lost_notices, follow):
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    for _ in range(3):  # their notices are lost
        move_once(game.pk, players)
    head = seq_of(game.pk)
    assert head >= game.seq + 3
    # Only the last event: the stream has not got those in between.
    publish_to(game.pk, notice(game.pk, events_of(game.pk, head, head)))
    assert_ids(stream.until(head), game.seq + 1, head)
    stream.idle("the read that filled the gap")
    assert stream.reader.reads == 2


def test_a_notice_of_what_was_sent_already_is_ignored(make_player, quiet, lost_notices, follow):
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    move_once(game.pk, players)
    first = seq_of(game.pk)
    publish_to(game.pk, notice(game.pk))
    assert_ids(stream.until(first), game.seq + 1, first)
    stream.idle("the first notice")
    # The same notice again (Redis's echo of a local one, a slow process's copy), and an older one.
    publish_to(game.pk, notice(game.pk))
    publish_to(game.pk, notice(game.pk, events_of(game.pk, first, first)))
    publish_to(game.pk, notice(game.pk, events_of(game.pk, game.seq + 1, game.seq + 1)))
    stream.idle("the repeated notices")
    move_once(game.pk, players)
    second = seq_of(game.pk)
    publish_to(game.pk, notice(game.pk))
    assert_ids(stream.until(second), first + 1, second)  # nothing repeated before it
    assert stream.reader.reads == 1


def test_a_notice_that_overlaps_a_read_sends_only_what_the_read_did_not(
    make_player, quiet, lost_notices, follow, monkeypatch
):
    game, players = duel(make_player)
    reading, release = threading.Event(), threading.Event()
    real_page = selectors.event_page
    calls = 0

    def held_page(**kwargs: Any) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        page = real_page(**kwargs)
        if calls == 2:  # the read a bare notice causes: held after it has read
            reading.set()
            assert release.wait(DEADLINE)
        return page

    monkeypatch.setattr(selectors, "event_page", held_page)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    move_once(game.pk, players)
    read_head = seq_of(game.pk)
    publish_to(game.pk, None)  # a bare notice: the stream reads the database
    assert reading.wait(DEADLINE), "the bare notice did not make the stream read"
    # While that read is under way (it has the events up to read_head), the game moves on
    # and a notice carrying the last events - those the read has and the new ones - comes.
    move_once(game.pk, players)
    move_once(game.pk, players)
    head = seq_of(game.pk)
    overlapping = notice(game.pk, events_of(game.pk, read_head - 1 if read_head > game.seq + 1 else read_head, head))
    assert overlapping["first"] <= read_head < head
    publish_to(game.pk, overlapping)
    release.set()
    assert_ids(stream.until(head), game.seq + 1, head)
    stream.idle("the overlapping notice")
    assert stream.reader.reads == 2 and calls == 2


def test_notices_that_cannot_be_used_send_the_stream_to_the_database(make_player, quiet, lost_notices, follow):
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    move_once(game.pk, players)
    head = seq_of(game.pk)
    real = notice(game.pk)
    forged = [frame.replace('"type"', '"forged":true,"type"') for frame in real["frames"]]
    # Another database's notice of a game with the same id (Redis channels are shared by
    # every database number), malformed ones: none is trusted, each only says "look again".
    for message in (
        {**real, "db": "another", "frames": forged},
        {**real, "first": real["first"] + 1},
        {**real, "game": game.pk + 1},
        "not a notice",
    ):
        publish_to(game.pk, message)
    got = stream.until(head)
    assert_ids(got, game.seq + 1, head)
    assert not any("forged" in data for _, _, data in got)
    assert stream.reader.reads >= 2


def test_a_finished_games_stream_ends_on_its_last_notice(make_player, quiet, follow):
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    got: list[tuple[int, str, dict[str, Any]]] = []
    while Game.objects.get(pk=game.pk).status == GameStatus.RUNNING:
        move_once(game.pk, players)
        got += stream.until(seq_of(game.pk), end=Game.objects.get(pk=game.pk).status != GameStatus.RUNNING)
    final = Game.objects.get(pk=game.pk)
    assert got[-1][1] == "end" and got[-1][0] == final.seq and got[-1][2] == {"seq": final.seq, "status": final.status}
    assert_ids(got, game.seq + 1, final.seq)
    assert stream.frames.get(timeout=DEADLINE) is None, "the stream did not close after end"
    assert stream.reader.reads == 1, "the events and the end came from the database, not the notices"


@pytest.mark.redis
def test_a_notice_from_another_process_through_redis_brings_its_events(
    make_player, quiet, lost_notices, follow, settings, redis_url
):
    settings.REDIS_URL = redis_url
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    # The stream is handed over once Redis has confirmed its channel: one read, no second
    # "in case something was published while subscribing".
    wait_for(lambda: hub.HUB.listening and stream.reader.reads >= 1, DEADLINE, what="the Redis subscription")
    stream.idle("the first read, with the subscription confirmed before it")
    reads = stream.reader.reads
    assert reads == 1
    other = redis.Redis.from_url(redis_url)  # another process: only Redis links it to this one
    got = []
    try:
        for _ in range(3):
            move_once(game.pk, players)
            other.publish(hub.game_channel(game.pk), json.dumps(notice(game.pk)))
            got += stream.until(seq_of(game.pk))
    finally:
        other.close()
    assert_ids(got, game.seq + 1, seq_of(game.pk))
    assert stream.reader.reads == reads


@pytest.mark.redis
def test_with_redis_gone_the_stream_polls_the_database(make_player, lost_notices, follow, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.LIVE_POLL_SECONDS = 600  # were Redis up, a notice would be needed
    settings.LIVE_POLL_SECONDS_EMBEDDED = 0.2
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    assert not hub.HUB.listening
    for _ in range(2):
        move_once(game.pk, players)
    head = seq_of(game.pk)
    assert_ids(stream.until(head), game.seq + 1, head)
    assert stream.reader.reads >= 2


@pytest.mark.redis
def test_a_notice_that_could_not_reach_redis_is_made_good_by_the_next_that_does(
    make_player, quiet, lost_notices, follow, settings, redis_url
):
    """A move whose notice another process failed to publish (its Redis breaker was
    open) reaches this process's stream with that process's next notice, which goes
    out with RESYNC: every waiter re-reads once, with no poll."""
    settings.REDIS_URL = redis_url
    game, players = duel(make_player)
    stream = follow(game.pk, game.seq)
    wait_for(lambda: hub.HUB.listening and stream.reader.reads >= 1, DEADLINE, what="the Redis subscription")
    stream.idle("the first read, with the subscription confirmed before it")
    reads = stream.reader.reads
    move_once(game.pk, players)  # its notice: lost on the way (lost_notices)
    notify.REDIS.failed(ConnectionError("Redis went away for a moment"))
    try:
        with contextlib.suppress(Exception):
            notify.publish([f"{notify.PREFIX}elsewhere"])  # skipped: the breaker is open
        assert notify._Lost.flag
    finally:
        notify.REDIS.succeeded()
    notify.publish([f"{notify.PREFIX}elsewhere"])  # gets through, with RESYNC
    assert not notify._Lost.flag
    head = seq_of(game.pk)
    assert_ids(stream.until(head), game.seq + 1, head)
    assert stream.reader.reads == reads + 1


def test_keep_alives_do_not_read_the_database(make_player, quiet, lost_notices, follow, settings):
    """An idle stream sends its keep-alives without reading the game again: only the
    poll interval (a safety net) or a notice sends it to the database."""
    settings.LIVE_KEEPALIVE_SECONDS = 0.02
    game, _ = duel(make_player)
    stream = follow(game.pk, game.seq)
    stream.idle("the first read")
    pings = 0
    deadline = time.monotonic() + DEADLINE
    while pings < 20:
        frame = stream.frames.get(timeout=max(0.0, deadline - time.monotonic()))
        assert frame is not None, "the stream closed"
        pings += frame == KEEP_ALIVE
    assert stream.reader.reads == 1
    settings.LIVE_POLL_SECONDS_EMBEDDED = 0.05  # now the poll is due: it reads again
    wait_for(lambda: stream.reader.reads >= 2, DEADLINE, what="the poll's read")


def test_a_streams_credentials_check_goes_with_its_poll_read(make_player, quiet, lost_notices, follow, settings):
    """The safety-net check of a stream's token rides the poll's read of the game:
    one borrowing of a database thread per wake, not two (with 2,000 idle streams
    each borrowing is a slice of every move's latency)."""
    settings.LIVE_POLL_SECONDS_EMBEDDED = settings.LIVE_CREDENTIALS_RECHECK_SECONDS = 0.05
    game, players = duel(make_player)
    token = player_services.token_create(user=players[0], name="stream").token
    borrowed: list[Any] = []
    checks = []
    real_db_call, real_valid = streams.db_call, player_selectors.credentials_valid

    async def counting_db_call(fn: Any, *args: Any, **kwargs: Any) -> Any:
        borrowed.append(fn)
        return await real_db_call(fn, *args, **kwargs)

    def counting_valid(**kwargs: Any) -> bool:
        checks.append(kwargs)
        return real_valid(**kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(streams, "db_call", counting_db_call)
        patch.setattr(player_selectors, "credentials_valid", counting_valid)
        stream = follow(game.pk, game.seq, streams.Credentials(players[0].pk, token.pk))
        wait_for(lambda: len(checks) >= 5, DEADLINE, what="five checks of the stream's token")
    assert all(getattr(fn, "__func__", None) is streams._GameReader._read for fn in borrowed), borrowed
    assert stream.reader.reads >= len(checks) >= 5


def test_a_revocation_whose_notice_was_lost_closes_the_stream_at_its_next_check(
    make_player, quiet, lost_notices, follow, settings
):
    """A token revoked without a notice (an UPDATE behind the services' back, or a
    notice lost with Redis) closes its stream at the next safety-net check."""
    settings.LIVE_POLL_SECONDS_EMBEDDED = settings.LIVE_CREDENTIALS_RECHECK_SECONDS = 0.05
    game, players = duel(make_player)
    token = player_services.token_create(user=players[0], name="stream").token
    stream = follow(game.pk, game.seq, streams.Credentials(players[0].pk, token.pk))
    stream.idle("the first read")
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())  # no notice
    deadline = time.monotonic() + DEADLINE
    while (frame := stream.frames.get(timeout=max(0.0, deadline - time.monotonic()))) is not None:
        assert "id:" not in frame, f"a frame after the revocation: {frame!r}"


@pytest.mark.redis
def test_a_process_subscribes_to_the_channels_its_waiters_wait_on_and_no_other(settings, redis_url):
    """No pattern subscription: a web process hears the games its streams follow, not
    every move of the server. A waiter is handed over once Redis has confirmed its
    channel, so a notice published the moment after is heard; the last waiter to
    leave unsubscribes."""
    settings.REDIS_URL = redis_url
    followed, other = f"{notify.PREFIX}test:{uuid.uuid4().hex}", f"{notify.PREFIX}test:{uuid.uuid4().hex}"
    publisher = redis.Redis.from_url(redis_url)

    def subscribers(channel: str) -> int:
        return int(dict(publisher.pubsub_numsub(channel))[channel.encode()])

    async def scenario() -> None:
        async with notify.HUB.subscription([followed]) as first:
            assert subscribers(followed) == 1 and subscribers(other) == 0
            assert publisher.publish(followed, "") == 1  # at once: already heard
            await asyncio.wait_for(first.wait(), DEADLINE)
            async with notify.HUB.subscription([followed]):  # a second waiter: no second subscription
                assert subscribers(followed) == 1
            assert subscribers(followed) == 1  # the first still waits
        deadline = time.monotonic() + DEADLINE
        while subscribers(followed) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert subscribers(followed) == 0

    try:
        asyncio.run(scenario())
    finally:
        publisher.close()


@pytest.mark.redis
def test_a_process_drops_its_own_notices_when_redis_brings_them_back(settings, redis_url):
    """``publish`` wakes this process's waiters at once; the copy Redis sends back to
    this process's subscription is not delivered again (a second wake and parse per
    move and follower), while another process's notice on the channel is. Redis sends
    a subscriber what it is published in the order it gets it, so once the other
    process's notice is here, the echo of ours would have come before it."""
    settings.REDIS_URL = redis_url
    channel = f"{notify.PREFIX}test:{uuid.uuid4().hex}"
    other = redis.Redis.from_url(redis_url)  # another process: only Redis links it to this one

    async def scenario() -> list[notify.Notice]:
        async with notify.HUB.subscription([channel], messages=True) as waiter:
            assert notify.HUB.listening
            await asyncio.to_thread(notify.publish, [channel], {"mine": 1})
            assert other.publish(channel, json.dumps({"theirs": 2})) == 1
            got: list[notify.Notice] = []
            deadline = time.monotonic() + DEADLINE
            while not any(m == {"theirs": 2} for _, m in got) and time.monotonic() < deadline:
                await asyncio.wait_for(waiter.wait(), DEADLINE)
                waiter.clear()  # before taking: a notice after this sets it again
                got += waiter.take()
            return got

    try:
        got = asyncio.run(scenario())
    finally:
        other.close()
    assert got == [(channel, {"mine": 1}), (channel, {"theirs": 2})]


@pytest.mark.redis
def test_a_reader_of_its_own_decodes_what_publish_sends_through_redis(settings, redis_url):
    """A reader that subscribes on its own (``bench_bots``) gets the message back with
    ``notify.message_of``, the process's mark taken off; a bare notice is None."""
    settings.REDIS_URL = redis_url
    channel = f"{notify.PREFIX}test:{uuid.uuid4().hex}"
    reader = redis.Redis.from_url(redis_url).pubsub(ignore_subscribe_messages=True)
    try:
        reader.subscribe(channel)
        assert reader.get_message(timeout=DEADLINE) is None  # the confirmation, ignored
        notify.publish([channel], {"game": 7, "seq": 3})
        notify.publish([channel])
        got: list[Any] = []
        deadline = time.monotonic() + DEADLINE
        while len(got) < 2 and time.monotonic() < deadline:
            message = reader.get_message(timeout=1)
            if message is not None:
                got.append(notify.message_of(message["data"]))
    finally:
        reader.close()
    assert got == [{"game": 7, "seq": 3}, None]


def test_an_open_stream_keeps_its_snapshot_as_text_only(quiet):
    """The game's view a stream opened with is sent and dropped: a stream that stays
    open for hours does not keep hundreds of objects for every full collection to walk."""

    class Snapshot(dict):  # a dict that a weak reference can watch
        pass

    async def read(notices: list[notify.Notice], check: streams.Check | None) -> tuple[list[str], str, bool | None]:
        return [], streams.WAIT, None

    async def scenario() -> None:
        snapshot = Snapshot(game={"id": 7, "seq": 3})
        dropped = weakref.ref(snapshot)
        frames = streams.event_stream(snapshot, hub.game_channel(7), read, None)
        assert isinstance(frames, AsyncGenerator)
        del snapshot
        first = await frames.__anext__()
        assert 'event: snapshot\ndata: {"game":{"id":7,"seq":3}}' in first
        gc.collect()
        assert dropped() is None  # the stream is open, and holds the text alone
        await frames.aclose()

    asyncio.run(scenario())
