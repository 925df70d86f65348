"""Fixtures shared by every test folder.

The choice of database and Redis, and the ``postgres`` / ``redis`` / ``worker``
markers, are handled by the plugin ``tests/services.py``. Tests with real worker
processes (``start_worker``) use Redis as the broker and the test PostgreSQL
database shared with the workers (so those tests commit for real).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.integration.workers import Worker, use_broker
from tests.services import SERVICES_KEY, Services


def pytest_configure(config: pytest.Config) -> None:
    # Password hashing is deliberately slow; tests do not need it to be.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counters live in the cache: no test may inherit another's."""
    cache.clear()
    yield


@pytest.fixture(scope="session")
def services(pytestconfig: pytest.Config) -> Services:
    return pytestconfig.stash[SERVICES_KEY]


@pytest.fixture
def redis_url(services: Services) -> str:
    """The reachable Redis (use with ``@pytest.mark.redis``)."""
    if not services.redis.available:
        pytest.skip(f"needs Redis: {services.redis.describe()}")
    return services.redis.url


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


PASSWORD = "a-long enough passphrase 42"


@pytest.fixture
def make_player(db: None) -> Callable[..., object]:
    """``make_player("alice", is_bot=False, is_active=True)`` -> a saved user
    whose password is ``PASSWORD``."""
    from players import services as player_services

    def make(username: str = "alice", *, is_bot: bool = False, is_active: bool = True) -> object:
        user = player_services.user_register(username=username, password=PASSWORD, is_bot=is_bot)
        if not is_active:
            user.is_active = False
            user.save(update_fields=["is_active"])
        return user

    return make


@pytest.fixture
def token_client() -> Callable[[object], APIClient]:
    """``token_client(user)`` -> an APIClient sending a fresh API token of ``user``."""
    from players import services as player_services

    def make(user: object) -> APIClient:
        client = APIClient()
        issued = player_services.token_create(user=user, name="test")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.secret}")
        return client

    return make


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
