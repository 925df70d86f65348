"""``--spawn``: a production-style server of the load test's own - the Procfile's
web server and one Celery worker with beat (the turn clock, the sweep: embedded,
``-B``, so its CPU counts as the worker's), DEBUG off, on PostgreSQL and Redis - started
before the run and stopped after it (``core.processes`` starts and stops them).
With ``--compare-bare`` it runs under ``tools.loadtest.bare.settings`` (the
project's settings plus the bare locked-write endpoint)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import psycopg  # the server's own driver
from psycopg import sql

from core.processes import ChildExited, NotReady, celery_command, gunicorn_command, spawn, stop_groups, wait_for_http
from tools.loadtest.options import API, LoadTestError, parse_url

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/chickenfoot"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
READY_TIMEOUT_SECONDS = 60
STOP_SECONDS = 20


@dataclass(frozen=True)
class SpawnedServer:
    """What ``spawned_server`` started, and on what."""

    web_pid: int  # gunicorn's master (its workers are its children)
    worker_pid: int  # the Celery worker (its pool process is its child)
    database_url: str
    redis_url: str

    @property
    def pids(self) -> list[int]:
        return [self.web_pid, self.worker_pid]


@contextmanager
def spawned_server(
    url: str,
    *,
    web_workers: int = 4,
    base_dir: Path,
    log_dir: Path,
    out: Callable[[str], None] = print,
    settings_module: str | None = None,
    env_overrides: dict[str, str] | None = None,
) -> Iterator[SpawnedServer]:
    """The Procfile's web server (gunicorn with ``config/gunicorn.conf.py``) with
    ``web_workers`` processes, and one Celery worker with beat embedded, DEBUG off,
    on ``DATABASE_URL`` / ``REDIS_URL`` (or local defaults); migrates first. At the
    end each process group gets SIGTERM, and SIGKILL after ``STOP_SECONDS``.
    ``settings_module``: run everything (the migration too, with ``--run-syncdb``
    for apps without migrations) under these settings instead of the project's.
    ``env_overrides``: variables set last (``--compare-metrics``: METRICS_ENABLED, its
    own database and Redis database)."""
    host, port = parse_url(url)
    env = dict(os.environ)
    env.update(
        DEBUG="false",
        SECRET_KEY=env.get("SECRET_KEY") or secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=env.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        REDIS_URL=env.get("REDIS_URL") or DEFAULT_REDIS_URL,
        LOG_LEVEL=env.get("LOG_LEVEL") or "WARNING",
        # Rate limits stay on (their cost is part of every request) but high: a
        # load-test client moves about 11 times a second, over a real account's
        # 600 moves a minute.
        THROTTLE_MOVES=env.get("THROTTLE_MOVES") or "100000/minute",
        THROTTLE_USER=env.get("THROTTLE_USER") or "100000/minute",
        # Every client registers and logs in from this one address.
        THROTTLE_REGISTER=env.get("THROTTLE_REGISTER") or "100000/hour",
        THROTTLE_LOGIN=env.get("THROTTLE_LOGIN") or "100000/hour",
    )
    env.update(env_overrides or {})
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    if settings_module:
        env["DJANGO_SETTINGS_MODULE"] = settings_module
        migrate.append("--run-syncdb")
    if not env["DATABASE_URL"].startswith("postgres"):
        raise LoadTestError("--spawn serves on PostgreSQL: set DATABASE_URL=postgres://...")
    create_database(env["DATABASE_URL"])
    log_dir.mkdir(parents=True, exist_ok=True)
    out(f"spawn: migrating {env['DATABASE_URL'].rsplit('@', 1)[-1]}")
    subprocess.run(migrate, cwd=base_dir, env=env, check=True)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name, command in (
            ("web", gunicorn_command(f"{host}:{port}", workers=web_workers)),
            (
                "worker",
                celery_command(
                    "worker", "-B", "-s", str(log_dir / "celerybeat-schedule"), pool="prefork", concurrency=1
                ),
            ),
        ):
            # The web processes take a connection pool (gunicorn.conf.py); the worker does not.
            processes.append(spawn(command, cwd=base_dir, env=env, log=log_dir / f"{name}.log", append=False))
        _wait_until_serving(host, port, processes[0], log_dir / "web.log")
        out(
            f"spawn: gunicorn ({web_workers} workers, pid {processes[0].pid}) and a Celery worker (pid {processes[1].pid}) "
            f"on {url}; logs in {log_dir}"
        )
        yield SpawnedServer(processes[0].pid, processes[1].pid, env["DATABASE_URL"], env["REDIS_URL"])
    finally:
        stop_groups(processes, timeout=STOP_SECONDS)


def create_database(url: str) -> None:
    """Create the database named in ``url`` when it does not exist yet."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(scheme="postgresql", path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _wait_until_serving(host: str, port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until the web server answers a read; its log is where to look if it never does."""
    try:
        wait_for_http(process, host, port, f"{API}/games/?limit=1", timeout=READY_TIMEOUT_SECONDS, interval=0.3)
    except ChildExited as exited:
        raise LoadTestError(f"the web server exited ({exited.returncode}); see {log}") from None
    except NotReady:
        raise LoadTestError(f"the web server did not answer within {READY_TIMEOUT_SECONDS:.0f} s; see {log}") from None
