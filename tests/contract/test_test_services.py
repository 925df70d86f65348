"""The test services of two checkouts stay apart (``tests/services.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import services


def test_the_default_names_are_this_checkouts_own():
    assert services.POSTGRES_URL.endswith(f"/chickenfoot_{services.CHECKOUT_ID}")
    assert f"cf-test-{services.CHECKOUT_ID}" == services.CACHE_KEY_PREFIX
    db = int(services.REDIS_URL.rsplit("/", 1)[1])
    assert 1 <= db <= 14  # neither make serve's 0 nor the brokers' 15


def test_another_checkout_gets_other_names(tmp_path):
    """A copy of the module elsewhere (another checkout) derives another id."""
    copy = tmp_path / "other-checkout" / "tests"
    copy.mkdir(parents=True)
    (copy / "services.py").write_text(Path(services.__file__).read_text())
    other = subprocess.run(
        [sys.executable, "-c", "import services; print(services.CHECKOUT_ID)"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert len(other) == 8 and other != services.CHECKOUT_ID


def test_database_url_still_wins():
    environ = {"DATABASE_URL": "sqlite:///elsewhere.sqlite3"}
    assert services.select_database(environ).url == "sqlite:///elsewhere.sqlite3"
    assert environ["DATABASE_URL"] == "sqlite:///elsewhere.sqlite3"
