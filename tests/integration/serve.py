"""``make serve`` / ``manage.py serve`` as a user runs it, for integration tests:
the embedded default (SQLite, the folder broker, no Redis), on a database and a
run folder of the test's own, driven over HTTP only."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from core.processes import free_port, spawn, stop_group
from games.engine import Match, Ruleset
from tests.integration.web import request, sign_up
from tests.integration.workers import ROOT, wait_for

READY_TIMEOUT_SECONDS = 60
RATE_LIMIT_RETRIES = 5
BOT_TABLE = {"set_max": 6, "players": 4}
INSTALLED_RUNTIME = ".venv/.installed-runtime"  # the Makefile's stamp: "make -o" it, never pip install


class Serve:
    """``manage.py serve`` (after ``manage.py migrate``, as ``make serve`` runs them),
    or ``PORT=<a free port> make serve`` itself with ``via_make=True`` (without its
    install step: the tests run in an installed environment, and must not change it).
    With ``account=False`` nobody is registered: the server is as fresh as a user's
    first ``make serve`` (``api()`` then needs ``self.token`` set)."""

    def __init__(
        self,
        folder: Path,
        *,
        via_make: bool = False,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        account: bool = True,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = folder / "serve.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "RUN_DIR": str(folder / "run"),
            "PORT": str(self.port),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "WORKER_HEARTBEAT_SECONDS": "1",
            "LOG_LEVEL": "INFO",
            **(env or {}),
        }
        for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_QUEUE"):  # the embedded default: none of them
            self.env.pop(name, None)
        if "METRICS_DIR" not in (env or {}):  # its own metrics, under its RUN_DIR (not the test process's)
            self.env.pop("METRICS_DIR", None)
        if via_make:
            argv = ["make", "-s", "-o", INSTALLED_RUNTIME, "serve"]
        else:
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True
            )
            argv = [sys.executable, "manage.py", "serve", *args]
        self.process = spawn(argv, cwd=ROOT, env=self.env, log=self.log_path)
        wait_for(self._healthy, READY_TIMEOUT_SECONDS, interval=0.2, what="serve to be healthy", explain=self.log)
        # Reads go with it: an account's rate limit, not an address's.
        self.token = sign_up(self.port, "host") if account else ""

    def _healthy(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"serve exited with {self.process.returncode}:\n{self.log()}")
        try:
            return self.health()[0] == 200
        except OSError:
            return False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One API request as the test's account. A 429 is waited out as its
        ``Retry-After`` says (a few times at most), as a well-behaved client does:
        a soak of many minutes reads more than one account's rate limit allows."""
        for _ in range(RATE_LIMIT_RETRIES):
            status, answer = request(self.port, method, f"/api/v1{path}", body, token=self.token)
            if status != 429:
                break
            time.sleep(float(answer.get("retry_after", 1)))
        return status, answer

    def health(self) -> tuple[int, dict[str, Any]]:
        return request(self.port, "GET", "/api/v1/health/", timeout=10)

    def supervised(self, name: str) -> dict[str, Any]:
        """What the health report says of serve's child ``name`` (web, worker, analysis, beat)."""
        return next(child for child in self.health()[1]["supervised"] if child["name"] == name)

    def serve_pid(self) -> int:
        """The ``manage.py serve`` process (under ``make``, a child of it)."""
        match = re.search(r"serve \(pid (\d+)\)", self.log())
        assert match, self.log()
        return int(match.group(1))

    def signal(self, signum: int) -> None:
        os.kill(self.serve_pid(), signum)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.serve_pid(), signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(30)
        stop_group(self.process, timeout=5)


def open_bot_table(
    serve: Serve,
    *,
    rounds: int = 2,
    bot_delay_ms: int = 0,
    strategies: tuple[str, ...] = ("greedy", "random", "greedy", "random"),
) -> int:
    """A started table of server bots only, made over HTTP; returns its id."""
    status, body = serve.api(
        "POST",
        "/games/",
        {
            "ruleset": {**BOT_TABLE, "players": len(strategies), "rounds": rounds},
            "sit": False,
            "bot_delay_ms": bot_delay_ms,
        },
    )
    assert status == 201, body
    game_id = body["game"]["id"]
    for strategy in strategies:
        status, body = serve.api("POST", f"/games/{game_id}/bots/", {"strategy": strategy})
        assert status == 200, body
    status, body = serve.api("POST", f"/games/{game_id}/start/")
    assert status == 200, body
    return game_id


def game_seq(serve: Serve, game_id: int) -> int:
    return serve.api("GET", f"/games/{game_id}/")[1]["game"]["seq"]


def is_finished(serve: Serve, game_id: int) -> bool:
    return serve.api("GET", f"/games/{game_id}/")[1]["game"]["status"] == "finished"


def assert_played_exactly(serve: Serve, game_id: int) -> int:
    """The finished game's public record replays, move by move, to its published
    result (no move lost, none doubled, every seat in turn), and its event log has
    no gap. Returns the number of moves."""
    status, record = serve.api("GET", f"/games/{game_id}/record/")
    assert status == 200, record
    match = Match.replay(
        Ruleset.from_dict(record["ruleset"]),
        record["seed"],
        [(m["seat"], m["move"]) for m in record["moves"]],
        record["setup"],
    )
    assert {"totals": match.totals, "winners": match.winners} == {k: record["result"][k] for k in ("totals", "winners")}
    seqs: list[int] = []
    while True:
        status, page = serve.api("GET", f"/games/{game_id}/events/?after={seqs[-1] if seqs else 0}")
        seqs += [event["seq"] for event in page["events"]]
        if not page["has_more"]:
            break
    assert seqs == list(range(1, page["seq"] + 1))
    return len(record["moves"])
