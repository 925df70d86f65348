"""Fixtures shared by every test folder.

The choice of database and Redis, and the ``postgres`` / ``redis`` / ``worker``
markers, are handled by the plugin ``tests/services.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

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
