"""A real web server (the Procfile's: gunicorn running uvicorn workers) for
integration tests, on the test database,
and a minimal Server-Sent Events client that reads it line by line."""

from __future__ import annotations

import http.client
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.processes import ChildExited, NotReady, free_port, gunicorn_command, spawn, stop_group, wait_for_http
from tests.integration.workers import ROOT, session_database_url

__all__ = ["READY_TIMEOUT_SECONDS", "SseClient", "SseMessage", "WebServer", "free_port", "request", "sign_up"]

READY_TIMEOUT_SECONDS = 30


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> tuple[int, Any]:
    """One HTTP request to 127.0.0.1:``port``; returns the status and the JSON body (or None)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
        response = connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None
    finally:
        connection.close()


def logged_events(port: int, game_id: int, after: int = 0) -> list[dict[str, Any]]:
    """The game's event log after seq ``after``, every page of ``GET .../events/``."""
    events: list[dict[str, Any]] = []
    while True:
        status, page = request(port, "GET", f"/api/v1/games/{game_id}/events/?after={after}")
        assert status == 200, page
        events += page["events"]
        if not page["has_more"]:
            return events
        after = page["events"][-1]["seq"]


def sign_up(port: int, username: str, password: str = "a long passphrase 42") -> str:
    """Register an account over HTTP and return a fresh API token of it."""
    status, _ = request(port, "POST", "/api/v1/players/", {"username": username, "password": password})
    assert status == 201, status
    status, body = request(
        port, "POST", "/api/v1/tokens/", {"username": username, "password": password, "name": "test"}
    )
    assert status == 201, (status, body)
    return body["token"]


class WebServer:
    """The web server on the test database; with ``redis_url`` for the cache and live
    notices; its tasks go to ``broker_url`` if given (else nowhere: memory://)."""

    def __init__(
        self,
        log_path: Path,
        *,
        redis_url: str | None,
        env: dict[str, str] | None = None,
        workers: int = 1,
        broker_url: str | None = None,
    ) -> None:
        self.port = free_port()
        self.log_path = log_path
        environ = {
            **os.environ,
            "DATABASE_URL": session_database_url(),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            **(env or {}),
        }
        environ.pop("REDIS_URL", None)
        if redis_url:
            environ["REDIS_URL"] = redis_url
        if broker_url:
            environ["CELERY_BROKER_URL"] = broker_url
        # The Procfile's web command: gunicorn with the deployment's config.
        self.process = spawn(
            gunicorn_command(f"127.0.0.1:{self.port}", workers=workers), cwd=ROOT, env=environ, log=log_path
        )
        self._wait_ready()

    def _wait_ready(self) -> None:
        try:
            wait_for_http(self.process, "127.0.0.1", self.port, "/api/v1/bots/", timeout=READY_TIMEOUT_SECONDS)
        except ChildExited:
            raise RuntimeError(f"the web server exited:\n{self.log_path.read_text(errors='replace')}") from None
        except NotReady:
            raise RuntimeError(f"the web server did not answer:\n{self.log_path.read_text(errors='replace')}") from None

    def request(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        return request(self.port, method, path, body, token=token)

    def stop(self) -> None:
        stop_group(self.process, timeout=10)


@dataclass
class SseMessage:
    event: str | None = None
    id: str | None = None
    data: Any = None
    comment: str | None = None
    received: float = field(default_factory=time.monotonic)


class SseClient:
    """Opens a stream and yields its messages (comments included) as they come."""

    def __init__(
        self, port: int, path: str, *, token: str | None = None, last_event_id: str | None = None, timeout: float = 20
    ) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.content_type = self.response.getheader("Content-Type", "")

    def messages(self) -> Iterator[SseMessage]:
        message = SseMessage()
        while True:
            raw = self.response.readline()
            if not raw:
                return
            line = raw.decode().rstrip("\n")
            if line == "":
                if message.event or message.data is not None or message.id:
                    yield message
                message = SseMessage()
            elif line.startswith(":"):
                yield SseMessage(comment=line[1:].strip())
            else:
                name, _, value = line.partition(": ")
                if name == "data":
                    message.data = json.loads(value)
                elif name == "event":
                    message.event = value
                elif name == "id":
                    message.id = value

    def close(self) -> None:
        self.connection.close()
