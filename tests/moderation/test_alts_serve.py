"""The embedded default purges old address hashes too: ``manage.py serve`` (SQLite,
the folder broker, its own worker and beat) deletes the ones older than 30 days,
from CELERY_BEAT_SCHEDULE alone, and keeps the recent ones."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.serve import Serve
from tests.integration.workers import ROOT, wait_for

pytestmark = pytest.mark.slow

SEED = """
from datetime import timedelta
from django.utils import timezone
from players import address_hash
from players import services as players
old = players.user_register(username="old", password="a long passphrase 42")
new = players.user_register(username="new", password="a long passphrase 42")
address_hash.remember(old, "192.0.2.1", now=timezone.now() - timedelta(days=31))
address_hash.remember(new, "192.0.2.1")
"""


def sightings(database: Path) -> list[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT u.username FROM players_addresssighting s JOIN players_user u ON u.id = s.account_id"
        ).fetchall()
    return sorted(name for (name,) in rows)


def test_serve_purges_address_hashes_older_than_thirty_days(tmp_path: Path) -> None:
    serve = Serve(tmp_path / "serve", env={"ADDRESS_HASH_PURGE_SECONDS": "0.5"}, account=False)
    try:
        subprocess.run([sys.executable, "manage.py", "shell", "-c", SEED], cwd=ROOT, env=serve.env, check=True)
        database = tmp_path / "serve" / "db.sqlite3"
        wait_for(
            lambda: sightings(database) == ["new"], 30, interval=0.2, what="the old hash purged", explain=serve.log
        )
    finally:
        serve.stop()
