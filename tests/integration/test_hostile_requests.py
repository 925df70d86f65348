"""Malformed and hostile requests over real sockets, to the embedded server
(``manage.py serve``: uvicorn, DEBUG on) and the production one (gunicorn with
uvicorn workers, DEBUG off): every answer under /api/ is a problem document with
the right status, never a 500 or an HTML page."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

from tests.integration.serve import Serve
from tests.integration.web import WebServer, sign_up

pytestmark = [pytest.mark.slow]

DEEP = ("[" * 20000 + "]" * 20000).encode()
BIG = b'{"x": "' + b"x" * 100_000 + b'"}'


def raw(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str | bytes] | None = None,
) -> tuple[int, str, bytes]:
    """One request, sent as written (http.client quotes nothing in the path)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        sent: dict[str, str | bytes] = {
            "Host": f"127.0.0.1:{port}",
            "Content-Type": "application/json",
            **(headers or {}),
        }
        if body is not None:
            sent["Content-Length"] = str(len(body))
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


Case = tuple[str, str, str, bytes | None, dict[str, str | bytes], int, str]
CASES: list[Case] = [
    # (what, method, path, body, headers, status, code)
    ("NUL in the path", "GET", "/api/v1/players/%00/", None, {}, 404, "not_found"),
    ("unknown game id", "GET", "/api/v1/games/987654321/", None, {}, 404, "not_found"),
    ("not an id", "GET", "/api/v1/games/abc/", None, {}, 404, "not_found"),
    ("unknown URL", "GET", "/api/v1/nothing/", None, {}, 404, "not_found"),
    ("deep JSON", "POST", "/api/v1/games/", DEEP, {"auth": "yes"}, 400, "parse_error"),
    ("a body over the limit", "POST", "/api/v1/players/", BIG, {}, 413, "payload_too_large"),
    ("not JSON", "POST", "/api/v1/players/", b"{nope", {}, 400, "parse_error"),
    (
        "another media type",
        "POST",
        "/api/v1/players/",
        b"a=b",
        {"Content-Type": "application/x-www-form-urlencoded"},
        415,
        "unsupported_media_type",
    ),
    ("a wrong method", "PUT", "/api/v1/bots/", b"{}", {}, 405, "method_not_allowed"),
    (
        "a Last-Event-ID of other digits",
        "GET",
        "/api/v1/games/{game}/stream/",
        None,
        {"Last-Event-ID": "\u00b2"},
        400,
        "validation_error",
    ),
    (
        "a huge Last-Event-ID",
        "GET",
        "/api/v1/games/{game}/stream/",
        None,
        {"Last-Event-ID": "9" * 40},
        400,
        "validation_error",
    ),
    # A credential beyond Latin-1 (sent as UTF-8 bytes; the server reads them as Latin-1).
    (
        "a UTF-8 token",
        "GET",
        "/api/v1/me/",
        None,
        {"Authorization": "Bearer cf_\u20ac".encode()},
        401,
        "authentication_failed",
    ),
    (
        "a UTF-8 scheme",
        "GET",
        "/api/v1/me/",
        None,
        {"Authorization": "B\u00e9arer x".encode()},
        401,
        "not_authenticated",
    ),
    ("a host it does not serve", "GET", "/api/v1/bots/", None, {"Host": "evil.example"}, 400, "bad_request"),
]


@pytest.fixture(params=["embedded", "production"])
def server(request, tmp_path) -> Iterator[tuple[int, str, int]]:
    """(port, token, a game id) of a fresh server of each kind."""
    if request.param == "embedded":
        started = Serve(tmp_path / "serve")
        port, token, stop = started.port, started.token, started.stop
    else:
        web = WebServer(tmp_path / "web.log", redis_url=None, env={"DEBUG": "false", "SECRET_KEY": "hostile"})
        port, token, stop = web.port, sign_up(web.port, "host"), web.stop
    try:
        status, _, body = raw(port, "POST", "/api/v1/games/", b"{}", {"Authorization": f"Bearer {token}"})
        assert status == 201, body
        yield port, token, json.loads(body)["game"]["id"]
    finally:
        stop()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_every_hostile_request_gets_a_problem_document(server):
    port, token, game = server
    for what, method, path, body, headers, status, code in CASES:
        sent: dict[str, str | bytes] = dict(headers)
        if sent.pop("auth", None):
            sent["Authorization"] = f"Bearer {token}"
        got, content_type, answer = raw(port, method, path.format(game=game), body, sent)
        assert (got, content_type) == (status, "application/problem+json"), (what, got, content_type, answer[:300])
        assert json.loads(answer)["code"] == code, (what, answer[:300])
    got, content_type, answer = raw(port, "OPTIONS", "/api/v1/games/", None, {"Authorization": f"Bearer {token}"})
    assert (got, content_type) == (200, "application/json"), answer[:300]
