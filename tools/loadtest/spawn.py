"""``--spawn``: a production-style server of the load test's own - the Procfile's
web server and one Celery worker, DEBUG off, on PostgreSQL and Redis - started
before the run and stopped after it."""

from __future__ import annotations

import http.client
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from tools.loadtest.options import API, LoadTestError, parse_url

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/chickenfoot"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def spawned_server(url: str, *, web_workers: int = 4, base_dir: Path, log_dir: Path,
                   out: Callable[[str], None] = print) -> Iterator[list[int]]:
    """The Procfile's web server (gunicorn with ``config/gunicorn.conf.py``) with
    ``web_workers`` processes, and one Celery worker, DEBUG off,
    on ``DATABASE_URL`` / ``REDIS_URL`` (or local defaults); migrates first; stops
    both at the end. Yields their pids."""
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
    if not env["DATABASE_URL"].startswith("postgres"):
        raise LoadTestError("--spawn serves on PostgreSQL: set DATABASE_URL=postgres://...")
    _create_database(env["DATABASE_URL"])
    log_dir.mkdir(parents=True, exist_ok=True)
    out(f"spawn: migrating {env['DATABASE_URL'].rsplit('@', 1)[-1]}")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=base_dir, env=env, check=True)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name, command in (
            ("web", [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "--bind", f"{host}:{port}",
                     "--workers", str(web_workers), "--log-level", "warning"]),
            ("worker", [sys.executable, "-m", "celery", "-A", "config", "worker", "-c", "1", "-l", "warning",
                        "--without-gossip", "--without-mingle", "--without-heartbeat"]),
        ):
            log = open(log_dir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
            # The web processes take a connection pool (gunicorn.conf.py); the worker does not.
            processes.append(subprocess.Popen(command, cwd=base_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                              start_new_session=True))
            log.close()
        _wait_until_serving(host, port, processes[0], log_dir / "web.log")
        out(f"spawn: gunicorn ({web_workers} workers, pid {processes[0].pid}) and a Celery worker (pid {processes[1].pid}) "
            f"on {url}; logs in {log_dir}")
        yield [process.pid for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _create_database(url: str) -> None:
    """Create the database named in ``url`` when it does not exist yet."""
    import psycopg  # the server's own driver
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(scheme="postgresql", path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _wait_until_serving(host: str, port: int, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LoadTestError(f"the web server exited ({process.returncode}); see {log}")
        try:
            connection = http.client.HTTPConnection(host, port, timeout=2)
            connection.request("GET", f"{API}/games/?limit=1")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise LoadTestError(f"the web server did not answer within {timeout:.0f} s; see {log}")
