"""Benchmark: the embedded broker's folder under load, kombu's transport against ours.

Run ``.venv/bin/python tools/broker_stress.py [--transport stock|embedded|both] [--runs N]``
from the repository root (``--help`` lists the rest). Producer processes publish as
fast as they can into a fresh folder while one consumer process drains it the way a
Celery worker does (a kombu Consumer, ``drain_events``, the transport polling the
folder). Every message carries who sent it, its number and when, so the consumer can
tell what was lost, delivered twice or damaged, and how long delivery took.

An exception out of the consumer is what kills a Celery worker ("Unrecoverable
error"): it is counted as a crash and the consumer starts again, so the run goes on.
Prints one ``key: value`` line per figure, a block per run; this measures, it asserts
nothing (the tests are in tests/core/test_brokers.py).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kombu

# core.brokers is found by kombu by name, from the repository root (the spawned processes
# run this file again and get the same path). It does not need Django's settings.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TRANSPORTS = {
    "stock": "kombu.transport.filesystem:Transport",
    "embedded": "core.brokers:FilesystemTransport",
}
EXCHANGE = kombu.Exchange("stress", type="direct")
QUEUE = kombu.Queue("stress", EXCHANGE, routing_key="stress")
START_TIMEOUT = 60  # seconds for the processes to start and connect


@dataclass(frozen=True)
class Options:
    transport: str
    producers: int
    messages: int
    size: int
    polling_interval: float
    deadline: float
    idle: float
    folder: str


@dataclass
class Consumed:
    """What the consumer process saw, sent back to the parent at the end."""

    deliveries: Counter = field(default_factory=Counter)  # (producer, seq) -> times delivered
    latencies: list[float] = field(default_factory=list)  # seconds, send to receipt
    corrupt: int = 0  # delivered, but not the message that was sent
    crashes: Counter = field(default_factory=Counter)  # exception type -> times the consumer died of it
    undecodable: int = 0  # of those, a message file that was not JSON (kombu #1551)
    last_delivery: float = 0.0  # wall clock


def connect(options: Options) -> kombu.Connection:
    folder = Path(options.folder)
    return kombu.Connection(
        "filesystem://",
        transport=TRANSPORTS[options.transport],
        transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),
            "polling_interval": options.polling_interval,
        },
    )


def body_for(producer: int, seq: int, size: int) -> str:
    """The body message ``seq`` of ``producer`` must arrive with: about ``size`` characters."""
    unit = f"{producer}:{seq};"
    return unit * max(1, size // len(unit))


def produce(options: Options, producer: int, start: Any, results: Any) -> None:
    """A producer process: publish every message once, as fast as it can. A publish that
    raises counts as not sent (and is not retried: that would hide the failure)."""
    failed: list[int] = []
    with connect(options) as connection:
        publisher = connection.Producer(serializer="json")
        start.wait()
        first_send = time.time()
        for seq in range(options.messages):
            payload = {
                "producer": producer,
                "seq": seq,
                "sent": time.time(),
                "body": body_for(producer, seq, options.size),
            }
            try:
                publisher.publish(payload, exchange=EXCHANGE, routing_key="stress", declare=[QUEUE])
            except Exception:  # counted: the figure is what this measures
                failed.append(seq)
        results.put((producer, failed, first_send, time.time()))


def consume(options: Options, expected: int, ready: Any, producers_done: Any, results: Any) -> None:
    """The consumer process: drain the queue like a Celery worker until every message has
    come, or the producers are done and nothing came for ``idle`` seconds, or the deadline."""
    # kombu's transport moves each message it takes to the temporary folder: keep those here.
    tempfile.tempdir = str(Path(options.folder) / "taken")
    os.makedirs(tempfile.tempdir, exist_ok=True)
    consumed = Consumed()
    deadline = time.monotonic() + options.deadline
    last_seen = time.monotonic()
    done_seen: float | None = None  # when the consumer learnt the producers were done

    def on_message(payload: Any, message: kombu.Message) -> None:
        nonlocal last_seen
        now = time.time()
        message.ack()
        last_seen = time.monotonic()
        consumed.last_delivery = now
        try:
            key = (payload["producer"], payload["seq"])
            intact = payload["body"] == body_for(*key, options.size)
        except (KeyError, TypeError):
            consumed.corrupt += 1
            return
        consumed.corrupt += not intact
        consumed.deliveries[key] += 1
        consumed.latencies.append(now - payload["sent"])

    def finished() -> bool:
        nonlocal done_seen
        if len(consumed.deliveries) >= expected or time.monotonic() > deadline:
            return True
        if not producers_done.is_set():
            return False
        done_seen = done_seen or time.monotonic()
        return time.monotonic() - max(last_seen, done_seen) > options.idle

    while not finished():
        try:
            with connect(options) as connection, connection.Consumer(QUEUE, callbacks=[on_message], accept=["json"]):
                ready.set()
                while not finished():
                    with contextlib.suppress(TimeoutError):  # nothing came: look at the clock
                        connection.drain_events(timeout=0.25)
        except Exception as exc:  # a worker would die here: count it and start again
            consumed.crashes[type(exc).__name__] += 1
            consumed.undecodable += isinstance(exc, ValueError)
    results.put(consumed)


def percentile(values: list[float], percent: float) -> float:
    """The nearest-rank percentile (``values`` sorted)."""
    return values[max(0, math.ceil(percent / 100 * len(values)) - 1)] if values else float("nan")


def run(options: Options) -> dict[str, Any]:
    """One run in a fresh folder; the figures, by name."""
    context = multiprocessing.get_context("spawn")
    ready, producers_done = context.Event(), context.Event()
    start = context.Barrier(options.producers + 1, timeout=START_TIMEOUT)  # all connected: publish at once
    consumed_queue, sent_queue = context.Queue(), context.Queue()
    expected = options.producers * options.messages
    consumer = context.Process(target=consume, args=(options, expected, ready, producers_done, consumed_queue))
    consumer.start()
    if not ready.wait(START_TIMEOUT):
        raise SystemExit("the consumer did not start")
    producers = [
        context.Process(target=produce, args=(options, n, start, sent_queue)) for n in range(options.producers)
    ]
    for process in producers:
        process.start()
    start.wait()
    reports = [sent_queue.get(timeout=START_TIMEOUT + options.deadline) for _ in producers]
    for process in producers:
        process.join()
    producers_done.set()
    consumed: Consumed = consumed_queue.get(timeout=START_TIMEOUT + options.deadline + options.idle)
    consumer.join()

    folder = Path(options.folder)
    sent = {(producer, seq) for producer, failed, _, _ in reports for seq in set(range(options.messages)) - set(failed)}
    first_send = min(report[2] for report in reports)
    last_send = max(report[3] for report in reports)
    rejected = len(list((folder / "rejected").glob("*"))) if (folder / "rejected").exists() else 0
    latencies = sorted(consumed.latencies)
    window = max(consumed.last_delivery - first_send, 1e-9)
    return {
        "transport": options.transport,
        "producers": options.producers,
        "messages_per_producer": options.messages,
        "sent": len(sent),
        "publish_errors": expected - len(sent),
        "delivered": len(consumed.deliveries),
        "lost": len(sent - set(consumed.deliveries)),
        "duplicated": sum(count - 1 for count in consumed.deliveries.values()),
        "corrupt": consumed.corrupt,
        "undecodable": consumed.undecodable + rejected,
        "rejected_files": rejected,
        "consumer_crashes": sum(consumed.crashes.values()),
        "crash_types": ", ".join(f"{name}={count}" for name, count in consumed.crashes.most_common()) or "-",
        "left_in_folder": len(list(folder.glob("*.msg"))),
        "publish_rate_msgs_per_s": round(len(sent) / max(last_send - first_send, 1e-9)),
        "throughput_msgs_per_s": round(len(consumed.deliveries) / window),
        "latency_p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "latency_p99_ms": round(percentile(latencies, 99) * 1000, 1),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", choices=[*TRANSPORTS, "both"], default="both")
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--messages", type=int, default=2000, help="per producer")
    parser.add_argument("--size", type=int, default=1000, help="body size, characters (a task message is ~1 KB)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each transport, alternating")
    parser.add_argument("--polling-interval", type=float, default=0.01, help="seconds (the settings use 0.05)")
    parser.add_argument("--deadline", type=float, default=120, help="seconds: a run's consumer gives up")
    parser.add_argument("--idle", type=float, default=2, help="seconds with nothing arriving, once all is sent")
    parser.add_argument("--dir", default=None, help="where to make the broker folders (default: the temp folder)")
    args = parser.parse_args(argv)
    transports = list(TRANSPORTS) if args.transport == "both" else [args.transport]
    for number in range(1, args.runs + 1):
        for transport in transports:
            folder = tempfile.mkdtemp(prefix=f"broker-stress-{transport}-", dir=args.dir)
            try:
                figures = run(
                    Options(
                        transport,
                        args.producers,
                        args.messages,
                        args.size,
                        args.polling_interval,
                        args.deadline,
                        args.idle,
                        folder,
                    )
                )
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            print(f"run: {number}")
            for key, value in figures.items():
                print(f"{key}: {value}")
            print(flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
