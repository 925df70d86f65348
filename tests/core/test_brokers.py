"""The embedded broker (a folder of message files) hands a consumer whole messages, each once.

kombu's filesystem transport creates a message file under its final name and
writes it afterwards, so a worker polling the folder can take the empty file and
die on it (``JSONDecodeError``, kombu #1551); ``core.brokers`` writes every file
aside and renames it into place. These tests do not flood the folder and hope
for a collision: they stop the writer at the point that matters (a patched
function waits on an event) and read the folder meanwhile - first with kombu's
transport, to show that the harness catches the bug, then with ours. The two
stress tests at the end check totals only: every message arrives once, intact.

Nothing here sleeps: every wait is for an event or a condition, with a deadline.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from queue import Empty
from typing import Any

import kombu
import pytest
from kombu.transport import filesystem as stock

import core.brokers
from core.brokers import CLAIMED_FOLDER, REJECTED_FOLDER, TMP_FOLDER

STOCK = "kombu.transport.filesystem:Transport"
EMBEDDED = "core.brokers:FilesystemTransport"
QUEUE = "celery"
MESSAGE = {"body": "a whole message", "headers": {"task": "live.tasks.turn_clock"}, "properties": {"priority": 0}}
WAIT = 30  # seconds: a deadline for conditions that take milliseconds


def connect(folder: Path, transport: str = EMBEDDED) -> kombu.Connection:
    """A connection to the broker ``folder``, with the options ``config.settings`` gives it."""
    return kombu.Connection(
        "filesystem://",
        transport=transport,
        transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),
            "polling_interval": 0.01,
        },
    )


@pytest.fixture
def channel(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """``channel(transport=EMBEDDED)`` -> a channel on a connection of its own to ``tmp_path``:
    one per thread, as there is one per process in production."""
    opened: list[kombu.Connection] = []

    def make(transport: str = EMBEDDED) -> Any:
        opened.append(connect(tmp_path, transport))
        return opened[-1].default_channel

    yield make
    for connection in opened:
        connection.release()


class Gate:
    """Stops the first call of ``original`` for which ``when`` holds until ``release`` is set
    (``reached`` tells the test it is there); every other call goes straight through."""

    def __init__(self, original: Callable[..., Any], when: Callable[..., bool] | None = None) -> None:
        self.original = original
        self.when = when or (lambda *args, **kwargs: True)
        self.reached = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()

    def call(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            stop = not self.reached.is_set() and self.when(*args, **kwargs)
            if stop:
                self.reached.set()
        if stop and not self.release.wait(WAIT):
            raise AssertionError("the gate was never released")
        return self.original(*args, **kwargs)


def gate(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, when: Callable[..., bool] | None = None) -> Gate:
    """Put a Gate in front of ``owner.name`` (a module's function or a class's method) for the test."""
    stop = Gate(getattr(owner, name), when)

    @functools.wraps(stop.original)
    def stand_in(*args: Any, **kwargs: Any) -> Any:  # a function, so a method still gets its self
        return stop.call(*args, **kwargs)

    monkeypatch.setattr(owner, name, stand_in)
    return stop


@contextmanager
def stopped_at(stop: Gate, action: Callable[[], Any]) -> Iterator[None]:
    """Run ``action`` in a thread until it reaches ``stop``; on leaving, let it go and wait
    for it to finish (its exception, if any, is raised here)."""
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(action)
        try:
            deadline = time.monotonic() + WAIT
            while not stop.reached.wait(0.01):
                if running.done():
                    running.result()  # raises what stopped it
                    raise AssertionError("the action finished without reaching the gate")
                if time.monotonic() > deadline:
                    raise AssertionError(f"timed out after {WAIT} s waiting for the action to reach the gate")
            yield
        finally:
            stop.release.set()
        running.result(WAIT)


def files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def queued(folder: Path) -> list[str]:
    """The message files waiting in the queue folder."""
    return [name for name in files(folder) if name.endswith(".msg")]


# --- a message file that is still being written ---------------------------------


def test_stock_transport_hands_a_consumer_the_file_before_the_message_is_in_it(tmp_path, channel, monkeypatch):
    """kombu #1551, forced: the worker's read fails as in production, and the message is lost."""
    taken = tmp_path / "taken"  # kombu moves a file it takes to the temporary folder, reads it, deletes it
    taken.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(taken))
    producer, consumer = channel(STOCK), channel(STOCK)
    writing = gate(monkeypatch, stock, "dumps")  # the file exists, empty, under its final name

    with stopped_at(writing, lambda: producer._put(QUEUE, MESSAGE)):
        assert len(queued(tmp_path)) == 1
        with pytest.raises(ValueError, match=r"Expecting value: line 1 column 1 \(char 0\)"):
            consumer._get(QUEUE)

    # The message was written into the file kombu had already deleted: nobody will read it.
    with pytest.raises(Empty):
        consumer._get(QUEUE)
    assert files(taken) == []


