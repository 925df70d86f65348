"""'Your account' (/account/) in real browsers (headless Chromium against the embedded
``manage.py serve``):

* warnings (a new one appears live and is acknowledged from the page) and sanctions
  (a mute with its reason and end);
* the signed-in devices: a second browser of the same account is listed; "Sign out"
  on it from the first signs the second's open page out within 2 s (the account
  stream closes, the page checks at once and goes to the log-in page);
* change the password (the new one logs in, the old one no longer does);
* download my data: the JSON file the page saves has the profile, games and chat;
* delete the account: the page signs out; the finished game it played still replays,
  its seat under the anonymous name.
Screenshots: artifacts/web-account.png, web-account-phone.png.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import (
    PASSWORD,
    base_url,
    check_requests_against_contract,
    click,
    fill,
    open_table,
    save_shot,
    sign_in,
    until,
)
from tests.web.talk import log_in, moderate, visible

pytestmark = [pytest.mark.slow]

SIGN_OUT_SECONDS = 2.0  # the bound: a revoked device's open page is signed out within 2 s
NEW_PASSWORD = "a brand new passphrase 77"
FINISH_SECONDS = 90  # bots play a resigned seat's one-hand game to its end


def route(driver: Any) -> str:
    return str(driver.execute_script("return document.body.dataset.route || ''"))


def devices(driver: Any) -> list[dict[str, Any]]:
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=device-list] li[data-token]')]"
            ".map(li => ({id: Number(li.dataset.token), current: li.dataset.current === 'true'}));"
        )
    )


def standing_text(driver: Any) -> str:
    return str(driver.execute_script("return document.querySelector('[data-testid=standing]')?.textContent || ''"))


def status_text(driver: Any) -> str:
    return str(
        driver.execute_script("return document.querySelector('[data-testid=account-status]')?.textContent || ''")
    )


def test_devices_password_my_data_and_deleting_the_account(
    embedded: Serve, make_browser: Callable[..., Any], tmp_path: Path
) -> None:
    laptop, phone = make_browser(), make_browser(360, 740)
    token = sign_in(laptop, embedded, "acct_alice")
    phone_token = log_in(phone, embedded, "acct_alice")  # the phone's device
    port = embedded.port

    # A game that finishes: alice sits, a bot takes the other seat, she resigns; bots play it out.
    game_id = open_table(embedded, token, players=2, bots=["greedy"])
    assert (
        request(
            port, "POST", f"/api/v1/games/{game_id}/chat/", {"channel": "players", "text": "good luck"}, token=token
        )[0]
        == 201
    )
    assert request(port, "POST", f"/api/v1/games/{game_id}/resign/", token=token)[0] == 200

    for driver in (laptop, phone):
        driver.get(f"{base_url(embedded)}/account/")
        # the test's own API token (sign_in's), the laptop's session and the phone's
        until(driver, "the devices", lambda d: len(devices(d)) == 3)
    listed = devices(laptop)
    assert [d["current"] for d in listed].count(True) == 1
    assert next(d for d in devices(phone) if d["current"])["id"] == phone_token["id"]
    save_shot(laptop, "account")
    save_shot(phone, "account-phone")

    # A moderator's warning arrives on the open page (the account stream), and is acknowledged there;
    # a mute is listed with its reason and end.
    moderate(
        embedded,
        "moderation.moderation_player_mute(player=alice, by=mod, reason='Flooding the chat', "
        "until=timezone.now() + timedelta(hours=3)).pk",
        alice="acct_alice",
    )
    moderate(
        embedded,
        "moderation.moderation_player_warn(player=alice, by=mod, text='Please be polite.').pk",
        alice="acct_alice",
    )
    until(laptop, "the warning, live", lambda d: "Please be polite." in standing_text(d))
    click(laptop, "[data-testid=warning-list] [data-testid=warning-ack]")
    until(laptop, "the warning acknowledged", lambda d: d.execute_script(
        "return document.querySelector('[data-testid=warning-list] li')?.dataset.acknowledged === 'true'"
    ))  # fmt: skip
    laptop.refresh()
    until(laptop, "the mute listed", lambda d: "Flooding the chat" in standing_text(d))
    mute = laptop.execute_script(
        "const li = document.querySelector('[data-testid=sanction-list] li[data-kind=mute]');"
        "return {active: li.dataset.inForce, text: li.textContent};"
    )
    assert mute["active"] == "true" and "until" in mute["text"], mute
    until(laptop, "the devices again", lambda d: len(devices(d)) == 3)

    # Sign the phone out from the laptop: its open page is signed out within 2 s.
    click(laptop, f"[data-testid=device-list] li[data-token='{phone_token['id']}'] [data-testid=device-revoke]")
    clicked = time.monotonic()
    until(phone, "the phone's page signed out", lambda d: route(d) == "login", seconds=SIGN_OUT_SECONDS + 1)
    assert time.monotonic() - clicked <= SIGN_OUT_SECONDS, time.monotonic() - clicked
    assert phone.execute_script("return localStorage.getItem('cf.session')") is None
    until(laptop, "the phone's device gone", lambda d: len(devices(d)) == 2)

    # Change the password.
    fill(laptop, "#password-current", PASSWORD)
    fill(laptop, "#password-new", NEW_PASSWORD)
    fill(laptop, "#password-new2", NEW_PASSWORD)
    click(laptop, "#password-submit")
    until(laptop, "the change confirmed", lambda d: "Password changed" in status_text(d))
    login = {"username": "acct_alice", "name": "check"}
    assert request(port, "POST", "/api/v1/tokens/", {**login, "password": PASSWORD})[0] == 401
    assert request(port, "POST", "/api/v1/tokens/", {**login, "password": NEW_PASSWORD})[0] == 201

    # Download my data: the file the page saves.
    laptop.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    click(laptop, "#data-download")
    saved = tmp_path / "chicken-foot-acct_alice.json"
    until(laptop, "the downloaded file", lambda d: saved.exists() and saved.stat().st_size > 0)
    data = json.loads(saved.read_text())
    assert data["profile"]["username"] == "acct_alice"
    assert [g["game"] for g in data["games"]] == [game_id]
    assert [m["text"] for m in data["chat"]] == ["good luck"]
    assert {"ratings", "reports", "warnings", "sanctions", "devices"} <= set(data)

    # Delete the account, once the game is over.
    until(
        laptop,
        "the game to finish",
        lambda d: request(port, "GET", f"/api/v1/games/{game_id}/")[1]["game"]["status"] == "finished",
        seconds=FINISH_SECONDS,
    )
    fill(laptop, "#delete-password", NEW_PASSWORD)
    click(laptop, "#delete-submit")
    until(laptop, "the refusal without the tick", lambda d: visible(d, "[data-testid=alert]"))
    click(laptop, "#delete-confirm")
    click(laptop, "#delete-submit")
    until(laptop, "the lobby, signed out", lambda d: route(d) == "lobby" and visible(d, "[data-testid=login-link]"))
    assert request(port, "POST", "/api/v1/tokens/", {**login, "password": NEW_PASSWORD})[0] == 401

    # The finished game still replays, the seat anonymised.
    laptop.get(f"{base_url(embedded)}/games/{game_id}/replay/")
    until(laptop, "the replay's steps", lambda d: int(d.execute_script(
        "return document.querySelector('[data-testid=replay]')?.dataset.steps || 0") or 0) > 3)  # fmt: skip
    text = laptop.execute_script("return document.querySelector('main').textContent")
    assert "acct_alice" not in text
    assert "deleted-" in text
    for driver in (laptop, phone):
        check_requests_against_contract(driver)


def test_the_account_page_in_estonian_writes_the_date_and_names_the_device_in_estonian(
    embedded: Serve, browser: Any
) -> None:
    """Signed in from a page reading Estonian: the line under the heading says when the
    account joined as the site writes dates (``formatDate``, "7. dets 2026", where the
    sentence keeps it as it is - not "alates 7. detsember", which needs another case), and
    the browser's device is named in Estonian ("Veebiklient - Chrome")."""
    browser.get(base_url(embedded) + "/login/")
    browser.add_cookie({"name": "language", "value": "et", "path": "/"})
    token = sign_in(browser, embedded, "acct_eesti")
    joined = request(embedded.port, "GET", "/api/v1/me/", token=token)[1]["date_joined"]
    browser.get(f"{base_url(embedded)}/account/")
    until(browser, "the devices", lambda d: len(devices(d)) == 2)  # sign_in's API token and this browser
    date = browser.execute_script(
        "return new Intl.DateTimeFormat('et', {dateStyle: 'medium'}).format(new Date(arguments[0]));", joined
    )
    since = browser.execute_script("return document.querySelector('[data-testid=account-since]').textContent")
    assert since == f"Oled sisse logitud kui acct_eesti. Liitunud: {date}.", since
    current = browser.execute_script(
        "return document.querySelector('[data-testid=device-list] li[data-current=true] [data-testid=device-name]')"
        ".textContent"
    )
    assert current == "Veebiklient - Chrome", current  # headless Chromium says HeadlessChrome/...
    check_requests_against_contract(browser)
