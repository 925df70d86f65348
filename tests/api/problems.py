"""Assertions about problem documents, shared by the API tests."""

from __future__ import annotations

from typing import Any

from core.problems import PROBLEM_CONTENT_TYPE


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """``response`` (a Django or DRF test client's) is a problem document with ``status`` and ``code``; returns the body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert body["type"] == f"urn:chickenfoot:problem:{code}"
    assert body["title"] and body["detail"]
    return body
