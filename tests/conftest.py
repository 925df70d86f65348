"""Fixtures shared by every test folder.

The choice of database and Redis, and the ``postgres`` / ``redis`` / ``worker``
markers, are handled by the plugin ``tests/services.py``. Tests with real worker
processes (``start_worker``) use Redis as the broker and the test PostgreSQL
database shared with the workers (so those tests commit for real).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from games import services as game_services
from players import second_factor
from players.models import SecondFactor
from tests.api.games_helpers import People, Table, create_game, game_url, ok
from tests.integration.workers import Worker, use_broker
from tests.services import SERVICES_KEY, Services


def pytest_configure(config: pytest.Config) -> None:
    # Password hashing is deliberately slow; tests do not need it to be.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    Client.force_login = _force_login_with_second_factor  # type: ignore[method-assign, assignment]


_force_login = Client.force_login


def _force_login_with_second_factor(self: Client, user: Any, backend: str | None = None) -> None:
    """A test client's ``force_login`` stands for a whole log-in, the second factor's
    code included (players.admin_gate): a staff account without a second factor gets
    a confirmed one, and the session is marked as having given its code, so that
    admin tests about something else need no authenticator app. Tests of the second
    factor log in with the password (``client.login``) or in the browser
    (tests/moderation/test_second_factor*.py)."""
    if user.is_staff:
        SecondFactor.objects.get_or_create(
            user=user, defaults={"key": secrets.token_hex(20), "confirmed_at": timezone.now()}
        )
    _force_login(self, user, backend)
    session = self.session
    session[second_factor.SESSION_KEY] = user.pk
    session.save()


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
def token_client() -> Callable[[Any], APIClient]:
    """``token_client(user)`` -> an APIClient sending a fresh API token of ``user``."""
    from players import services as player_services

    def make(user: Any) -> APIClient:
        client = APIClient()
        issued = player_services.token_create(user=user, name="test")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.secret}")
        return client

    return make


# -- tables: players in the seats of a game (the API and the moderation tests) ------


@pytest.fixture
def people(make_player: Callable[..., Any], token_client: Callable[[Any], APIClient]) -> People:
    return People(make_player, token_client)


@pytest.fixture
def make_table(people: People) -> Callable[..., Table]:
    """``make_table(players=2, rounds=1, setup=None, seed=None, start=True, ...)``:
    players (human, token clients) fill every seat, seat n being the n-th player
    (seat 0 the creator), or only the first ``seated`` seats; the game is started
    unless told not to. With ``api=True`` all of it goes through the API (as a
    client would do it); else through the services (quicker, for tests about later
    steps: the lobby tests cover the API's way)."""

    def make(
        players: int = 2,
        *,
        set_max: int = 6,
        rounds: int | None = 1,
        start: bool = True,
        seated: int | None = None,
        api: bool = False,
        **create: Any,
    ) -> Table:
        ruleset = {"set_max": set_max, "players": players, "rounds": rounds, **create.pop("ruleset", {})}
        users, clients = zip(*(people.player() for _ in range(players)), strict=True)
        seats = range(1, players if seated is None else seated)
        if api:
            game_id = create_game(clients[0], ruleset=ruleset, **create)["game"]["id"]
            for seat in seats:
                ok(clients[seat].post(game_url(game_id, "join"), {"seat": seat}, format="json"))
            if start:
                ok(clients[0].post(game_url(game_id, "start")))
        else:
            game_id = game_services.game_create(creator=users[0], ruleset=ruleset, **create).pk
            for seat in seats:
                game_services.game_join(game_id=game_id, player=users[seat], seat=seat)
            if start:
                game_services.game_start(game_id=game_id, by=users[0])
        return Table(game_id, list(users), list(clients))

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
        worker = Worker(
            broker_url, tmp_path / f"{name}-{len(workers)}.log", queue=queue or queue_name, beat=beat, name=name
        )
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
