"""Logging in to the admin as staff do: the password, then the second factor's
code (players.admin_gate). The account gets a confirmed second factor first if it
has none; its secret is kept so that later log-ins compute their codes."""

from __future__ import annotations

import base64
from typing import Any

from players import second_factor
from players.models import User
from tests.conftest import PASSWORD
from tests.totp import code, fresh_step


def second_factor_secret(user: User) -> str:
    """The base32 secret of ``user``'s confirmed second factor (set up and confirmed
    now if it has none), as the authenticator app holds it."""
    factor = second_factor.device(user)
    if factor is None or factor.confirmed_at is None:
        secret = second_factor.set_up(user=user).secret
        second_factor.confirm(user=user, code=code(secret, fresh_step() - 1))
        factor = second_factor.device(user)
    assert factor is not None
    return base64.b32encode(bytes.fromhex(factor.key)).decode().rstrip("=")


def admin_log_in(browser: Any, wait: Any, username: str, *, url: str | None = None) -> None:
    """Fill the admin's log-in form (opening ``url`` first if given), then the code
    page; waits for the admin's header of the page that follows."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen

    secret = second_factor_secret(User.objects.get(username=username))
    if url is not None:
        browser.get(url)
    browser.find_element(By.NAME, "username").send_keys(username)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    wait.until(seen.presence_of_element_located((By.ID, "second-factor-form")))
    step = fresh_step()
    user = User.objects.get(username=username)
    factor = second_factor.device(user)
    assert factor is not None
    browser.find_element(By.NAME, "code").send_keys(code(secret, max(step, factor.last_step + 1)))
    browser.find_element(By.CSS_SELECTOR, "#second-factor-form input[type=submit]").click()
    wait.until(seen.presence_of_element_located((By.ID, "site-name")))
    wait.until(lambda driver: "/admin/second-factor/" not in driver.current_url)
