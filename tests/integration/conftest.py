"""Fixtures for tests with real worker processes: Redis as the broker, the test
PostgreSQL database shared with the workers (so those tests commit for real)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.workers import Worker, flush_redis, use_broker

# A Redis database of its own, so a test's queue never mixes with anything else.
BROKER_DB = 15


@pytest.fixture
def broker_url(redis_url: str) -> Iterator[str]:
    url = redis_url.rsplit("/", 1)[0] + f"/{BROKER_DB}"
    flush_redis(url)
    with use_broker(url):
        yield url
    flush_redis(url)


@pytest.fixture
def start_worker(broker_url: str, tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    """``start_worker(beat=False, name="w1")`` -> a running worker, stopped at the end."""
    workers: list[Worker] = []

    def start(*, beat: bool = False, name: str = "w1") -> Worker:
        worker = Worker(broker_url, tmp_path / f"{name}-{len(workers)}.log", beat=beat, name=name)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
