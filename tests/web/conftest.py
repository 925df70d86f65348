"""Fixtures of the browser client's tests (tests/web).

* ``embedded``: ``manage.py serve`` as a user runs it (SQLite, the folder broker, no
  Redis, bots and turn clocks in its own worker), one per test module (it takes
  seconds to start: each test uses accounts of its own), rate limits out of the way
  (``tests.integration.serve.Serve``; ``embedded.port``, ``embedded.api(...)`` as its
  account "host"). ``base_url(embedded)`` is the page's address.
* ``browser``: headless Chromium through Selenium, desktop sized (1280 x 1100), with a
  profile of its own (fresh storage) and Chrome's network log on (for
  ``check_requests_against_contract``). ``make_browser(width=360, height=800)`` for more,
  or other sizes. Needs Debian's ``chromium`` and ``chromium-driver``: without them the
  tests are skipped, saying why - under ``CI=true`` that is a failure. After each test,
  the browsers' consoles must show no Content-Security-Policy violation
  (``tests/csp_console.py``): every page the web tests open is checked.
* ``check_requests_against_contract(driver)``: every request the page made (Chrome's
  network log, kept across calls) went to the page's own origin, and each one under
  /api/ is an operation of openapi.yaml (method and path); answers the API requests
  made, as (method, path template) pairs.
* ``save_shot(driver, name)``: the whole page as ``artifacts/web-<name>.png``.
* ``sign_in(driver, server, username)``: registers ``username`` over HTTP and signs the
  page in as it (the session cookie the log-in form would get), without the form;
  answers an API token of the account. ``wait(driver)`` is a WebDriverWait of WAIT_SECONDS.
* ``browser_server(tmp_path_factory, name, env)``: a module's own ``manage.py serve``
  for browser tests (skipped, saying why, without Chromium; a failure under CI).
* ``open_table(server, token, ...)``: a table made over HTTP by the account of
  ``token`` (seat 0) with server bots, started once every seat is taken; its id.
* Reading and driving the page: ``css(driver, selector)`` (the elements),
  ``fill(driver, selector, text)``, ``click(driver, selector)``, ``table(driver)``
  (the table section's ``data-*``, {} before it is drawn).
"""

from __future__ import annotations

import functools
import json
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tests.csp_console import csp_violations
from tests.integration.serve import Serve
from tests.integration.web import request
from tests.moderation.test_admin_browser import CHROMIUM_FLAGS, _missing_browser
from tests.openapi_check import OPENAPI_PATH
from tests.services import in_ci

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
WAIT_SECONDS = 15
UNTIL_SECONDS = 20  # until(): the play tests' waits (a bot's move, a stream coming back)
PASSWORD = "a long passphrase 42"
DESKTOP = (1280, 1100)


# The limits are tested elsewhere: a module's tests sign up and log in many times from one address.
RELAXED_LIMITS = {
    "THROTTLE_ANON": "100000/minute",
    "THROTTLE_USER": "100000/minute",
    "THROTTLE_LOGIN": "100000/hour",
    "THROTTLE_REGISTER": "100000/hour",
    "THROTTLE_TOKENS": "100000/hour",
}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """One server for the tests of a module (it takes seconds to start): give each
    test accounts of its own."""
    server = Serve(tmp_path_factory.mktemp("embedded") / "serve", env=RELAXED_LIMITS)
    try:
        yield server
    finally:
        server.stop()


def base_url(server: Any) -> str:
    return f"http://127.0.0.1:{server.port}"


