"""Fixtures for tests with real worker processes: Redis as the broker, the test
PostgreSQL database shared with the workers (so those tests commit for real)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from tests.integration.workers import Worker, use_broker

# A Redis database for test brokers; each test also has a queue of its own, so
# test sessions running side by side never take each other's tasks.
BROKER_DB = 15


@pytest.fixture
def queue_name() -> str:
    return f"cf-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def broker_url(redis_url: str, queue_name: str) -> Iterator[str]:
    url = redis_url.rsplit("/", 1)[0] + f"/{BROKER_DB}"
    with use_broker(url, queue_name):
        yield url
    client = redis.Redis.from_url(url)
    client.delete(*client.keys(f"{queue_name}*") or [queue_name])


@pytest.fixture
def start_worker(broker_url: str, queue_name: str, tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    """``start_worker(beat=False, name="w1", queue=None)`` -> a running worker, stopped
    at the end; it takes the test's queue unless given one of its own."""
    workers: list[Worker] = []

    def start(*, beat: bool = False, name: str = "w1", queue: str | None = None) -> Worker:
        worker = Worker(broker_url, tmp_path / f"{name}-{len(workers)}.log", queue=queue or queue_name, beat=beat,
                        name=name)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
