"""The web client's speed as a player feels it, two trees side by side in one run:
click-to-drawn of a move and the first paint, in headless Chromium.

    .venv/bin/python tools/web_bench.py --before /tmp/web-before [--moves 60] [--rounds 4]

``--before`` is another checkout of this repository (e.g. ``git worktree add
/tmp/web-before 7e06e66``); this tree is "after". Each tree runs its own
``manage.py serve`` (SQLite, the folder broker, bots and clocks in its worker; this
virtualenv's Python, the tree's own code and static files) on a free port. Then, in
rounds that alternate between the two (the machine's load falls on both alike), one
headless Chromium per round registers a player, opens a two-seat double-6 table
against a ``greedy`` server bot that answers at once, and plays by clicking: the first
legal tile of the hand (and the first end offered), else Draw or Pass, until the hand
is over or ``--moves`` moves are made. Measured by the page itself
(``window.cfMetrics``, which both trees keep):

* click-to-drawn: each of my moves, from the click to the frame after the answer is
  drawn (``cfMetrics.moves``);
* table first paint: from navigation start to the first frame with the table drawn
  (``cfMetrics.tablePaint``), and the browser's ``first-contentful-paint`` of the
  table's page and of the lobby.

Prints, for each tree, the count, median and p99 of each (ms). Numbers only; nothing is
asserted. Needs Debian's ``chromium`` and ``chromium-driver`` and selenium (in
requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.processes import free_port, spawn, stop_group  # noqa: E402 - after the path

PASSWORD = "a long passphrase 42"
RELAXED = {
    "THROTTLE_ANON": "100000/minute",
    "THROTTLE_USER": "100000/minute",
    "THROTTLE_LOGIN": "100000/hour",
    "THROTTLE_REGISTER": "100000/hour",
    "THROTTLE_TOKENS": "100000/hour",
}


class Server:
    """``manage.py serve`` of one tree, on a database and run folder of its own."""

    def __init__(self, name: str, tree: Path, folder: Path, port: int | None = None) -> None:
        self.name = name
        folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.env = {
            **os.environ,
            **RELAXED,
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "RUN_DIR": str(folder / "run"),
            "PORT": str(self.port),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "LOG_LEVEL": "WARNING",
        }
        for variable in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_QUEUE", "METRICS_DIR"):
            self.env.pop(variable, None)
        python = sys.executable
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=tree, env=self.env, check=True)
        self.process = spawn([python, "manage.py", "serve"], cwd=tree, env=self.env, log=folder / "serve.log")
        deadline = time.monotonic() + 120
        while True:
            try:
                if self.call("GET", "/api/v1/health/")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                stop_group(self.process, timeout=10)
                raise SystemExit(f"{name}: serve did not start; see {folder / 'serve.log'}")
            time.sleep(0.2)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        sent = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(sent, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"null")

    def stop(self) -> None:
        stop_group(self.process, timeout=10)


def browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1366,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)


def wait(what: str, condition: Any, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            found = condition()
        except Exception:  # a page redrawn under the check: look again
            found = None
        if found:
            return found
        time.sleep(0.02)
    raise TimeoutError(what)


FCP = "return (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? null;"
TABLE = "return Object.assign({}, document.querySelector('[data-testid=table]')?.dataset || {});"


def sign_in(driver: Any, name: str, account: dict[str, Any], issued: dict[str, Any]) -> None:
    """Sign the page in as the log-in form of its tree does: a browser session (POST
    /api/v1/session/, the account in localStorage), or, in a tree from before browser
    sessions, the API token itself in localStorage."""
    status, signed = driver.execute_async_script(
        """const [body, done] = arguments;
        fetch("/api/v1/session/", {method: "POST", credentials: "same-origin", body,
            headers: {"Content-Type": "application/json", Accept: "application/json"}})
          .then(async (r) => done([r.status, r.ok ? await r.json() : null]), (e) => done([0, String(e)]));""",
        json.dumps({"username": name, "password": PASSWORD, "remember": True}),
    )
    if status == 200:
        stored = {"account": signed["account"], "remember": True}
    else:  # no browser sessions in that tree
        stored = {"token": issued["token"], "tokenId": issued.get("id"), "account": account, "remember": True}
    driver.execute_script("localStorage.setItem('cf.session', arguments[0]);", json.dumps(stored))


def one_round(server: Server, number: int, moves: int, scratch: Path) -> dict[str, list[float]]:
    """One player's table in a fresh browser: its figures."""
    from selenium.webdriver.common.by import By

    name = f"bench{number}x{server.port}"
    status, account = server.call("POST", "/api/v1/players/", {"username": name, "password": PASSWORD})
    assert status == 201, account
    status, issued = server.call("POST", "/api/v1/tokens/", {"username": name, "password": PASSWORD, "name": "bench"})
    assert status == 201, issued
    token = issued["token"]
    body = {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}, "bot_delay_ms": 0, "turn_time_limit": None}
    status, game = server.call("POST", "/api/v1/games/", body, token)
    assert status == 201, game
    game_id = game["game"]["id"]
    assert server.call("POST", f"/api/v1/games/{game_id}/bots/", {"strategy": "greedy"}, token)[0] == 200
    assert server.call("POST", f"/api/v1/games/{game_id}/start/", {}, token)[0] == 200

    driver = browser(scratch / f"profile-{server.name}-{number}")
    figures: dict[str, list[float]] = {"lobby_fcp": [], "table_fcp": [], "table_paint": [], "click_to_drawn": []}
    try:
        driver.get(server.url + "/login/")
        sign_in(driver, name, account, issued)
        driver.get(server.url + "/")
        figures["lobby_fcp"].append(wait("the lobby's first paint", lambda: driver.execute_script(FCP)))
        driver.get(f"{server.url}/games/{game_id}/")
        wait("the table", lambda: driver.execute_script("return window.cfMetrics && window.cfMetrics.tablePaint"))
        figures["table_fcp"].append(wait("the table's first paint", lambda: driver.execute_script(FCP)))
        figures["table_paint"].append(driver.execute_script("return window.cfMetrics.tablePaint"))
        for _ in range(moves):
            state = wait(
                "my turn or the end",
                lambda: (
                    (t := driver.execute_script(TABLE))
                    and (t.get("status") != "running" or (t.get("yourTurn") == "true" and t.get("busy") == "false"))
                    and t
                ),
                seconds=60,
            )
            if state.get("status") != "running" or driver.find_elements(
                By.CSS_SELECTOR, "[data-testid=hand-over]:not([hidden])"
            ):
                break
            made = len(driver.execute_script("return window.cfMetrics.moves"))
            legal = driver.find_elements(By.CSS_SELECTOR, "[data-testid=hand] button[data-legal=true]")
            if legal:
                legal[0].click()
                ends = driver.find_elements(By.CSS_SELECTOR, "[data-testid=end-choices] button[data-end]")
                if ends:
                    ends[0].click()
            else:
                driver.find_elements(By.CSS_SELECTOR, "[data-testid=draw-button], [data-testid=pass-button]")[0].click()
            wait("the move drawn", lambda made=made: len(driver.execute_script("return window.cfMetrics.moves")) > made)
        figures["click_to_drawn"] = [float(ms) for ms in driver.execute_script("return window.cfMetrics.moves")]
    finally:
        driver.quit()
    return figures


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout (the baseline)")
    parser.add_argument("--rounds", type=int, default=4, help="tables per tree, alternating (default 4)")
    parser.add_argument("--moves", type=int, default=60, help="my moves per table at most (default 60)")
    parser.add_argument("--port", type=int, default=0, help="the first of two ports to serve on (default: free ones)")
    args = parser.parse_args()

    trees = {"before": args.before.resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory(prefix="web-bench-") as scratch_name:
        scratch = Path(scratch_name)
        servers: dict[str, Server] = {}
        totals: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
        try:
            for offset, (name, tree) in enumerate(trees.items()):
                servers[name] = Server(name, tree, scratch / name, args.port + offset if args.port else None)
            for number in range(args.rounds):
                for name, server in servers.items():
                    for key, values in one_round(server, number, args.moves, scratch).items():
                        totals[name].setdefault(key, []).extend(values)
        finally:
            for server in servers.values():
                server.stop()

    print(f"{'figure (ms)':<18} {'tree':<7} {'n':>4} {'median':>8} {'p99':>8}")
    for key in ("click_to_drawn", "table_paint", "table_fcp", "lobby_fcp"):
        for name in servers:
            values = totals[name].get(key, [])
            if values:
                print(f"{key:<18} {name:<7} {len(values):>4} {statistics.median(values):>8.1f} {p99(values):>8.1f}")
    for name, tree in trees.items():
        print(f"{name}: {tree}")


if __name__ == "__main__":
    main()
