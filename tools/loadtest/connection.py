"""The load generator's HTTP: one cheap keep-alive connection per client (stdlib
``http.client``; the generator runs on the server's cores and must stay light),
and how a failed answer is counted."""

from __future__ import annotations

import http.client
import ssl
import time
from typing import Any
from urllib.parse import urlsplit

import orjson

from tools.loadtest.options import LoadTestError, parse_url

#: (host, port) served over TLS, and the context that verifies it (``use_tls``).
_TLS: dict[tuple[str, int], ssl.SSLContext] = {}


def use_tls(url: str, cafile: str | None = None) -> None:
    """Speak HTTPS to ``url``'s server when its scheme is https, verifying its
    certificate against ``cafile`` (e.g. ``make cluster``'s authority) or the system's
    authorities. Never unverified."""
    if urlsplit(url).scheme == "https":
        _TLS[parse_url(url)] = ssl.create_default_context(cafile=cafile)


def connect(host: str, port: int, timeout: float) -> http.client.HTTPConnection:
    context = _TLS.get((host, port))
    if context is not None:
        return http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
    return http.client.HTTPConnection(host, port, timeout=timeout)


def uses_tls(host: str, port: int) -> bool:
    return (host, port) in _TLS


class Http:
    """One keep-alive connection. ``request`` answers (status, body bytes); a
    broken connection answers status 0 after reconnecting (a POST is never
    re-sent: the server may have got it). A connection idle for longer than
    ``IDLE_SECONDS`` is replaced first: servers close idle keep-alive connections
    (ours after 5 s: keepalive in config/gunicorn.conf.py), and a POST sent just then would be lost."""

    IDLE_SECONDS = 3.0

    def __init__(self, host: str, port: int, timeout: float = 60.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.conn = connect(host, port, timeout)
        self.last_used = time.monotonic()

    def request(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        data = None
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        if time.monotonic() - self.last_used > self.IDLE_SECONDS:
            self.conn.close()  # http.client connects again on the next request
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                payload = response.read()
                self.last_used = time.monotonic()
                return response.status, payload
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = connect(self.host, self.port, self.timeout)
                if method != "GET" or attempt:
                    return 0, b""
        return 0, b""  # pragma: no cover - the loop always returns

    def json(self, method: str, path: str, token: str | None = None, body: Any = None, expect: int = 200) -> Any:
        """For the set-up: the decoded answer, or ``LoadTestError``."""
        status, payload = self.request(method, path, token, body)
        if status != expect:
            raise LoadTestError(f"{method} {path} answered {status}: {payload[:300]!r}")
        return orjson.loads(payload) if payload else None

    def close(self) -> None:
        self.conn.close()


def error_key(status: int, payload: bytes) -> str:
    """``"409 stale_seq"``: the status and the problem document's code."""
    if status == 0:
        return "connection_error"
    try:
        code = orjson.loads(payload).get("code", "")
    except (ValueError, AttributeError):
        code = ""
    return f"{status} {code}".strip()
