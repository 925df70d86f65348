"""A moderator's second factor in headless Chromium: without a confirmed one no
admin page answers (each sends to the set-up page); the moderator sets it up with a
code computed from the secret the page shows, gets the recovery codes, logs out,
logs in again with the password and a code, and once more with a recovery code,
which then no longer works. The screenshots go to ``artifacts/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from players.models import User
from tests.conftest import PASSWORD
from tests.moderation.test_admin_browser import WAIT_SECONDS, browser, save_page  # noqa: F401 - the fixture
from tests.totp import code, fresh_step

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_moderator_sets_up_and_uses_the_second_factor(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    make_player("maria")
    call_command("add_moderator", "maria", stdout=open("/dev/null", "w"))  # noqa: SIM115
    wait = WebDriverWait(browser, WAIT_SECONDS)

    def log_in_with_password(next_path: str) -> None:
        browser.get(f"{live_server.url}/admin/login/?next={next_path}")
        browser.find_element(By.NAME, "username").send_keys("maria")
        browser.find_element(By.NAME, "password").send_keys(PASSWORD)
        browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
        wait.until(seen.presence_of_element_located((By.ID, "second-factor-form")))

    def enter(value: str) -> None:
        field = browser.find_element(By.NAME, "code")
        field.clear()
        field.send_keys(value)
        browser.find_element(By.CSS_SELECTOR, "#second-factor-form input[type=submit]").click()

    def log_out() -> None:
        browser.find_element(By.CSS_SELECTOR, "#logout-form button, #second-factor-log-out").click()
        wait.until(seen.presence_of_element_located((By.ID, "content")))
        browser.delete_all_cookies()

    # The password alone: every admin page sends to the set-up.
    log_in_with_password("/admin/")
    assert "/admin/second-factor/set-up/" in browser.current_url
    for page in ("/admin/", "/admin/players/user/", "/admin/moderation/report/", "/admin/games/game/"):
        browser.get(live_server.url + page)
        wait.until(seen.presence_of_element_located((By.ID, "second-factor-secret")))
        assert "/admin/second-factor/set-up/" in browser.current_url, page
        assert not browser.find_elements(By.ID, "result_list"), page
    save_page(browser, tmp_path / "admin-second-factor-set-up.png")

    # The set-up: the secret as an app would read it, a wrong code, then a right one.
    secret = browser.find_element(By.ID, "second-factor-secret").text
    assert browser.find_element(By.ID, "second-factor-uri").get_attribute("href").startswith("otpauth://totp/")
    step = fresh_step()
    enter(code(secret, step + 5))
    wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "#second-factor-form .errorlist")))
    enter(code(secret, step))
    codes_list = wait.until(seen.presence_of_element_located((By.ID, "recovery-codes")))
    recovery = [item.text for item in codes_list.find_elements(By.TAG_NAME, "li")]
    assert len(recovery) == 10
    save_page(browser, tmp_path / "admin-second-factor-codes.png")
    browser.find_element(By.ID, "second-factor-continue").click()
    wait.until(seen.presence_of_element_located((By.ID, "site-name")))
    browser.get(f"{live_server.url}/admin/players/user/")
    wait.until(seen.presence_of_element_located((By.ID, "result_list")))
    log_out()

    # Again: the password, then a code the app shows now.
    log_in_with_password("/admin/players/user/")
    assert "/admin/second-factor/?next=" in browser.current_url
    step = fresh_step()
    enter(code(secret, max(step, User.objects.get(username="maria").second_factor.last_step + 1)))
    wait.until(seen.presence_of_element_located((By.ID, "result_list")))
    log_out()

    # A recovery code, once.
    log_in_with_password("/admin/")
    enter(recovery[0])
    wait.until(seen.presence_of_element_located((By.ID, "site-name")))
    assert "/admin/second-factor/" not in browser.current_url
    log_out()
    log_in_with_password("/admin/")
    enter(recovery[0])
    error = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "#second-factor-form .errorlist")))
    assert "used already" in error.text
    browser.get(f"{live_server.url}/admin/players/user/")
    wait.until(seen.presence_of_element_located((By.ID, "second-factor-form")))
    save_page(browser, tmp_path / "admin-second-factor-code.png")