@pytest.mark.parametrize(
    ("owner", "name", "when"),
    [
        pytest.param(core.brokers, "dumps", None, id="before-the-message-is-written"),
        pytest.param(
            os,
            "replace",
            lambda source, target: Path(source).parent.name == TMP_FOLDER,
            id="written-before-it-is-renamed-into-the-queue",
        ),
    ],
)
def test_a_message_being_written_is_not_in_the_queue_until_it_is_whole(
    tmp_path,
    channel,
    monkeypatch,
    owner,
    name,
    when,
):
    producer, consumer = channel(), channel()
    writing = gate(monkeypatch, owner, name, when)

    with stopped_at(writing, lambda: producer._put(QUEUE, MESSAGE)):
        assert queued(tmp_path) == []
        with pytest.raises(Empty):
            consumer._get(QUEUE)
        with pytest.raises(Empty):
            consumer._get(QUEUE)

    assert consumer._get(QUEUE) == MESSAGE
    with pytest.raises(Empty):
        consumer._get(QUEUE)
    assert files(tmp_path / TMP_FOLDER) == files(tmp_path / CLAIMED_FOLDER) == []


# --- an exchange table that is still being written -----------------------------


def test_stock_transport_lets_a_reader_see_a_new_exchange_table_empty(tmp_path, channel, monkeypatch):
    """kombu creates the table with open("wb") and locks it afterwards: a publisher that
    looks the exchange up in between reads an empty file, and fails."""
    binder, reader = channel(STOCK), channel(STOCK)
    locking = gate(monkeypatch, stock, "lock", lambda file, flags: flags == stock.LOCK_EX)  # type: ignore[attr-defined]

    with stopped_at(locking, lambda: binder._queue_bind("games", "games", None, "games")):
        assert (tmp_path / "control" / "games.exchange").read_bytes() == b""
        with pytest.raises(ValueError, match="Expecting value"):
            reader.get_table("games")

    assert reader.get_table("games") == [("games", "", "games")]


@pytest.mark.parametrize(
    ("owner", "name"),
    [
        pytest.param(Path, "write_text", id="before-the-table-is-written"),
        pytest.param(os, "link", id="written-before-it-is-linked-into-place"),
    ],
)
def test_a_new_exchange_table_is_read_whole_or_not_at_all(tmp_path, channel, monkeypatch, owner, name):
    binder, reader = channel(), channel()
    creating = gate(monkeypatch, owner, name)

    with stopped_at(creating, lambda: binder._queue_bind("games", "games", None, "games")):
        assert not (tmp_path / "control" / "games.exchange").exists()
        assert reader.get_table("games") == []

    assert reader.get_table("games") == [("games", "", "games")]
    assert files(tmp_path / TMP_FOLDER) == []


def test_two_bindings_that_create_one_exchange_table_at_once_are_both_kept(tmp_path, channel, monkeypatch):
    first, second = channel(), channel()
    linking = gate(monkeypatch, os, "link")  # stops the first binding only

    with stopped_at(linking, lambda: first._queue_bind("games", "one", None, "one")):
        second._queue_bind("games", "two", None, "two")  # creates the table meanwhile
        assert second.get_table("games") == [("two", "", "two")]

    # The first found the table made and added itself to it.
    assert sorted(second.get_table("games")) == [("one", "", "one"), ("two", "", "two")]
    assert files(tmp_path / TMP_FOLDER) == []


# --- files that are not messages, consumers that race ----------------------------


EARLIEST = "0" * 20  # names start with the zero-padded time they were sent


def test_a_file_that_is_not_a_message_is_set_aside_and_the_queue_goes_on(tmp_path, caplog):
    with connect(tmp_path) as connection:
        queue = connection.SimpleQueue(QUEUE)
        # Ahead of any message in the queue, whose names start with a clock reading (not 0).
        (tmp_path / f"{EARLIEST}_empty.{QUEUE}.msg").write_bytes(b"")
        (tmp_path / f"{EARLIEST}_garbage.{QUEUE}.msg").write_bytes(b'{"body": "cut sho')
        queue.put({"n": 1})

        with caplog.at_level(logging.ERROR, logger="core.brokers"):
            message = queue.get(timeout=WAIT)
        message.ack()
        assert message.payload == {"n": 1}
        queue.close()

    rejected = tmp_path / REJECTED_FOLDER
    assert files(rejected) == [f"{EARLIEST}_empty.{QUEUE}.msg", f"{EARLIEST}_garbage.{QUEUE}.msg"]
    assert (rejected / f"{EARLIEST}_garbage.{QUEUE}.msg").read_bytes() == b'{"body": "cut sho'  # kept as it was
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert all(f"set aside {name}, which is not a message" in logged for name in files(rejected)), logged
    assert queued(tmp_path) == [] and files(tmp_path / CLAIMED_FOLDER) == []


