"""The server's public HTTP API (``openapi.yaml``), in the standard library.

One ``Client`` per token. Every answer is JSON; every error is a problem document
(``application/problem+json``) raised as ``ApiError`` with its stable ``code``.
A ``429`` is waited out as its ``Retry-After`` says and sent again; so is a
dropped connection or a ``502``/``503``/``504``, but only for a request that is
safe to repeat (a GET, or a POST with an ``Idempotency-Key``).
"""

from __future__ import annotations

import http.client
import json
import logging
import time
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger("chickenfoot_bot")

TRANSIENT_STATUSES = frozenset({502, 503, 504})


class ApiError(Exception):
    """An error answer: ``status``, the problem's ``code`` (branch on it) and the whole ``body``."""

    def __init__(self, status: int, body: Any, *, retry_after: float | None = None) -> None:
        self.status = status
        self.body: dict[str, Any] = body if isinstance(body, dict) else {}
        self.code: str = self.body.get("code", "http_error")
        self.retry_after = retry_after  # seconds, for a 429
        super().__init__(f"{status} {self.code}: {self.body.get('detail', body)}")


def retry_after_seconds(headers: Mapping[str, str] | http.client.HTTPMessage, body: Any, default: float = 1.0) -> float:
    """How long a ``429`` asks us to wait: the ``Retry-After`` header (seconds), else the
    body's ``retry_after``, else ``default``. An HTTP-date header is not sent by this server."""
    raw = headers.get("Retry-After")
    for value in (raw, body.get("retry_after") if isinstance(body, dict) else None):
        try:
            if value is not None:
                return max(0.0, float(value))
        except (TypeError, ValueError):
            continue
    return default


class Client:
    """JSON over HTTP to one server (``base_url``, e.g. ``http://127.0.0.1:8000``) with one
    token (``""``: none, for registering and for a token asked for by password)."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 60,
        max_attempts: int = 8,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url if "//" in base_url else f"http://{base_url}")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.scheme, self.host, self.port = parts.scheme, parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/") + "/api/v1"
        self.token = token
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.sleep = sleep

    def connect(self, timeout: float | None = None) -> http.client.HTTPConnection:
        """A new connection to the server (the caller closes it)."""
        kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=self.timeout if timeout is None else timeout)

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {
            **({"Authorization": f"Bearer {self.token}"} if self.token else {}),  # "": anonymous
            "Accept": "application/json",
            "User-Agent": "chickenfoot-bot",
            **(extra or {}),
        }

    def request(self, method: str, path: str, body: Any = None, *, headers: dict[str, str] | None = None) -> Any:
        """Send one request (``path`` under ``/api/v1``) and return the JSON answer; raise
        ``ApiError`` for an error answer. Waits out 429s; repeats transient failures if safe."""
        sent = self.headers(headers)
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        repeatable = method == "GET" or "Idempotency-Key" in sent
        for attempt in range(1, self.max_attempts + 1):
            last = attempt == self.max_attempts
            try:
                status, answer_headers, answer = self._send(method, self.prefix + path, payload, sent)
            except (OSError, http.client.HTTPException) as error:
                if not repeatable or last:
                    raise
                delay = min(30.0, 0.5 * 2**attempt)
                log.warning("%s %s failed (%s); again in %.1f s", method, path, error, delay)
                self.sleep(delay)
                continue
            if status == 429 and not last:
                delay = retry_after_seconds(answer_headers, answer)
                log.warning("%s %s: rate limited; waiting %.1f s as Retry-After says", method, path, delay)
                self.sleep(delay)
                continue
            if status in TRANSIENT_STATUSES and repeatable and not last:
                delay = min(30.0, 0.5 * 2**attempt)
                log.warning("%s %s: %d; again in %.1f s", method, path, status, delay)
                self.sleep(delay)
                continue
            if status >= 400:
                wait = retry_after_seconds(answer_headers, answer) if status == 429 else None
                raise ApiError(status, answer, retry_after=wait)
            return answer
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _send(
        self, method: str, url: str, payload: bytes | None, headers: dict[str, str]
    ) -> tuple[int, http.client.HTTPMessage, Any]:
        connection = self.connect()
        try:
            connection.request(method, url, body=payload, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        finally:
            connection.close()
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = {"detail": raw[:200].decode(errors="replace")}
        return response.status, response.headers, answer

    # -- the operations the kit uses ----------------------------------------------

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, *, headers: dict[str, str] | None = None) -> Any:
        return self.request("POST", path, {} if body is None else body, headers=headers)

    def game(self, game_id: int) -> dict[str, Any]:
        """``GET /games/{id}/``: the game as this account sees it (``game``, ``state``, ``you``)."""
        answer: dict[str, Any] = self.get(f"/games/{game_id}/")
        return answer
