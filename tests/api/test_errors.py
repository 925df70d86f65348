"""Every error is a problem document with a stable code (core.exception_handler)."""

from __future__ import annotations

from enum import StrEnum

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError

from core.errors import ERROR_CODES, ApiError, Conflict, all_error_codes, register_error_code
from core.problems import flatten_errors, problem_from_exception
from core.schema import problem_responses
from tests.api.problems import assert_problem

error_views = pytest.mark.urls("tests.api.error_urls")


@error_views
def test_rule_error_is_422_with_the_engines_code(api_client):
    body = assert_problem(api_client.get("/rule/"), 422, "not_your_turn")
    assert body["detail"] == "Seat 2 is to move."


@error_views
def test_ruleset_error_is_422_with_the_engines_code(api_client):
    body = assert_problem(api_client.get("/ruleset/"), 422, "invalid_ruleset")
    assert body["detail"] == "Set size must be 6, 9, 12 or 15."


@error_views
def test_api_error_with_a_registered_code_and_extra_members(api_client):
    body = assert_problem(api_client.get("/conflict/"), 409, "test_stale")
    assert body["current_seq"] == 12
    assert body["detail"] == "The game moved on."


@error_views
def test_api_error_family_default_code(api_client):
    assert_problem(api_client.get("/family/"), 409, "conflict")
    api_client.raise_request_exception = False
    assert_problem(api_client.get("/api-error/"), 500, "server_error")


@error_views
def test_django_http404_and_permission_denied(api_client):
    assert_problem(api_client.get("/http404/"), 404, "not_found")
    assert_problem(api_client.get("/django-denied/"), 403, "permission_denied")


@error_views
def test_crash_is_a_bare_500(api_client, caplog):
    api_client.raise_request_exception = False
    response = api_client.get("/crash/")
    body = assert_problem(response, 500, "server_error")
    assert "secret internals" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert body["detail"] == ERROR_CODES["server_error"].description
    assert "secret internals" in caplog.text  # logged for the operators


@error_views
def test_crash_reaches_the_test_client(api_client):
    with pytest.raises(RuntimeError, match="secret internals"):
        api_client.get("/crash/")


@error_views
def test_rate_limited_says_when_to_retry(api_client):
    assert api_client.get("/throttled/").status_code == 200
    assert api_client.get("/throttled/").status_code == 200
    response = api_client.get("/throttled/")
    body = assert_problem(response, 429, "rate_limited")
    assert 1 <= body["retry_after"] <= 60
    assert response["Retry-After"] == str(body["retry_after"])


@error_views
def test_parse_error(api_client):
    response = api_client.post("/family/", data=b"{not json", content_type="application/json")
    assert_problem(response, 400, "parse_error")


@error_views
def test_unsupported_media_type(api_client):
    response = api_client.post("/family/", data=b"a=1", content_type="text/plain")
    assert_problem(response, 415, "unsupported_media_type")


def test_method_not_allowed(api_client):
    assert_problem(api_client.put("/api/v1/players/"), 405, "method_not_allowed")


def test_not_acceptable(api_client):
    assert_problem(api_client.get("/api/v1/players/x/", HTTP_ACCEPT="application/xml"), 406, "not_acceptable")


def test_unknown_url_is_a_problem_too(api_client):
    body = assert_problem(api_client.get("/api/v1/no-such-thing/"), 404, "not_found")
    assert "/api/v1/no-such-thing/" in body["detail"]


def test_a_client_that_accepts_only_html_gets_a_406_problem(api_client):
    assert_problem(api_client.get("/api/v1/me/", HTTP_ACCEPT="text/html"), 406, "not_acceptable")


def test_validation_errors_are_flattened():
    nested = {"move": {"tile": ["Unknown tile."]}, "items": [{}, {"name": ["Too long."]}], "non_field_errors": ["No."]}
    assert flatten_errors(nested) == {
        "move.tile": ["Unknown tile."],
        "items.1.name": ["Too long."],
        "non_field_errors": ["No."],
    }
    problem = problem_from_exception(ValidationError("Plain message."))
    assert (problem.code, problem.extra["errors"]) == ("validation_error", {"non_field_errors": ["Plain message."]})
    problem = problem_from_exception(DjangoValidationError({"password": ["Too short."]}))
    assert (problem.status, problem.extra["errors"]) == (400, {"password": ["Too short."]})


@pytest.fixture
def registry(monkeypatch):
    """Registrations made by a test are forgotten after it."""
    monkeypatch.setattr("core.errors.ERROR_CODES", dict(ERROR_CODES))


def test_registry_refuses_a_code_with_two_meanings(registry):
    register_error_code("test_twice", status=409, description="Same meaning twice is fine.")
    register_error_code("test_twice", status=409, description="Same meaning twice is fine.")
    with pytest.raises(ValueError, match="already registered"):
        register_error_code("test_twice", status=400, description="Same meaning twice is fine.")


def test_unregistered_codes_cannot_be_raised_or_documented():
    with pytest.raises(LookupError, match="not registered"):
        ApiError("x", code=StrEnum("Never", {"X": "never_registered"}).X)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown error code"):
        problem_responses("never_registered")


def test_a_family_subclass_needs_a_description(registry):
    with pytest.raises(TypeError, match="no description"):
        type("Undescribed", (Conflict,), {"code": "test_undescribed"})


def test_engine_codes_are_listed_with_their_statuses():
    from games.engine.errors import RULE_CODES, SETUP_CODES

    codes = all_error_codes()
    assert all(codes[code].status == 422 for code in RULE_CODES)
    assert all(codes[code].status == 422 for code in SETUP_CODES)
    assert codes["username_taken"].status == 409


def test_problem_responses_accepts_a_status_for_all_its_codes():
    (key,) = problem_responses(401)
    assert key == (401, "application/problem+json")
