"""Which PostgreSQL and Redis the tests use: decided before Django starts.

Rules (the README's "make test works anywhere"):

* ``DATABASE_URL`` set: the tests use it.
* Otherwise PostgreSQL on 127.0.0.1:5432 if it answers (pytest-django creates
  ``test_chickenfoot_<checkout>``), else SQLite; ``@pytest.mark.postgres`` tests
  are then skipped, saying why.
* Redis is ``REDIS_URL`` or 127.0.0.1:6379, database ``1 + <checkout> % 14`` (0 is
  ``make serve``'s, 15 the test brokers', where every test has queues of its own);
  ``@pytest.mark.redis`` and ``@pytest.mark.worker`` tests are skipped when it
  does not answer. The servers the tests start keep their cache keys under
  ``CACHE_KEY_PREFIX=cf-test-<checkout>``.  The
  settings only use Redis (cache, broker) when ``REDIS_URL`` is set: the tests
  leave it unset, so they get the embedded mode unless asked otherwise.
* A ``DATABASE_URL`` or ``REDIS_URL`` that was set but does not answer is an
  error, not a reason to fall back.
* Under ``CI=true`` a missing service is an error at start-up, never a skip.

``<checkout>`` is a hash of this checkout's path (``CHECKOUT_ID``), so two
checkouts' test runs on one machine never share a database, a Redis database's
keys or a queue; ``DATABASE_URL`` and ``REDIS_URL`` still override (two runs of
one checkout at once need one of them each).

This module is a pytest plugin (``-p tests.services`` in pyproject.toml):
pytest-django loads the settings before any conftest.py is imported, so the
choice has to be made here, in ``pytest_load_initial_conftests``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path

import pytest

#: This checkout, named by its path: what keeps two checkouts' test runs apart.
CHECKOUT_ID = hashlib.sha256(str(Path(__file__).resolve().parents[1]).encode()).hexdigest()[:8]
#: pytest-django creates ``test_`` + this database's name.
POSTGRES_URL = f"postgres://postgres@127.0.0.1:5432/chickenfoot_{CHECKOUT_ID}"
REDIS_URL = f"redis://127.0.0.1:6379/{1 + int(CHECKOUT_ID, 16) % 14}"
CACHE_KEY_PREFIX = f"cf-test-{CHECKOUT_ID}"
PROBE_TIMEOUT_SECONDS = 2


@dataclass(frozen=True)
class Service:
    """A service the tests may use: where it is and whether it answered."""

    name: str
    url: str
    available: bool
    note: str

    def describe(self) -> str:
        return f"{self.name} {_redact(self.url)} ({self.note})"


@dataclass(frozen=True)
class Services:
    database: Service  # name "postgresql" or "sqlite"
    redis: Service

    @property
    def postgres(self) -> bool:
        return self.database.name == "postgresql" and self.database.available


SERVICES_KEY = pytest.StashKey[Services]()


def in_ci(environ: MutableMapping[str, str] = os.environ) -> bool:
    return environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def probe_postgres(url: str) -> str | None:
    """None if PostgreSQL at ``url`` accepts a connection, else why not."""
    import psycopg

    try:
        # The maintenance database: the test database need not exist yet.
        conninfo = psycopg.conninfo.make_conninfo(url, dbname="postgres", connect_timeout=PROBE_TIMEOUT_SECONDS)
        with psycopg.connect(conninfo):
            return None
    except Exception as error:  # any failure means "not usable"
        return _first_line(error)


def probe_redis(url: str) -> str | None:
    """None if Redis at ``url`` answers PING, else why not."""
    import redis

    try:
        client = redis.Redis.from_url(
            url, socket_timeout=PROBE_TIMEOUT_SECONDS, socket_connect_timeout=PROBE_TIMEOUT_SECONDS
        )
        try:
            client.ping()
        finally:
            client.close()
        return None
    except Exception as error:
        return _first_line(error)


def select_database(environ: MutableMapping[str, str]) -> Service:
    """Choose the test database; sets ``DATABASE_URL`` for the settings if unset."""
    url = environ.get("DATABASE_URL", "")
    if url:
        if not url.startswith(("postgres://", "postgresql://")):
            return Service(url.split(":", 1)[0], url, True, "from DATABASE_URL")
        problem = probe_postgres(url)
        return Service("postgresql", url, problem is None, problem or "from DATABASE_URL")
    problem = probe_postgres(POSTGRES_URL)
    if problem is None:
        environ["DATABASE_URL"] = POSTGRES_URL
        return Service("postgresql", POSTGRES_URL, True, "answered on 127.0.0.1:5432")
    # The settings' default: SQLite (pytest-django uses an in-memory test database).
    return Service("sqlite", "sqlite://", True, f"PostgreSQL is not reachable: {problem}")


def select_redis(environ: MutableMapping[str, str]) -> Service:
    url = environ.get("REDIS_URL") or REDIS_URL
    problem = probe_redis(url)
    return Service("redis", url, problem is None, problem or "answered")


def ci_problems(services: Services) -> list[str]:
    """What CI lacks; CI runs every test, so every service must be there."""
    problems = []
    if not services.postgres:
        problems.append(f"PostgreSQL is required under CI=true, but the tests would use {services.database.describe()}")
    if not services.redis.available:
        problems.append(f"Redis is required under CI=true: {services.redis.describe()}")
    return problems


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    services = Services(database=select_database(os.environ), redis=select_redis(os.environ))
    # Tasks sent by tests without a worker wait in memory and never run; the
    # integration tests point the app at a real Redis and start real workers.
    os.environ.setdefault("CELERY_BROKER_URL", "memory://")
    # Servers started by the tests (which inherit the environment) on a shared Redis:
    # their cache keys and notice channels, apart per checkout and per pytest-xdist
    # worker (``make test`` runs two; each also has a database of its own, pytest-django's
    # ``test_..._gw0``).
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    os.environ["CACHE_KEY_PREFIX"] = f"{CACHE_KEY_PREFIX}-{worker}" if worker else CACHE_KEY_PREFIX
    # No bot ladder rounds in the servers and workers the tests start: beat would open
    # rated bot tables at its first tick, and their moves would take the worker from
    # the test's own games. The ladder's tests turn it on where they test it.
    os.environ.setdefault("LADDER_INTERVAL_SECONDS", "0")
    # Metrics apart per test process (prometheus-client's multiprocess folder sums
    # every process that writes there): a scrape counts this process and the servers
    # it starts, never the other pytest-xdist worker's requests.
    os.environ.setdefault("METRICS_DIR", tempfile.mkdtemp(prefix=f"cf-metrics-{worker or 'main'}-"))
    early_config.stash[SERVICES_KEY] = services
    if services.database.name == "postgresql" and not services.database.available:
        raise pytest.UsageError(f"DATABASE_URL names a PostgreSQL that does not answer: {services.database.describe()}")
    if os.environ.get("REDIS_URL") and not services.redis.available:
        # The settings would use it as the cache and the Celery broker.
        raise pytest.UsageError(f"REDIS_URL names a Redis that does not answer: {services.redis.describe()}")
    if in_ci():
        problems = ci_problems(services)
        if problems:
            raise pytest.UsageError(
                "CI=true and a service the tests need is missing (.ci/run starts them):\n  " + "\n  ".join(problems)
            )


def pytest_report_header(config: pytest.Config) -> list[str]:
    services = config.stash[SERVICES_KEY]
    return [f"database: {services.database.describe()}", f"redis: {services.redis.describe()}"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    services = config.stash[SERVICES_KEY]
    no_postgres = pytest.mark.skip(reason=f"needs PostgreSQL; tests run on {services.database.describe()}")
    no_redis = pytest.mark.skip(reason=f"needs Redis, which is not reachable: {services.redis.describe()}")
    for item in items:
        if item.get_closest_marker("postgres") and not services.postgres:
            item.add_marker(no_postgres)
        if (item.get_closest_marker("redis") or item.get_closest_marker("worker")) and not services.redis.available:
            item.add_marker(no_redis)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__


def _redact(url: str) -> str:
    """The URL without a password."""
    scheme, sep, rest = url.partition("://")
    if "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user = credentials.split(":", 1)[0]
    return f"{scheme}{sep}{user}{':***' if ':' in credentials else ''}@{host}"