def _chromium(profile: Path, width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    flags = [flag for flag in CHROMIUM_FLAGS if not flag.startswith("--window-size=")]
    for flag in (*flags, f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(WAIT_SECONDS * 2)
    driver.set_window_size(width, height)
    return driver


@pytest.fixture
def make_browser(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    problem = _missing_browser()
    if problem:
        if in_ci():
            pytest.fail(f"CI=true and the browser tests cannot run: {problem}")
        pytest.skip(f"needs headless Chromium: {problem}")
    drivers: list[Any] = []

    def make(width: int = DESKTOP[0], height: int = DESKTOP[1]) -> Any:
        driver = _chromium(tmp_path / f"chromium-profile-{len(drivers)}", width, height)
        drivers.append(driver)
        return driver

    violations: list[str] = []
    try:
        yield make
        for driver in drivers:  # every page the test opened kept the Content-Security-Policy
            violations.extend(csp_violations(driver))
    finally:
        for driver in drivers:
            driver.quit()
    assert not violations, "Content-Security-Policy violations in the console:\n" + "\n".join(violations)


@pytest.fixture
def browser(make_browser: Callable[..., Any]) -> Any:
    return make_browser()


def wait(driver: Any, seconds: float = WAIT_SECONDS, poll: float = 0.5) -> Any:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page redraws what changed: an element found a moment ago may be gone when
    # it is read - look again, until the deadline.
    return WebDriverWait(
        driver,
        seconds,
        poll_frequency=poll,
        ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
    )


def until(driver: Any, what: str, condition: Callable[[Any], Any], seconds: float = UNTIL_SECONDS) -> Any:
    """``condition(driver)`` once truthy (its value), within ``seconds``, checked every
    50 ms; a DOM redrawn under the check only means checking again."""
    return wait(driver, seconds, poll=0.05).until(condition, message=f"timed out after {seconds} s waiting for {what}")


# -- the contract: every request the page makes is an operation of openapi.yaml ---------


@functools.cache
def contract_operations() -> list[tuple[str, str, re.Pattern[str]]]:
    """(METHOD, path template, the template as a regex) of every operation of openapi.yaml (read once)."""
    spec = yaml.safe_load(OPENAPI_PATH.read_text())
    operations = []
    for template, methods in spec["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template)) + "$")
        for method, operation in methods.items():
            if isinstance(operation, dict) and "responses" in operation:
                operations.append((method.upper(), template, pattern))
    return operations


def operation_of(method: str, path: str) -> str | None:
    """The openapi.yaml template ``method path`` is an operation of, or None."""
    for known, template, pattern in contract_operations():
        if known == method and pattern.match(path):
            return template
    return None


def browser_requests(driver: Any) -> list[dict[str, str]]:
    """Every request the page sent so far ({method, url}), from Chrome's network log
    (which a read empties: what was read is kept on the driver)."""
    kept: list[dict[str, str]] = driver.__dict__.setdefault("_cf_requests", [])
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            sent = message["params"]["request"]
            kept.append({"method": sent["method"], "url": sent["url"]})
    return kept


def check_requests_against_contract(driver: Any) -> set[tuple[str, str]]:
    origin = urlsplit(driver.current_url)
    made: set[tuple[str, str]] = set()
    wrong: list[str] = []
    for sent in browser_requests(driver):
        url = urlsplit(sent["url"])
        if url.scheme in ("data", "blob", "about", "chrome", "devtools"):
            continue
        if (url.scheme, url.netloc) != (origin.scheme, origin.netloc):
            wrong.append(f"{sent['method']} {sent['url']}: another origin (no CDN, no internet)")
            continue
        if not url.path.startswith("/api/"):
            continue
        if sent["method"] == "OPTIONS":
            wrong.append(f"OPTIONS {url.path}: a preflight (same-origin requests need none)")
            continue
        template = operation_of(sent["method"], url.path)
        if template is None:
            wrong.append(f"{sent['method']} {url.path}: not an operation of openapi.yaml")
        else:
            made.add((sent["method"], template))
    assert not wrong, "the page made requests outside the contract:\n" + "\n".join(wrong)
    return made


# -- screenshots and shortcuts -------------------------------------------------------------


def save_shot(driver: Any, name: str) -> Path:
    """The whole page (the window grown to its height, then put back) as artifacts/web-<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"web-{name}.png"
    size = driver.get_window_size()
    # the window's height is the page's plus whatever the browser keeps for itself
    height = driver.execute_script(
        "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight"
    )
    driver.set_window_size(size["width"], min(max(height, 600), 6000))
    driver.execute_script("window.scrollTo(0, 0)")
    try:
        assert driver.save_screenshot(str(path))
    finally:
        driver.set_window_size(size["width"], size["height"])
    return path


def sign_in(driver: Any, server: Any, username: str, *, password: str = PASSWORD, remember: bool = True) -> str:
    """Register ``username`` and sign the page in as it, as the log-in form does (POST
    /api/v1/session/ from the page: the HttpOnly session cookie, and the account - no
    secret - in localStorage, or sessionStorage with ``remember=False``); the page is
    then on the lobby. Answers an API token of the account, for the test's own calls."""
    port = server.port
    status, body = request(port, "POST", "/api/v1/players/", {"username": username, "password": password})
    assert status == 201, (status, body)
    status, token = request(
        port, "POST", "/api/v1/tokens/", {"username": username, "password": password, "name": "test"}
    )
    assert status == 201, (status, token)
    session_sign_in(driver, server, username, password=password, remember=remember)
    driver.get(base_url(server) + "/")
    return str(token["token"])


def session_sign_in(
    driver: Any, server: Any, username: str, *, password: str = PASSWORD, remember: bool = True
) -> None:
    """Sign the page in as an existing account, as the log-in form does: POST
    /api/v1/session/ from the page (the HttpOnly cookie), the account - no secret -
    in localStorage (sessionStorage with ``remember=False``)."""
    if not driver.current_url.startswith(base_url(server)):
        driver.get(base_url(server) + "/login/")
    status, signed_in = driver.execute_async_script(
        """const [body, done] = arguments;
        fetch("/api/v1/session/", {method: "POST", credentials: "same-origin", body,
            headers: {"Content-Type": "application/json", Accept: "application/json"}})
          .then(async (r) => done([r.status, await r.json()]), (e) => done([0, String(e)]));""",
        json.dumps({"username": username, "password": password, "remember": remember}),
    )
    assert status == 200, (status, signed_in)
    session = {"account": signed_in["account"], "remember": remember}
    store = "localStorage" if remember else "sessionStorage"
    driver.execute_script(f"window.{store}.setItem('cf.session', arguments[0]);", json.dumps(session))


# -- shared set-up: a module's server, a table with bots ----------------------------------


def browser_server(
    tmp_path_factory: pytest.TempPathFactory, name: str, env: dict[str, str] | None = None
) -> Iterator[Serve]:
    """A module fixture's body: ``manage.py serve`` for the module's browser tests
    (each test uses accounts of its own), stopped at the end. Without Chromium the
    module is skipped, saying why (under ``CI=true``, a failure), before a server starts."""
    problem = _missing_browser()
    if problem:
        if in_ci():
            pytest.fail(f"CI=true and the browser tests cannot run: {problem}")
        pytest.skip(f"needs headless Chromium: {problem}")
    server = Serve(tmp_path_factory.mktemp(name) / "serve", env=env)
    try:
        yield server
    finally:
        server.stop()


def open_table(
    server: Any,
    token: str,
    *,
    players: int = 4,
    set_max: int = 6,
    rounds: int = 1,
    bots: Sequence[str] = ("greedy",) * 3,
    **options: Any,
) -> int:
    """A table made over HTTP by the account of ``token`` (seat 0), with a server bot
    of each strategy of ``bots`` in the next seats, started when every seat is taken
    (``options``: more of the table's settings, e.g. ``bot_delay_ms``, default 0).
    Answers its id."""
    port = server.port
    body = {"ruleset": {"set_max": set_max, "players": players, "rounds": rounds}, "bot_delay_ms": 0, **options}
    status, game = request(port, "POST", "/api/v1/games/", body, token=token)
    assert status == 201, game
    game_id = int(game["game"]["id"])
    for strategy in bots:
        status, answer = request(port, "POST", f"/api/v1/games/{game_id}/bots/", {"strategy": strategy}, token=token)
        assert status == 200, answer
    if len(bots) == players - 1:
        status, answer = request(port, "POST", f"/api/v1/games/{game_id}/start/", token=token)
        assert status == 200, answer
    return game_id


# -- reading and driving the page -----------------------------------------------------------


def css(driver: Any, selector: str) -> list[Any]:
    """The elements ``selector`` finds now (none: an empty list)."""
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def fill(driver: Any, selector: str, text: str) -> None:
    """Type ``text`` into the (emptied) box ``selector``."""
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.CSS_SELECTOR, selector)
    box.clear()
    box.send_keys(text)


def click(driver: Any, selector: str) -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, selector).click()


def table(driver: Any) -> dict[str, str]:
    """The table section's data-* attributes ({} before it is drawn)."""
    found = driver.execute_script(
        "const t = document.querySelector('[data-testid=table]'); return t ? Object.assign({}, t.dataset) : null;"
    )
    return found or {}
