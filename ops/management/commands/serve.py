"""``manage.py serve``: the whole server in one command (``make serve``).

Runs four supervised processes (``ops.supervisor``): the web server (uvicorn),
a Celery worker (bots, turn clocks), a Celery worker for game analyses (their own
queue, ``ANALYSIS_QUEUE``) and Celery beat (the turn clock's runs, the sweep
that re-sends lost work). Without REDIS_URL the broker is a folder on disk (``core.brokers``). A
process that dies is logged with its reason and started again; Ctrl-C or
SIGTERM stops them all, leaving nothing behind. What the supervisor sees is also
in the health report (``/api/v1/health/``, ``supervised``). A real deployment
runs the three processes under its own process manager (see the README). With
DEBUG off, serve first runs ``collectstatic`` if the static files were never
collected or a source changed since (DEBUG on serves them from the apps' folders).
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from core import metrics
from core.brokers import CLAIMED_FOLDER, TMP_FOLDER
from core.processes import bind_error, celery_command
from ops import heartbeats
from ops.models import Heartbeat, HeartbeatKind
from ops.supervisor import Child, Supervisor

log = logging.getLogger("ops.serve")

REPORT_SECONDS = 5.0


#: The analysis worker runs at a lower priority than the web server and the bots' worker.
NICE = ["nice", "-n", "10"] if shutil.which("nice") else []


class Command(BaseCommand):
    help = (
        "Serve the game, supervised: the web server, a Celery worker (bots, turn clocks), a Celery worker "
        "for game analyses and beat."
    )

    def add_arguments(self, parser: Any) -> None:
        # No HOST variable: shells set one to the machine's name (zsh, some images),
        # which would silently move the server off the loopback address.
        parser.add_argument("--host", default="127.0.0.1", help="Listen on this address (0.0.0.0: every interface).")
        parser.add_argument(
            "--port", type=int, default=int(os.environ.get("PORT", "8000")), help="Default: PORT, else 8000."
        )
        parser.add_argument("--no-worker", action="store_true", help="Start no worker or beat (run them yourself).")
        parser.add_argument(
            "--restart-delay",
            type=float,
            default=1.0,
            metavar="SECONDS",
            help="Wait this long before restarting a process that died (doubling while it keeps dying, up to 30 s).",
        )

    def handle(self, *args: Any, host: str, port: int, no_worker: bool, restart_delay: float, **options: Any) -> None:
        _require_free_port(host, port)
        run_dir = settings.RUN_DIR
        run_dir.mkdir(parents=True, exist_ok=True)
        if metrics.enabled():  # every child writes its metrics here (docs/observability.md)
            metrics.prepare_dir(settings.METRICS_DIR)
        if settings.CELERY_BROKER_URL.startswith("filesystem://"):
            _clear_half_done_messages()
        if _static_files_stale():
            self.stdout.write(f"serve: collecting the static files into {settings.STATIC_ROOT} (DEBUG is off)")
            call_command("collectstatic", interactive=False, verbosity=0)
        python = sys.executable
        children = [
            Child(
                "web",
                [
                    python,
                    "-m",
                    "uvicorn",
                    "config.asgi:application",
                    "--host",
                    host,
                    "--port",
                    str(port),
                    "--timeout-graceful-shutdown",
                    "5",
                    "--no-proxy-headers",
                ],
            )
        ]
        if not no_worker:
            children += [
                Child("worker", celery_command("worker", "-n", "serve@%h")),
                # Game analyses on a queue of their own: they never hold up a bot turn (docs/bots.md).
                Child(
                    "analysis", [*NICE, *celery_command("worker", "-n", "analysis@%h", "-Q", settings.ANALYSIS_QUEUE)]
                ),
                Child("beat", celery_command("beat", "-s", str(run_dir / "celerybeat-schedule"))),
            ]
        _forget_old_reports()
        supervisor = Supervisor(
            children, backoff=restart_delay, max_backoff=max(30.0, restart_delay), on_change=_report
        )
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, lambda *_: stop.set())

        base = f"http://{host}:{port}"
        broker = settings.CELERY_BROKER_URL.split("@")[-1]
        # What runs, by the names the log and the health report give them.
        running = _in_words([child.name for child in children]) + (
            " (no worker or beat: --no-worker)" if no_worker else ""
        )
        self.stdout.write(f"serve (pid {os.getpid()}): {running}; broker {broker}")
        self.stdout.write(f"serving on {base}/  API docs: {base}/api/docs/  health: {base}/api/v1/health/")
        next_report = time.monotonic() + REPORT_SECONDS

        def every_tick() -> None:
            nonlocal next_report
            if time.monotonic() >= next_report:
                next_report = time.monotonic() + REPORT_SECONDS
                _report(supervisor)

        try:
            supervisor.start_all()
            supervisor.run(stop, every=every_tick)
        finally:
            self.stdout.write("serve: stopping")
            supervisor.stop_all()
            _forget_old_reports(including_own=True)
            self.stdout.write("serve: stopped")


def _in_words(names: list[str]) -> str:
    """["web", "worker", "beat"] -> "web, worker and beat"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _require_free_port(host: str, port: int) -> None:
    """Refuse at once, in words, rather than let the supervisor restart a web server that cannot bind."""
    error = bind_error(host, port)
    if error is not None:
        raise CommandError(
            f"Cannot serve on {host}:{port}: {error.strerror}. Is another server running? "
            "Choose another port with --port (or PORT=...)."
        )


def _static_files_stale() -> bool:
    """With DEBUG off the pages name the content-hashed copies in STATIC_ROOT that
    ``collectstatic`` writes (``config/settings/base.py``): are they missing, or older
    than a source file? (With DEBUG on, the files are served from the apps' folders.)"""
    if settings.DEBUG:
        return False
    manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if not manifest.is_file():
        return True
    collected_at = manifest.stat().st_mtime
    for finder in finders.get_finders():
        for path, storage in finder.list(["CVS", ".*", "*~"]):
            if os.stat(storage.path(path)).st_mtime > collected_at:
                return True
    return False


def _clear_half_done_messages() -> None:
    """Nothing consumes the embedded broker now: files a killed process was writing
    or reading are left over. Every pending turn is re-sent when the worker starts."""
    for name in (TMP_FOLDER, CLAIMED_FOLDER):
        shutil.rmtree(settings.BROKER_DIR / name, ignore_errors=True)


def _report_name() -> str:
    return f"serve:{socket.gethostname()}:{os.getpid()}"


def _forget_old_reports(*, including_own: bool = False) -> None:
    try:
        old = Heartbeat.objects.filter(kind=HeartbeatKind.SUPERVISOR, seen_at__lt=timezone.now() - timedelta(minutes=1))
        old.delete()
        if including_own:
            Heartbeat.objects.filter(name=_report_name()).delete()
    except Exception as error:
        log.warning("serve: could not tidy the supervisor's reports (%s)", error)


def _report(supervisor: Supervisor) -> None:
    """Record what the supervisor sees, for the health report."""
    children = [
        {
            "name": c.name,
            "pid": c.pid,
            "running": c.running,
            "restarts": c.restarts,
            "last_exit": c.last_exit,
            "last_exit_at": c.last_exit_at.isoformat() if c.last_exit_at else None,
        }
        for c in supervisor.children
    ]
    try:
        heartbeats.record(kind=HeartbeatKind.SUPERVISOR, name=_report_name(), children=children)
    except Exception as error:  # the database is away: supervising goes on
        log.warning("serve: could not record the supervised processes (%s)", error)
