"""The health report from a real web server whose database does not answer."""

from __future__ import annotations

import pytest

from tests.integration.web import WebServer, request

pytestmark = [pytest.mark.slow]


def test_the_report_says_down_when_the_database_does_not_answer(tmp_path):
    server = WebServer(
        tmp_path / "web.log", redis_url=None, env={"DATABASE_URL": "postgres://postgres@127.0.0.1:1/gone"}
    )
    try:
        status, report = request(server.port, "GET", "/api/v1/health/")
    finally:
        server.stop()
    assert status == 503
    assert report["status"] == "down"
    assert not report["checks"]["database"]["ok"] and "The database does not answer" in report["problems"][0]
    assert all(not report["checks"][name]["ok"] for name in ("workers", "sweep", "turns"))
    assert report["checks"]["turns"]["pending"] is None
