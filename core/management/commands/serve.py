"""``manage.py serve``: the whole server in one command (``make serve``).

Starts a Celery worker with the beat schedule as a child process (bots move and
turn clocks run out through the same tasks as in production; without REDIS_URL
the broker is a folder on disk) and serves the web app with uvicorn in the
foreground. Ctrl-C stops both. A real deployment runs the three processes
separately (see the README's Procfile).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve the game: web server plus a Celery worker and beat (bots, turn clocks)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-worker", action="store_true", help="Do not start the worker (run it yourself).")

    def handle(self, *args: Any, host: str, port: int, no_worker: bool, **options: Any) -> None:
        worker = None
        if not no_worker:
            run_dir = settings.BASE_DIR / ".run"
            run_dir.mkdir(exist_ok=True)
            worker = subprocess.Popen([
                sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "-P", "solo", "-l", "warning",
                "-s", str(run_dir / "celerybeat-schedule"),
            ])
            self.stdout.write(f"worker and beat started (pid {worker.pid}), broker {settings.CELERY_BROKER_URL.split('@')[-1]}")
        self.stdout.write(f"serving on http://{host}:{port}/  (API docs: http://{host}:{port}/api/docs/)")
        web = subprocess.Popen([sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", host, "--port", str(port)])
        try:
            web.wait()
        except KeyboardInterrupt:
            pass
        finally:
            for process in (web, worker):
                if process is not None and process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in (web, worker):
                if process is not None:
                    try:
                        process.wait(10)
                    except subprocess.TimeoutExpired:
                        process.kill()
