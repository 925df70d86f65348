"""Two-step sign-in in the web client (headless Chromium against the embedded
``manage.py serve``): a player turns it on from "Your account" (the key, the
otpauth link, a code computed here from the key as an app would, the recovery
codes), then the log-in form asks for the code after the password (a wrong one is
refused with the server's message), and a recovery code turns it off again.
Every request is an operation of the contract; the page shows no CSP violation
(tests/web/conftest.py). Screenshot: artifacts/web-second-factor.png."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.totp import code, fresh_step
from tests.web.conftest import (
    PASSWORD,
    base_url,
    check_requests_against_contract,
    click,
    fill,
    save_shot,
    sign_in,
    until,
)

pytestmark = [pytest.mark.slow]


def text_of(driver: Any, selector: str) -> str:
    return str(driver.execute_script("return document.querySelector(arguments[0])?.textContent || ''", selector))


def state(driver: Any) -> str:
    return str(driver.execute_script("return document.querySelector('#second-factor-panel')?.dataset.state || ''"))


def alert_code(driver: Any) -> str:
    return str(
        driver.execute_script(
            "return document.querySelector('#alerts [data-testid=alert]')?.getAttribute('data-code') || ''"
        )
    )


def test_a_player_turns_two_step_sign_in_on_signs_in_with_a_code_and_turns_it_off(
    embedded: Serve, browser: Any
) -> None:
    sign_in(browser, embedded, "tf_alice")
    base = base_url(embedded)
    browser.get(f"{base}/account/")
    until(browser, "the second factor's panel, off", lambda d: state(d) == "off")

    fill(browser, "#second-factor-password", PASSWORD)
    click(browser, "#second-factor-enable")
    until(browser, "the key", lambda d: state(d) == "pending" and text_of(d, "#second-factor-secret"))
    secret = text_of(browser, "#second-factor-secret")
    uri = browser.execute_script("return document.querySelector('#second-factor-uri').getAttribute('href')")
    assert uri.startswith("otpauth://totp/") and f"secret={secret}" in uri
    step = fresh_step()
    fill(browser, "#second-factor-code", code(secret, step))
    click(browser, "#second-factor-confirm")
    until(browser, "the recovery codes", lambda d: state(d) == "on" and d.execute_script(
        "return document.querySelectorAll('#recovery-codes li').length"
    ) == 10)  # fmt: skip
    recovery = browser.execute_script(
        "return [...document.querySelectorAll('#recovery-codes li')].map(li => li.textContent)"
    )
    save_shot(browser, "second-factor")

    # Signed out, the log-in form asks for the code after the password.
    browser.delete_all_cookies()
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    browser.get(f"{base}/login/")
    until(browser, "the log-in form", lambda d: d.execute_script("return !!document.querySelector('#login-form')"))
    assert not browser.execute_script("return document.querySelector('#login-otp').offsetParent")  # hidden
    fill(browser, "#login-username", "tf_alice")
    fill(browser, "#login-password", PASSWORD)
    click(browser, "#login-submit")
    until(browser, "the code asked for", lambda d: alert_code(d) == "otp_required")
    assert browser.execute_script("return document.querySelector('#login-otp').offsetParent !== null")
    fill(browser, "#login-password", PASSWORD)
    fill(browser, "#login-otp", code(secret, step + 7))
    click(browser, "#login-submit")
    until(browser, "a wrong code refused", lambda d: alert_code(d) == "otp_invalid")
    fill(browser, "#login-password", PASSWORD)
    fill(browser, "#login-otp", code(secret, step + 1))
    click(browser, "#login-submit")
    until(browser, "signed in", lambda d: text_of(d, "[data-testid=account-name]") == "tf_alice")

    # Off again, with the password and a recovery code.
    browser.get(f"{base}/account/")
    until(browser, "the panel, on", lambda d: state(d) == "on")
    assert "10" in text_of(browser, "#second-factor-status")
    fill(browser, "#second-factor-off-password", PASSWORD)
    fill(browser, "#second-factor-off-code", recovery[0])
    click(browser, "#second-factor-disable")
    until(browser, "the panel, off", lambda d: state(d) == "off")
    status, _ = request(
        embedded.port, "POST", "/api/v1/tokens/", {"username": "tf_alice", "password": PASSWORD, "name": "x"}
    )
    assert status == 201  # the password alone logs in again
    check_requests_against_contract(browser)
