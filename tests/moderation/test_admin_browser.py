"""The real admin in headless Chromium: a moderator logs in, opens a running
game and aborts it with a reason; the public API then shows it aborted.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them).
Without them the test is skipped, saying so - except under ``CI=true``, where a
missing browser is a failure, like any missing service. The screenshot is kept
in pytest's tmp path and in ``artifacts/admin-abort.png`` for people to look at.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.games_helpers import play_turn, view
from tests.moderation.admin_login import admin_log_in
from tests.moderation.conftest import game_admin_url
from tests.services import in_ci

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1100",
)
WAIT_SECONDS = 20

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _missing_browser() -> str | None:
    """Why the browser cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -r requirements-dev.txt)"
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if missing:
        return f"{' and '.join(missing)} not found (apt-get install chromium chromium-driver)"
    return None


def chromium(tmp_path: Path, *, console: bool = False) -> Iterator[Any]:
    """Headless Chromium for the admin tests (``console``: keeping the page's console
    log, for the CSP test); fails under CI, else skips, when there is none."""
    problem = _missing_browser()
    if problem:
        if in_ci():
            pytest.fail(f"CI=true and the admin browser test cannot run: {problem}")
        pytest.skip(f"needs headless Chromium: {problem}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(WAIT_SECONDS)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    yield from chromium(tmp_path)


def save_page(browser: Any, shot: Path) -> None:
    """A screenshot of the whole page, in ``shot`` and under ``artifacts/``."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(max(height, 800), 6000))
    assert browser.save_screenshot(str(shot))
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copyfile(shot, ARTIFACTS / shot.name)


def test_a_moderator_aborts_a_game_in_the_browser(
    browser: Any, live_server: Any, moderator: Any, make_table: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    table = make_table(players=3)
    rng = random.Random(3)
    for _ in range(4):  # a few tiles on the table for the layout picture
        play_turn(table.clients[table.game().turn_seat], table.game_id, rng)
    wait = WebDriverWait(browser, WAIT_SECONDS)

    admin_log_in(browser, wait, moderator.username, url=f"{live_server.url}/admin/login/?next=/admin/")

    browser.get(live_server.url + game_admin_url(table.game_id))
    save_page(browser, tmp_path / "admin-game.png")
    wait.until(seen.element_to_be_clickable((By.ID, "tool-abort"))).click()
    wait.until(seen.presence_of_element_located((By.NAME, "reason"))).send_keys("Table stuck: two players left.")
    browser.find_element(By.NAME, "confirm").click()
    message = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    assert f"Game {table.game_id} aborted." in message.text

    save_page(browser, tmp_path / "admin-abort.png")

    body = view(table.clients[2], table.game_id)["game"]
    assert (body["status"], body["abort_reason"], body["moderated"]) == (
        "aborted",
        "Table stuck: two players left.",
        True,
    )