def test_two_consumers_that_list_the_same_message_at_once_deliver_it_once(tmp_path, channel, monkeypatch):
    producer, consumers = channel(), [channel(), channel()]
    producer._put(QUEUE, MESSAGE)
    both_listed = threading.Barrier(2, timeout=WAIT)
    real_listdir = os.listdir

    def list_together(path: str) -> list[str]:
        names = real_listdir(path)
        if Path(path) == tmp_path:
            both_listed.wait()  # each goes on to claim it having seen the message
        return names

    def take(consumer: Any) -> Any:
        try:
            return consumer._get(QUEUE)
        except Empty:
            return None

    with monkeypatch.context() as patch, ThreadPoolExecutor(2) as pool:
        patch.setattr(os, "listdir", list_together)
        outcomes = [future.result(WAIT) for future in [pool.submit(take, consumer) for consumer in consumers]]

    assert sorted(outcomes, key=lambda outcome: outcome is not None) == [None, MESSAGE]
    assert queued(tmp_path) == [] and files(tmp_path / CLAIMED_FOLDER) == []


def test_two_consumers_draining_a_queue_that_is_being_filled_get_each_message_once(tmp_path, channel):
    total = 1000
    producer, consumers = channel(), [channel(), channel()]
    start = threading.Barrier(3, timeout=WAIT)
    received: list[list[int]] = [[], []]
    deadline = time.monotonic() + WAIT

    def produce() -> None:
        start.wait()
        for n in range(total):
            producer._put(QUEUE, {"n": n})

    def consume(index: int) -> None:
        start.wait()
        while sum(map(len, received)) < total and time.monotonic() < deadline:
            try:
                received[index].append(consumers[index]._get(QUEUE)["n"])
            except Empty:
                continue

    with ThreadPoolExecutor(3) as pool:
        running = [pool.submit(produce), pool.submit(consume, 0), pool.submit(consume, 1)]
        for future in running:
            future.result(WAIT)

    counts = Counter(received[0] + received[1])
    assert sorted(counts) == list(range(total)), f"lost: {sorted(set(range(total)) - set(counts))[:10]}"
    assert {n: count for n, count in counts.items() if count > 1} == {}
    assert queued(tmp_path) == [] and files(tmp_path / CLAIMED_FOLDER) == []
    assert files(tmp_path / REJECTED_FOLDER) == []


# --- processes --------------------------------------------------------------------

PRODUCERS = 4
PER_PRODUCER = 500


def stress_body(producer: int, seq: int) -> str:
    """Sizes from a few bytes to a few kilobytes: large enough for a write to be seen half done."""
    return f"{producer}:{seq};" * (1 + seq % 300)


def publish(folder: str, producer: int, count: int, start: Any) -> None:
    """A producer process (a web process, in production): once all are up, declares the
    queue - so several create its exchange table at once - and publishes ``count`` messages
    as fast as it can."""
    with connect(Path(folder)) as connection:
        start.wait()
        queue = connection.SimpleQueue("stress")
        for seq in range(count):
            queue.put({"producer": producer, "seq": seq, "body": stress_body(producer, seq)})
        queue.close()


@pytest.mark.slow
def test_processes_publishing_at_full_speed_while_one_consumes_deliver_every_message_once_intact(tmp_path):
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(PRODUCERS + 1, timeout=WAIT)
    producers = [
        context.Process(target=publish, args=(str(tmp_path), n, PER_PRODUCER, start), daemon=True)
        for n in range(PRODUCERS)
    ]
    for process in producers:
        process.start()
    received: list[tuple[int, int]] = []
    try:
        start.wait()
        with connect(tmp_path) as connection:
            queue = connection.SimpleQueue("stress")
            deadline = time.monotonic() + WAIT
            while len(received) < PRODUCERS * PER_PRODUCER and time.monotonic() < deadline:
                try:
                    message = queue.get(timeout=0.5)
                except Empty:
                    if any(process.exitcode for process in producers):
                        break  # a producer failed: what it did not send will never come
                    continue
                message.ack()
                payload = message.payload
                assert payload["body"] == stress_body(payload["producer"], payload["seq"]), payload
                received.append((payload["producer"], payload["seq"]))
            queue.close()
    finally:
        for process in producers:
            process.join(WAIT)
            if process.is_alive():
                process.kill()

    assert [process.exitcode for process in producers] == [0] * PRODUCERS
    counts = Counter(received)
    expected = {(producer, seq) for producer in range(PRODUCERS) for seq in range(PER_PRODUCER)}
    assert set(counts) == expected, f"lost: {sorted(expected - set(counts))[:10]}"
    assert {key: count for key, count in counts.items() if count > 1} == {}
    assert queued(tmp_path) == [] and files(tmp_path / CLAIMED_FOLDER) == []
    assert files(tmp_path / REJECTED_FOLDER) == []
