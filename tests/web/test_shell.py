"""The browser client's shell: how it is served, what it may ask the server, and
accounts and the lobby in a real browser.

* Served: every client route answers the one page (never cached), its assets come
  from this server only; in development straight from the apps' folders, in
  production (DEBUG off, after collectstatic) under content-hashed, gzip-compressed,
  immutable names - the ES modules' imports included.
* The contract: js/api.js's OPERATIONS are operations of openapi.yaml, and no other
  module sends a request; in the browser tests, every request the page made is one
  (``check_requests_against_contract``).
* In headless Chromium against ``manage.py serve``: register, log out (the session
  ends on the server), log in with and without "remember me" (the HttpOnly cookie's
  lifetime), an old stored token revoked and forgotten; create a table with every setting,
  seat a bot, start it; "my games" follows the account stream without a reload; the
  lobby on a 360 px phone, by keyboard. Screenshots: artifacts/web-lobby.png,
  artifacts/web-phone-lobby.png.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from core.processes import free_port, gunicorn_command, spawn, stop_group, wait_for_http
from ops.management.commands.serve import _static_files_stale
from tests.integration.serve import Serve
from tests.integration.web import request
from tests.integration.workers import ROOT
from tests.web.conftest import (
    PASSWORD,
    base_url,
    check_requests_against_contract,
    contract_operations,
    operation_of,
    save_shot,
    sign_in,
    wait,
)

WEB = ROOT / "web" / "static" / "web"
JS = WEB / "js"
CLIENT_ROUTES = [
    "/",
    "/login/",
    "/register/",
    "/games/7/",
    "/games/7/replay/",
    "/leaderboard/",
    "/players/alice/",
    "/ladder/",
]
LIVE_SECONDS = 10  # the account stream brings a change well within this; the lists' own refresh is 15 s


# -- the contract, read from the files ----------------------------------------------------


def api_js_operations() -> list[tuple[str, str]]:
    source = (JS / "api.js").read_text()
    block = re.search(r"export const OPERATIONS = \[(.*?)\n\];", source, re.DOTALL)
    assert block, "api.js has no OPERATIONS list"
    return re.findall(r'\[\s*"([A-Z]+)",\s*"([^"]+)"\s*\]', block.group(1))


def test_the_operations_of_api_js_are_operations_of_the_contract() -> None:
    operations = api_js_operations()
    assert len(operations) >= 20
    contract = {(method, template) for method, template, _ in contract_operations()}
    unknown = [f"{method} {template}" for method, template in operations if (method, template) not in contract]
    assert not unknown, f"api.js lists operations openapi.yaml does not have: {unknown}"
    assert len(set(operations)) == len(operations)
    # the accounts and lobby ones, at least
    for needed in [
        ("POST", "/api/v1/players/"),
        ("POST", "/api/v1/session/"),
        ("DELETE", "/api/v1/session/"),
        ("DELETE", "/api/v1/tokens/{token_id}/"),  # an earlier version's stored token, revoked
        ("GET", "/api/v1/me/stream/"),
        ("GET", "/api/v1/games/"),
        ("POST", "/api/v1/games/{game_id}/bots/"),
    ]:
        assert needed in operations


REQUEST_CALLS = re.compile(
    r"\bfetch\s*\(|\bXMLHttpRequest\b|\bEventSource\s*\(|new\s+EventSource\b|\bWebSocket\b|sendBeacon\s*\(|\bimport\s*\(\s*['\"`]https?:"
)


def code_of(source: str) -> str:
    """A JS source without its comments (roughly: // to the end of a line, /* ... */)."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.DOTALL)
    return re.sub(r"(^|[^:\\])//[^\n]*", r"\1", source)


def test_api_js_is_the_only_module_that_sends_requests() -> None:
    modules = sorted(JS.glob("*.js"))
    assert {"api.js", "sse.js", "ui.js", "app.js", "lobby.js", "accounts.js"} <= {m.name for m in modules}
    offenders = {
        module.name: REQUEST_CALLS.findall(code_of(module.read_text())) for module in modules if module.name != "api.js"
    }
    assert not {name: calls for name, calls in offenders.items() if calls}
    assert REQUEST_CALLS.search(code_of((JS / "api.js").read_text()))
    # and no module loads code or data from another host
    for module in modules:
        assert not re.search(r"""(?:from|import)\s*\(?\s*["']https?://""", module.read_text()), module.name


def test_the_static_modules_import_only_modules_that_exist() -> None:
    for module in JS.glob("*.js"):
        for target in re.findall(
            r"""^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']""", module.read_text(), re.M
        ):
            assert target.startswith("./") and (JS / target).is_file(), f"{module.name} imports {target}"


def test_operation_matching_in_the_tests_knows_templates() -> None:
    assert operation_of("GET", "/api/v1/games/12/stream/") == "/api/v1/games/{game_id}/stream/"
    assert operation_of("DELETE", "/api/v1/tokens/3/") == "/api/v1/tokens/{token_id}/"
    assert operation_of("PUT", "/api/v1/games/12/") is None
    assert operation_of("GET", "/api/v1/games/12/secret/") is None


# -- served by Django (development settings) ----------------------------------------------


@pytest.mark.parametrize("path", CLIENT_ROUTES)
def test_every_client_route_answers_the_page(client: Any, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "no-cache" in response["Cache-Control"]
    html = response.content.decode()
    assert '<script type="module" src="/static/web/js/app.js"></script>' in html
    assert 'id="alerts"' in html and 'role="alert"' in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    # everything from this server
    assert not re.findall(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", html)


@pytest.mark.django_db
def test_the_client_routes_leave_the_rest_alone(client: Any) -> None:
    assert client.get("/nothing-here/").status_code == 404
    assert client.get("/games/seven/").status_code == 404
    assert client.post("/").status_code == 405
    answer = client.get("/api/v1/games/")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    assert client.get("/api/v1/nothing/")["Content-Type"] == "application/problem+json"


def test_static_files_come_straight_from_the_app_in_development(client: Any) -> None:
    for name, kind in [
        ("web/js/app.js", "javascript"),
        ("web/css/app.css", "text/css"),
        ("web/img/favicon.svg", "svg"),
    ]:
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert kind in response["Content-Type"], (name, response["Content-Type"])


# -- production: collectstatic, then gunicorn (the Procfile) --------------------------------


def test_production_serves_hashed_compressed_immutable_files(tmp_path: Path) -> None:
    static_root = tmp_path / "static"
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "web-static-test",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(static_root),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    env.pop("REDIS_URL", None)
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=120
    )
    assert time.monotonic() - started < 60
    manifest = json.loads((static_root / "staticfiles.json").read_text())["paths"]
    hashed_app = manifest["web/js/app.js"]
    assert re.fullmatch(r"web/js/app\.[0-9a-f]{12}\.js", hashed_app)
    # the modules' imports name the hashed files, so one release never mixes with another
    app_source = (static_root / hashed_app).read_text()
    imports = re.findall(r"""from\s*["']\./([^"']+)["']""", app_source)
    assert imports and all(f"web/js/{name}" in manifest.values() for name in imports), imports
    assert (static_root / f"{hashed_app}.gz").is_file()

    port = free_port()
    process = spawn(gunicorn_command(f"127.0.0.1:{port}", workers=1), cwd=ROOT, env=env, log=tmp_path / "web.log")
    try:
        wait_for_http(process, "127.0.0.1", port, "/api/v1/bots/", timeout=30)
        status, html = raw(port, "/")
        assert status == 200
        page = html.decode()
        assert f'src="/static/{hashed_app}"' in page
        for css in ("app", "board", "table"):
            assert f'href="/static/{manifest[f"web/css/{css}.css"]}"' in page

        status, body, headers = raw_full(port, f"/static/{hashed_app}", {"Accept-Encoding": "gzip"})
        assert status == 200
        assert headers.get("content-encoding") == "gzip"
        assert "immutable" in headers.get("cache-control", "") and "max-age=315360000" in headers["cache-control"]
        assert "javascript" in headers.get("content-type", "")
        assert gzip.decompress(body).decode() == app_source
        for name in imports:
            assert raw(port, f"/static/web/js/{name}")[0] == 200

        # the admin's and the API docs' own assets work the same way
        docs = raw(port, "/api/docs/")[1].decode()
        (bundle,) = re.findall(r'src="([^"]*swagger-ui-bundle[^"]*\.js)"', docs)
        assert re.search(r"\.[0-9a-f]{12}\.js$", bundle) and raw(port, bundle)[0] == 200
    finally:
        stop_group(process, timeout=10)


def raw_full(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes, dict[str, str]]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def raw(port: int, path: str) -> tuple[int, bytes]:
    status, body, _ = raw_full(port, path)
    return status, body


# -- in the browser -------------------------------------------------------------------------

browser_test = pytest.mark.slow


def by_id(driver: Any, element_id: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def css(driver: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, selector)


def shown(driver: Any, selector: str, seconds: float = 15) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen

    return wait(driver, seconds).until(seen.visibility_of_element_located((By.CSS_SELECTOR, selector)))


def click_shown(driver: Any, selector: str, seconds: float = 15) -> None:
    """Click the element once it is shown. The page redraws what changes (a live
    update may replace the card between finding its button and clicking it): a
    click on an element redrawn meanwhile did not happen, and is made on the new one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen

    def clicked(d: Any) -> bool:
        element = seen.visibility_of_element_located((By.CSS_SELECTOR, selector))(d)
        if not element:
            return False
        element.click()  # stale: wait() looks again
        return True

    wait(driver, seconds).until(clicked, message=f"could not click {selector}")


def stored_session(driver: Any) -> dict[str, Any]:
    local, per_tab = driver.execute_script(
        "return [localStorage.getItem('cf.session'), sessionStorage.getItem('cf.session')]"
    )
    return {"local": json.loads(local) if local else None, "session": json.loads(per_tab) if per_tab else None}


def fill(driver: Any, values: dict[str, Any]) -> None:
    """Type into inputs by id (a bool ticks or unticks a checkbox; a select takes its value)."""
    from selenium.webdriver.support.ui import Select

    for element_id, value in values.items():
        element = by_id(driver, element_id)
        if isinstance(value, bool):
            if element.is_selected() != value:
                element.click()
        elif element.tag_name == "select":
            Select(element).select_by_value(str(value))
        else:
            element.clear()
            element.send_keys(str(value))


def alert_text(driver: Any) -> str:
    return str(shown(driver, "#alerts [data-testid=alert] .alert-text").text)


@browser_test
def test_register_log_out_and_log_in_with_and_without_remember_me(embedded: Serve, browser: Any) -> None:
    base = base_url(embedded)
    browser.get(base + "/")
    shown(browser, "[data-testid=login-link]")
    css(browser, "[data-testid=register-link]").click()
    shown(browser, "#register-form")

    # A weak password: the server's words, in the alert region.
    fill(browser, {"register-username": "carol", "register-password": "123", "register-password2": "123"})
    by_id(browser, "register-submit").click()
    assert "password" in alert_text(browser).lower()
    assert css(browser, "#alerts [data-testid=alert]").get_attribute("data-code") == "validation_error"

    # Registered and signed in, not remembered: a cookie that ends with the browser, and
    # nothing secret where a script could read it.
    fill(browser, {"register-password": PASSWORD, "register-password2": PASSWORD, "register-remember": False})
    by_id(browser, "register-submit").click()
    assert shown(browser, "[data-testid=account-name]").text == "carol"
    assert browser.current_url == base + "/"
    stored = stored_session(browser)
    assert stored["local"] is None and stored["session"] == {"account": stored["session"]["account"], "remember": False}
    assert stored["session"]["account"]["username"] == "carol"
    first = session_cookie(browser)
    assert first["httpOnly"] and first["sameSite"] == "Lax" and "expiry" not in first
    assert browser.execute_script("return document.cookie").find("sessionid") == -1
    assert cookie_me(embedded.port, first["value"]) == (200, "carol")

    # Log out: the session ends on the server, and is forgotten here.
    by_id(browser, "logout-button").click()
    shown(browser, "[data-testid=login-link]")
    assert stored_session(browser) == {"local": None, "session": None}
    assert cookie_me(embedded.port, first["value"])[0] == 401

    # A wrong password: the problem's detail.
    css(browser, "[data-testid=login-link]").click()
    shown(browser, "#login-form")
    fill(browser, {"login-username": "carol", "login-password": "not the password"})
    by_id(browser, "login-submit").click()
    assert alert_text(browser)
    assert css(browser, "#alerts [data-testid=alert]").get_attribute("data-code") == "invalid_credentials"
    assert browser.current_url == base + "/login/"

    # Remembered: a cookie for two weeks, and a reload (or a new tab) keeps the page signed in.
    fill(browser, {"login-password": PASSWORD, "login-remember": True})
    by_id(browser, "login-submit").click()
    shown(browser, "[data-testid=account-name]")
    stored = stored_session(browser)
    assert stored["session"] is None and stored["local"] == {"account": stored["local"]["account"], "remember": True}
    second = session_cookie(browser)
    assert second["value"] != first["value"] and 13 * 86400 < second["expiry"] - time.time() <= 14 * 86400
    browser.refresh()
    assert shown(browser, "[data-testid=account-name]").text == "carol"
    shown(browser, "#my-games")
    assert cookie_me(embedded.port, second["value"]) == (200, "carol")

    # Unsafe requests after the reload carry the session's CSRF token (asked for again).
    fill(browser, {"create-players": "2"})
    by_id(browser, "create-submit").click()
    shown(browser, "#my-games [data-testid=game-card]")

    # A session ended elsewhere: the page notices at its next request and signs out.
    status, _ = request(
        embedded.port,
        "DELETE",
        "/api/v1/session/",
        headers=cookie_headers(second["value"], csrf_of(embedded.port, second["value"])),
    )
    assert status == 204
    browser.get(base + "/")
    shown(browser, "[data-testid=login-link]")
    assert stored_session(browser) == {"local": None, "session": None}

    made = check_requests_against_contract(browser)
    assert {("POST", "/api/v1/players/"), ("POST", "/api/v1/session/"), ("DELETE", "/api/v1/session/")} <= made
    assert ("POST", "/api/v1/tokens/") not in made


@browser_test
def test_a_token_stored_by_an_earlier_version_is_revoked_and_forgotten(embedded: Serve, browser: Any) -> None:
    base = base_url(embedded)
    status, _ = request(embedded.port, "POST", "/api/v1/players/", {"username": "olga", "password": PASSWORD})
    assert status == 201
    status, token = request(
        embedded.port, "POST", "/api/v1/tokens/", {"username": "olga", "password": PASSWORD, "name": "Web client"}
    )
    assert status == 201
    status, account = request(embedded.port, "GET", "/api/v1/me/", token=token["token"])
    browser.get(base + "/login/")
    old = {"token": token["token"], "tokenId": token["id"], "account": account, "remember": True}
    browser.execute_script("localStorage.setItem('cf.session', arguments[0]);", json.dumps(old))
    browser.get(base + "/")
    shown(browser, "[data-testid=login-link]")
    wait(browser).until(lambda d: request(embedded.port, "GET", "/api/v1/me/", token=token["token"])[0] == 401)
    assert stored_session(browser) == {"local": None, "session": None}


def session_cookie(driver: Any) -> dict[str, Any]:
    cookie = driver.get_cookie("sessionid")
    assert cookie, "no session cookie"
    return dict(cookie)


def cookie_headers(session: str, csrf: str | None = None) -> dict[str, str]:
    headers = {"Cookie": f"sessionid={session}" + (f"; csrftoken={csrf}" if csrf else "")}
    if csrf:
        headers["X-CSRFToken"] = csrf
    return headers


def csrf_of(port: int, session: str) -> str:
    status, body = request(port, "GET", "/api/v1/session/", headers=cookie_headers(session))
    assert status == 200, (status, body)
    return str(body["csrf_token"])


def cookie_me(port: int, session: str) -> tuple[int, str | None]:
    status, body = request(port, "GET", "/api/v1/me/", headers=cookie_headers(session))
    return status, body.get("username") if status == 200 else None


def card_selector(game_id: int, where: str = "#my-games") -> str:
    return f'{where} [data-testid=game-card][data-game="{game_id}"]'


@browser_test
def test_a_table_with_every_setting_and_a_bot_starts_and_my_games_follows_live(embedded: Serve, browser: Any) -> None:
    base = base_url(embedded)
    token = sign_in(browser, embedded, "dora")
    shown(browser, "#create-form")
    wait(browser).until(lambda d: css(d, "#account-stream-status").get_attribute("data-state") == "open")
    # the bot levels come from GET /bots/
    wait(browser).until(lambda d: len(d.find_elements("css selector", "#create-bot_strategy option")) >= 4)

    fill(
        browser,
        {
            "create-set_max": 6,
            "create-players": 3,
            "create-rounds": 1,
            "create-hand_size": 6,
            "create-spinner_arms": 6,
            "create-double_blank_points": 25,
            "create-turn_time_limit": 120,
            "create-bot_strategy": "random",
            "create-bot_delay_ms": 50,
            "create-bots": 1,
            "create-sit": True,
        },
    )
    by_id(browser, "create-submit").click()
    shown(browser, '#my-games [data-testid=game-card][data-status="open"]')
    # Read in the page: the live lobby may redraw the card between a find and a read.
    game_id = int(
        browser.execute_script(
            "return document.querySelector('#my-games [data-testid=game-card][data-status=\"open\"]').dataset.game"
        )
    )
    status, body = embedded.api("GET", f"/games/{game_id}/")
    assert status == 200
    game = body["game"]
    assert game["ruleset"] == {
        "set_max": 6,
        "players": 3,
        "rounds": 1,
        "hand_size": 6,
        "spinner_arms": 6,
        "double_blank_points": 25,
    }
    assert (game["turn_time_limit"], game["bot_strategy"], game["bot_delay_ms"]) == (120, "random", 50)
    assert [(s["player"] or {}).get("username") for s in game["seats"]][:1] == ["dora"]
    assert [s["bot_strategy"] for s in game["seats"]] == ["", "random", ""]

    # One seat to fill: "Add bot" at another level, then Start.
    selector = card_selector(game_id)
    shown(browser, f"{selector} [data-testid=bot-strategy]")
    assert values(browser, f"{selector} [data-testid=bot-strategy] option") == WEAKEST_FIRST
    fill_select(browser, f"{selector} [data-testid=bot-strategy]", "greedy")
    css(browser, f'{selector} [data-action="add-bot"]').click()
    wait(browser).until(lambda d: "Bot (greedy)" in css(d, f'{selector} [data-seat="2"]').text)
    css(browser, f'{selector} [data-action="start"]').click()
    shown(browser, f'{card_selector(game_id)}[data-status="running"]')
    assert embedded.api("GET", f"/games/{game_id}/")[1]["game"]["status"] == "running"
    # The account stream says when it is dora's turn (the bots are quick): no reload.
    browser.execute_script("window.cfNoReload = true;")
    shown(browser, f'{card_selector(game_id)}[data-your-turn="true"] [data-testid=your-turn]', LIVE_SECONDS)

    # A game started by someone else, with dora at it: in "my games" from the stream.
    frames = int(css(browser, "#account-stream-status").get_attribute("data-frames"))
    status, other = embedded.api("POST", "/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}})
    assert status == 201, other
    other_id = other["game"]["id"]
    status, _ = request(embedded.port, "POST", f"/api/v1/games/{other_id}/join/", {}, token=token)
    assert status == 200
    status, _ = embedded.api("POST", f"/games/{other_id}/start/")
    assert status == 200
    shown(browser, f'{card_selector(other_id)}[data-status="running"]', LIVE_SECONDS)
    assert int(css(browser, "#account-stream-status").get_attribute("data-frames")) > frames
    assert browser.execute_script("return window.cfNoReload === true")

    # The table page is a link away (the router draws it without a reload).
    assert css(browser, f"{card_selector(game_id)} [data-testid=game-link]").get_attribute("href") == (
        f"{base}/games/{game_id}/"
    )
    css(browser, "[data-testid=tab-running]").click()
    shown(browser, card_selector(game_id, "#game-list"))
    save_shot(browser, "lobby")
    made = check_requests_against_contract(browser)
    assert {
        ("POST", "/api/v1/games/"),
        ("POST", "/api/v1/games/{game_id}/start/"),
        ("GET", "/api/v1/me/stream/"),
    } <= made


# The server bots' levels weakest first, as the arena measured them (docs/bots.md).
WEAKEST_FIRST = ["random", "easy", "greedy", "medium", "hard", "strong"]


def values(driver: Any, selector: str) -> list[str]:
    return list(
        driver.execute_script("return [...document.querySelectorAll(arguments[0])].map(e => e.value);", selector)
    )


@browser_test
def test_a_new_tables_bot_levels_come_weakest_first_and_bots_fill_every_seat_but_mine(
    embedded: Serve, browser: Any
) -> None:
    """The create form lists the levels from weakest to strongest (GET /bots/ answers them
    by name: "easy, greedy, hard, medium, random, strong" was no order a person knows),
    and seats bots in every seat but one until the player sets a number: a newcomer's
    table of four with no bot would wait for three people."""
    sign_in(browser, embedded, "fern")
    shown(browser, "#create-form")
    levels = [bot["name"] for bot in embedded.api("GET", "/bots/")[1]]
    assert sorted(levels) == sorted(WEAKEST_FIRST), "a new level: place it in WEAKEST_FIRST and ui.byStrength"
    wait(browser).until(lambda d: values(d, "#create-bot_strategy option") == WEAKEST_FIRST)

    def bots() -> str:
        return str(by_id(browser, "create-bots").get_attribute("value"))

    assert (by_id(browser, "create-players").get_attribute("value"), bots()) == ("4", "3")
    fill(browser, {"create-players": 6})
    assert bots() == "5"
    fill(browser, {"create-players": 2})
    assert bots() == "1"
    fill(browser, {"create-bots": 0, "create-players": 3})  # a number of one's own stays
    assert bots() == "0"

    # The defaults make a table that starts.
    browser.refresh()
    shown(browser, "#create-form")
    fill(browser, {"create-players": 3})
    by_id(browser, "create-submit").click()
    card = '#my-games [data-testid=game-card][data-status="open"]'
    shown(browser, card)
    game_id = int(browser.execute_script(f"return document.querySelector('{card}').dataset.game"))
    seats = embedded.api("GET", f"/games/{game_id}/")[1]["game"]["seats"]
    assert [(s["player"] or {}).get("username") for s in seats][:1] == ["fern"]
    assert [bool(s["bot_strategy"]) for s in seats] == [False, True, True]
    click_shown(browser, f'{card_selector(game_id)} [data-action="start"]')
    shown(browser, f'{card_selector(game_id)}[data-status="running"]')
    check_requests_against_contract(browser)


def fill_select(driver: Any, selector: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(css(driver, selector)).select_by_value(value)


@browser_test
def test_the_lobby_on_a_phone_by_keyboard_and_the_table_actions(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    from selenium.webdriver.common.keys import Keys

    phone = make_browser(360, 800)
    assert phone.execute_script("return window.innerWidth") == 360
    token = sign_in(phone, embedded, "erin")
    # a table of someone else's to join, and one of erin's own to abort
    status, theirs = embedded.api("POST", "/games/", {"ruleset": {"set_max": 6, "players": 3}})
    assert status == 201
    theirs_id = theirs["game"]["id"]
    status, mine = request(
        embedded.port, "POST", "/api/v1/games/", {"ruleset": {"set_max": 9, "players": 2}}, token=token
    )
    assert status == 201
    mine_id = mine["game"]["id"]
    phone.refresh()
    shown(phone, card_selector(theirs_id, "#game-list"))

    # Join, then leave, someone else's table.
    click_shown(phone, f'{card_selector(theirs_id, "#game-list")} [data-action="join"]')
    click_shown(phone, f'{card_selector(theirs_id)} [data-action="leave"]')
    wait(phone).until(lambda d: not d.find_elements("css selector", card_selector(theirs_id)))
    assert [s["player"] for s in embedded.api("GET", f"/games/{theirs_id}/")[1]["game"]["seats"]][1:] == [None, None]

    # Filters: the set, and "only mine".
    fill_select(phone, "#filter-set", "9")
    wait(phone).until(lambda d: not d.find_elements("css selector", card_selector(theirs_id, "#game-list")))
    assert phone.find_elements("css selector", card_selector(mine_id, "#game-list"))
    fill_select(phone, "#filter-set", "")
    shown(phone, card_selector(theirs_id, "#game-list"))
    by_id(phone, "filter-mine").click()
    wait(phone).until(lambda d: not d.find_elements("css selector", card_selector(theirs_id, "#game-list")))

    # Readable at 360 px: nothing wider than the screen.
    assert phone.execute_script("return document.documentElement.scrollWidth") <= 360
    save_shot(phone, "phone-lobby")

    # Every control has a name: a label, its text or aria-label.
    unnamed = phone.execute_script(
        """
        return [...document.querySelectorAll('main input, main select, main button, main a')]
          .filter((e) => e.offsetParent !== null)
          .filter((e) => !((e.labels && e.labels.length) || e.getAttribute('aria-label') || e.textContent.trim()))
          .map((e) => e.outerHTML.slice(0, 80));
        """
    )
    assert unnamed == []

    # The tabs by keyboard: arrows move the selection (and the focus).
    css(phone, "[data-testid=tab-open]").send_keys(Keys.ARROW_RIGHT)
    wait(phone).until(lambda d: css(d, "[data-testid=tab-running]").get_attribute("aria-selected") == "true")
    assert phone.switch_to.active_element.get_attribute("id") == "tab-running"
    css(phone, "[data-testid=tab-running]").send_keys(Keys.ARROW_LEFT)
    wait(phone).until(lambda d: css(d, "[data-testid=tab-open]").get_attribute("aria-selected") == "true")

    # Abort one's own table, with a reason, from the keyboard.
    abort = shown(phone, f'{card_selector(mine_id)} [data-action="abort"]')
    abort.send_keys(Keys.ENTER)
    reason = shown(phone, f"{card_selector(mine_id)} [data-testid=abort-reason]")
    assert phone.switch_to.active_element == reason
    reason.send_keys("Changed my mind")
    css(phone, f'{card_selector(mine_id)} [data-action="abort-confirm"]').send_keys(Keys.ENTER)
    shown(phone, f'{card_selector(mine_id)}[data-status="aborted"]')
    game = embedded.api("GET", f"/games/{mine_id}/")[1]["game"]
    assert (game["status"], game["abort_reason"]) == ("aborted", "Changed my mind")

    # A refusal shows the server's words: start a table that is not full.
    status, short = request(embedded.port, "POST", "/api/v1/games/", {"ruleset": {"players": 3}}, token=token)
    assert status == 201
    phone.refresh()
    click_shown(phone, f'{card_selector(short["game"]["id"])} [data-action="start"]')
    assert "empty" in alert_text(phone)
    assert css(phone, "#alerts [data-testid=alert]").get_attribute("data-code") == "seats_not_filled"
    check_requests_against_contract(phone)


@pytest.mark.slow
def test_serve_with_debug_off_collects_the_static_files_first(tmp_path: Path) -> None:
    static_root = tmp_path / "static"
    env = {
        "DEBUG": "false",
        "SECRET_KEY": "serve-static-test",
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(static_root),
    }
    server = Serve(tmp_path / "serve", env=env, account=False)
    try:
        assert "collecting the static files" in server.log()
        manifest = json.loads((static_root / "staticfiles.json").read_text())["paths"]
        status, html = raw(server.port, "/")
        assert status == 200 and f'src="/static/{manifest["web/js/app.js"]}"' in html.decode()
    finally:
        server.stop()
    # Nothing changed since: nothing to collect; a source newer than the manifest: collect again.
    with override_settings(DEBUG=False, STATIC_ROOT=static_root):
        assert not _static_files_stale()
        os.utime(static_root / "staticfiles.json", (0, 0))
        assert _static_files_stale()
    with override_settings(DEBUG=True, STATIC_ROOT=tmp_path / "never-collected"):
        assert not _static_files_stale()
