"""The server's health, as ``GET /api/v1/health/`` reports it.

Each check says whether one part is working and, if not, what is wrong, in a
sentence for the person on call:

* ``database`` - PostgreSQL (or SQLite) answers. Without it nothing works.
* ``redis`` - answers, when configured. Without it moves and reads still work;
  rate limits count per process and live notices fall back to polling.
* ``broker`` - the Celery broker can be reached (Redis, or the embedded folder).
* ``workers`` - at least one worker recorded a heartbeat recently.
* ``sweep`` - the periodic sweep ran recently (beat is running).
* ``clock`` - the turn clock ran recently (beat and a worker are running), and
  every timeout it found due it could play.
* ``turns`` - no bot turn or turn clock is overdue by more than a few seconds.

Every check runs on every call (nothing is cached), each with a short timeout.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from core.redisconn import master_address, redis_client
from live import turns
from ops.models import Heartbeat, HeartbeatKind
from ops.tasks import CLOCK, SWEEP

PING_TIMEOUT_SECONDS = 0.5


def _database() -> dict[str, Any]:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:
        connection.close()  # a broken connection must not be reused by the next request
        return {
            "ok": False,
            "detail": f"The database does not answer: {_reason(error)}.",
            "latency_ms": None,
            "node": None,
        }
    latency = round((time.perf_counter() - started) * 1000, 2)
    node = _database_node()
    return {"ok": True, "detail": f"{connection.vendor} answers ({node}).", "latency_ms": latency, "node": node}


def _database_node() -> str:
    """The server this process's connection went to: with a multi-host DATABASE_URL,
    the host that libpq found accepting writes (host:port), or the SQLite file."""
    if connection.vendor != "postgresql":
        return str(connection.settings_dict["NAME"])
    info = connection.connection.info  # psycopg's: the host it actually connected to
    return f"{info.host} (socket)" if info.host.startswith("/") else f"{info.host}:{info.port}"


def _ping_redis(url: str) -> str | None:
    """None if Redis at ``url`` answers PING, else why not."""
    client = redis_client(url, socket_timeout=PING_TIMEOUT_SECONDS, socket_connect_timeout=PING_TIMEOUT_SECONDS)
    try:
        client.ping()
        return None
    except Exception as error:
        return _reason(error)
    finally:
        client.close()


def _redis() -> dict[str, Any]:
    if not settings.REDIS_URL:
        return {
            "ok": True,
            "configured": False,
            "detail": "Not configured (embedded mode): rate limits count per process, waiting clients poll.",
        }
    problem = _ping_redis(settings.REDIS_URL)
    if problem:
        return {
            "ok": False,
            "configured": True,
            "detail": f"Redis does not answer ({problem}): moves and reads still work; rate limits count per "
            "process and waiting clients re-read the database until it is back.",
        }
    try:
        node: str | None = master_address(settings.REDIS_URL, timeout=PING_TIMEOUT_SECONDS)
    except Exception:  # the sentinels stopped answering since the ping: say so, not fail
        node = None
    return {
        "ok": True,
        "configured": True,
        "detail": f"Redis answers ({node or 'the master is being chosen'}).",
        "node": node,
    }


def _broker() -> dict[str, Any]:
    url = settings.CELERY_BROKER_URL
    scheme = url.partition("://")[0]
    if scheme in ("redis", "rediss", "sentinel"):
        # kombu's form of a sentinel URL is REDIS_URL's (config.settings.celery).
        problem = _ping_redis(settings.REDIS_URL if scheme == "sentinel" else url)
        if problem:
            return {
                "ok": False,
                "transport": "sentinel" if scheme == "sentinel" else "redis",
                "detail": f"The broker (Redis) does not answer ({problem}): no bot or turn clock can move until "
                "it is back; then the workers re-send every pending turn.",
            }
        return {
            "ok": True,
            "transport": "sentinel" if scheme == "sentinel" else "redis",
            "detail": "The broker (Redis) answers.",
        }
    if scheme == "filesystem":
        folder = settings.BROKER_DIR
        if not (folder.is_dir() and os.access(folder, os.W_OK)):
            return {"ok": False, "transport": "filesystem", "detail": f"The broker folder {folder} is not writable."}
        return {"ok": True, "transport": "filesystem", "detail": f"The embedded broker folder {folder} is writable."}
    return {"ok": True, "transport": scheme, "detail": f"The broker is {scheme}:// (not checked)."}


def _workers(now: datetime) -> dict[str, Any]:
    stale = timedelta(seconds=settings.HEALTH_WORKER_STALE_SECONDS)
    beats = list(Heartbeat.objects.filter(kind=HeartbeatKind.WORKER).order_by("-seen_at"))
    alive = [
        {
            "name": b.name.removeprefix("worker:"),
            "pid": b.detail.get("pid"),
            "started_at": b.started_at,
            "seen_at": b.seen_at,
        }
        for b in beats
        if now - b.seen_at <= stale
    ]
    last = beats[0].seen_at if beats else None
    if alive:
        detail = f"{len(alive)} worker(s) alive."
    elif last is None:
        detail = "No worker has ever reported: start one (celery -A config worker); bots and turn clocks wait."
    else:
        detail = (
            f"No worker has reported for {(now - last).total_seconds():.0f} s: bots and turn clocks wait until "
            "one is running and connected to the broker."
        )
    return {"ok": bool(alive), "detail": detail, "last_heartbeat": last, "alive": alive}


def _sweep(now: datetime) -> dict[str, Any]:
    beat = Heartbeat.objects.filter(name=SWEEP).first()
    last = beat.seen_at if beat else None
    age = None if last is None else (now - last).total_seconds()
    ok = age is not None and age <= settings.HEALTH_SWEEP_STALE_SECONDS
    if ok:
        detail = f"The sweep ran {age:.1f} s ago."
    else:
        since = "has never run" if age is None else f"last ran {age:.0f} s ago"
        detail = (
            f"The sweep {since}: is beat running (celery -A config beat)? Lost turn clocks are only "
            "recovered when a worker (re)starts until it is."
        )
    return {"ok": ok, "detail": detail, "last_run": last, "interval_seconds": settings.SWEEP_INTERVAL_SECONDS}


def _clock(now: datetime) -> dict[str, Any]:
    beat = Heartbeat.objects.filter(name=CLOCK).first()
    last = beat.seen_at if beat else None
    detail_of_run: dict[str, Any] = beat.detail if beat else {}
    failed = int(detail_of_run.get("failed") or 0)
    age = None if last is None else (now - last).total_seconds()
    running = age is not None and age <= settings.HEALTH_CLOCK_STALE_SECONDS
    if not running:
        since = "has never run" if age is None else f"last ran {age:.0f} s ago"
        detail = (
            f"The turn clock {since}: are beat and a worker running? Turn deadlines pass without a "
            "timeout until it runs (the sweep plays them late if it runs)."
        )
    elif failed:
        detail = f"The turn clock ran {age:.1f} s ago but could not play {failed} timeout(s): see the worker's log."
    else:
        detail = f"The turn clock ran {age:.1f} s ago."
    return {
        "ok": running and not failed,
        "detail": detail,
        "last_run": last,
        "interval_seconds": settings.CLOCK_INTERVAL_SECONDS,
        "fired": detail_of_run.get("fired"),
        "failed": failed if beat else None,
    }


def _turns(now: datetime) -> dict[str, Any]:
    late_after = timedelta(seconds=settings.HEALTH_TURN_LATE_SECONDS)
    pending = turns.pending_turns()
    due = [t for t in pending if t.due_at <= now]
    late = [t for t in due if now - t.due_at > late_after]
    oldest = max(((now - t.due_at).total_seconds() for t in late), default=None)
    if late:
        detail = (
            f"{len(late)} turn(s) overdue by more than {late_after.total_seconds():.0f} s "
            f"(the oldest by {oldest:.0f} s): bots or turn clocks are not being played."
        )
    else:
        detail = f"{len(pending)} pending, {len(due)} due now, none late."
    return {
        "ok": not late,
        "detail": detail,
        "pending": len(pending),
        "due": len(due),
        "late": len(late),
        "oldest_late_seconds": None if oldest is None else round(oldest, 1),
    }


def _supervised() -> list[dict[str, Any]]:
    """The processes ``manage.py serve`` supervises, as it last reported them."""
    recent = timezone.now() - timedelta(seconds=30)
    beat = Heartbeat.objects.filter(kind=HeartbeatKind.SUPERVISOR, seen_at__gte=recent).order_by("-seen_at").first()
    return list(beat.detail.get("children", [])) if beat else []


def report() -> dict[str, Any]:
    """Run every check. ``status``: ``ok``, ``degraded`` (something is wrong but
    moves are still accepted) or ``down`` (the database is unreachable)."""
    now = timezone.now()
    checks: dict[str, dict[str, Any]] = {"database": _database(), "redis": _redis(), "broker": _broker()}
    database_ok = checks["database"]["ok"]
    unknown = {"ok": False, "detail": "Unknown: the database does not answer."}
    if database_ok:
        checks.update(workers=_workers(now), sweep=_sweep(now), clock=_clock(now), turns=_turns(now))
    else:
        checks.update(
            workers={**unknown, "last_heartbeat": None, "alive": []},
            sweep={**unknown, "last_run": None, "interval_seconds": settings.SWEEP_INTERVAL_SECONDS},
            clock={
                **unknown,
                "last_run": None,
                "interval_seconds": settings.CLOCK_INTERVAL_SECONDS,
                "fired": None,
                "failed": None,
            },
            turns={**unknown, "pending": None, "due": None, "late": None, "oldest_late_seconds": None},
        )
    problems = [check["detail"] for check in checks.values() if not check["ok"]]
    supervised = _supervised() if database_ok else []
    problems += [
        f"The {child['name']} process is not running ({child['last_exit']}); serve is restarting it."
        for child in supervised
        if not child["running"]
    ]
    status = "ok" if not problems else "degraded" if database_ok else "down"
    return {"status": status, "checked_at": now, "problems": problems, "checks": checks, "supervised": supervised}


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
