"""The embedded default runs the lifting of sanctions too: ``manage.py serve``
(SQLite, the folder broker, its own worker and beat) reinstates an account whose
timed suspension ended, from CELERY_BEAT_SCHEDULE alone."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.serve import Serve
from tests.integration.workers import ROOT, wait_for

pytestmark = pytest.mark.slow

SUSPEND = """
from datetime import timedelta
from django.utils import timezone
from moderation import services
from players import services as players
root = players.user_register(username="root", password="a long passphrase 42")
root.is_staff = root.is_superuser = True
root.save()
victim = players.user_register(username="victim", password="a long passphrase 42")
services.moderation_player_suspend(player=victim, by=root, reason="cool off", until=timezone.now() + timedelta(seconds=5))
victim.refresh_from_db()
print("SUSPENDED" if not victim.is_active else "ACTIVE")
"""


def is_active(database: Path, username: str) -> bool:
    with sqlite3.connect(database) as connection:
        (active,) = connection.execute("SELECT is_active FROM players_user WHERE username = ?", [username]).fetchone()
    return bool(active)


def test_serve_lifts_a_timed_suspension_by_itself(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "serve", env={"SANCTIONS_INTERVAL_SECONDS": "0.5"}, account=False)
    try:
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SUSPEND],
            cwd=ROOT,
            env=serve.env,
            check=True,
            capture_output=True,
            text=True,
        )
        # Suspended, as read at once in the suspending process: a later read from here
        # could come after beat (every 0.5 s) lifted it on a loaded machine.
        assert done.stdout.strip().endswith("SUSPENDED"), done.stdout
        database = tmp_path / "serve" / "db.sqlite3"
        wait_for(lambda: is_active(database, "victim"), 30, interval=0.2, what="victim reinstated", explain=serve.log)
    finally:
        serve.stop()
