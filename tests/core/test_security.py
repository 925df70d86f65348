"""Security settings and pages (docs/security.md): the production settings pass
``check --deploy``, the scheme a proxy reports is believed only from trusted proxies,
every page carries the Content-Security-Policy, its report endpoint logs and never
fails, and passwords are hashed with Argon2 - older hashes upgraded at log-in."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from typing import Any

import pytest
from csp.constants import NONE, SELF
from csp.utils import build_policy
from django.contrib.auth.hashers import make_password
from django.test import Client

from config.settings.security import PASSWORD_HASHERS
from core.middleware import forwarded_scheme
from players.models import User
from tests.conftest import PASSWORD
from tests.integration.workers import ROOT

# The production settings of docs/security.md's checklist (with a test database and key).
PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "a-production-secret-key-of-fifty-or-more-characters-0123456789-abcdefghij",
    "ALLOWED_HOSTS": "play.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://play.example.org",
    "HTTPS": "true",
    "NUM_PROXIES": "1",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
}


def _check_deploy(**env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV}
    environment.update({"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_check_deploy_is_clean_with_the_documented_production_settings() -> None:
    done = _check_deploy(**PRODUCTION_ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


@pytest.mark.slow
def test_check_deploy_names_what_plain_http_leaves_out() -> None:
    """The check the test above passes is one that can fail: without HTTPS=true."""
    done = _check_deploy(**{**PRODUCTION_ENV, "HTTPS": "false"})
    assert done.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in done.stderr + done.stdout


# -- the scheme a proxy reports ------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "proxies", "believed"),
    [
        ("https", 0, None),  # no proxy in front: a client wrote it
        ("https", 1, "https"),
        ("http", 1, "http"),
        ("https, http", 1, "http"),  # the client wrote "https"; our proxy appended what it saw
        ("HTTPS", 2, "https"),
        ("", 1, None),
    ],
)
def test_the_forwarded_scheme_is_the_trusted_proxys(header: str, proxies: int, believed: str | None) -> None:
    assert forwarded_scheme({"HTTP_X_FORWARDED_PROTO": header}, proxies) == believed


@pytest.mark.django_db
def test_a_client_cannot_claim_https_without_a_trusted_proxy(settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.NUM_PROXIES = 0
    answer = Client().get("/api/v1/bots/", HTTP_X_FORWARDED_PROTO="https")
    assert answer.status_code == 301 and answer["Location"].startswith("https://")
    settings.NUM_PROXIES = 1  # behind our proxy, which reports the scheme it was reached by
    assert Client().get("/api/v1/bots/", HTTP_X_FORWARDED_PROTO="https").status_code == 200
    assert Client().get("/api/v1/bots/", HTTP_X_FORWARDED_PROTO="http").status_code == 301
    assert Client().get("/api/v1/health/").status_code in (200, 503)  # the proxy's checks: never redirected


@pytest.mark.django_db
def test_https_answers_carry_hsts_and_secure_cookies(settings: Any, make_player: Any) -> None:
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    staff = make_player("alice")
    User.objects.filter(pk=staff.pk).update(is_staff=True)  # the admin lets staff log in
    client = Client(enforce_csrf_checks=True)
    page = client.get("/admin/login/", secure=True)
    assert page["Strict-Transport-Security"].startswith("max-age=31536000")
    csrf = page.cookies["csrftoken"]
    assert csrf["secure"] and csrf["httponly"] and csrf["samesite"] == "Lax"
    answer = client.post(
        "/admin/login/",
        {"username": "alice", "password": PASSWORD, "csrfmiddlewaretoken": csrf.value},
        secure=True,
        HTTP_REFERER="https://testserver/admin/login/",  # over HTTPS the referrer must be the site
    )
    assert answer.status_code == 302
    session = answer.cookies["sessionid"]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"


# -- Content-Security-Policy -----------------------------------------------------------------


def _policy(answer: Any) -> dict[str, list[str]]:
    directives = [part.strip().split() for part in answer["Content-Security-Policy"].split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/login/", "/api/docs/", "/admin/login/", "/api/v1/bots/"])
def test_every_page_carries_the_strict_policy(path: str) -> None:
    answer = Client().get(path)
    assert answer.status_code == 200
    policy = _policy(answer)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["report-uri"] == ["/csp-report/"]
    assert not any("unsafe" in source or "://" in source for sources in policy.values() for source in sources)
    assert answer["X-Frame-Options"] == "DENY" and answer["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_the_policy_kept_between_answers_is_the_settings_one_and_follows_them(settings: Any) -> None:
    """core.middleware.ContentSecurityPolicy builds the header once: it is django-csp's
    own text, and a change of the settings (tests, a reload) is seen at once."""
    assert _policy(Client().get("/api/v1/bots/")) == _policy_of(build_policy())
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": [NONE], "report-uri": ["/csp-report/"]}}
    assert _policy(Client().get("/api/v1/bots/")) == {"default-src": ["'none'"], "report-uri": ["/csp-report/"]}
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {
        "DIRECTIVES": {"img-src": [SELF]},
        "EXCLUDE_URL_PREFIXES": ["/login/"],
    }
    answer = Client().get("/api/v1/bots/")
    assert _policy_of(answer["Content-Security-Policy-Report-Only"]) == {
        "img-src": ["'self'"],
        "default-src": ["'self'"],
    }
    assert "Content-Security-Policy-Report-Only" not in Client().get("/login/")


def _policy_of(text: str) -> dict[str, list[str]]:
    return {words[0]: words[1:] for words in (part.strip().split() for part in text.split(";") if part.strip())}


@pytest.mark.django_db
def test_redoc_alone_adds_its_style_hashes_and_its_bundle_loads_nothing_foreign() -> None:
    policy = _policy(Client().get("/api/redoc/"))
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"][0] == "'self'" and all(s.startswith("'sha256-") for s in policy["style-src"][1:])
    assert policy["worker-src"] == ["'self'", "blob:"]
    bundle = Client().get("/api/redoc/redoc.standalone.js")
    assert bundle.status_code == 200 and bundle["Content-Type"].startswith("text/javascript")
    assert b"cdn.redoc.ly" not in bundle.content and b"Redoc" in bundle.content


REPORT = {
    "csp-report": {
        "document-uri": "https://play.example.org/games/7/",
        "effective-directive": "script-src-elem",
        "blocked-uri": "https://evil.example/x.js",
        "original-policy": "default-src 'self'",
    }
}


@pytest.mark.django_db
def test_a_violation_report_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="security.csp"):
        answer = Client().post("/csp-report/", json.dumps(REPORT), content_type="application/csp-report")
    assert answer.status_code == 204
    (line,) = [r for r in caplog.records if r.name == "security.csp"]
    assert line.csp_violation == {  # type: ignore[attr-defined]
        "page": "https://play.example.org/games/7/",
        "directive": "script-src-elem",
        "blocked": "https://evil.example/x.js",
    }


@pytest.mark.django_db
def test_reporting_api_reports_are_logged_too(caplog: pytest.LogCaptureFixture) -> None:
    body = [
        {"type": "csp-violation", "body": {"documentURL": "https://a/", "effectiveDirective": "img-src"}},
        {"type": "deprecation", "body": {"id": "x"}},
    ]
    with caplog.at_level(logging.WARNING, logger="security.csp"):
        answer = Client().post("/csp-report/", json.dumps(body), content_type="application/reports+json")
    assert answer.status_code == 204
    assert [r.csp_violation for r in caplog.records if r.name == "security.csp"] == [  # type: ignore[attr-defined]
        {"page": "https://a/", "directive": "img-src"}
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [b"", b"not json", b"[1, 2", b"\xff\xfe", b"null", b"[]", b'{"csp-report": 5}', b'[{"type": "csp-violation"}]'],
)
def test_a_malformed_report_is_dropped_without_an_error(body: bytes, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="security.csp"):
        answer = Client().post("/csp-report/", body, content_type="application/csp-report")
    assert answer.status_code == 204
    assert not [r for r in caplog.records if r.name == "security.csp"]


@pytest.mark.django_db
def test_reports_over_the_limit_or_too_large_are_dropped(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    settings.CSP_REPORT_RATE = "3/minute"
    with caplog.at_level(logging.WARNING, logger="security.csp"):
        answers = [
            Client().post("/csp-report/", json.dumps(REPORT), content_type="application/csp-report").status_code
            for _ in range(6)
        ]
        large = {"csp-report": {**REPORT["csp-report"], "script-sample": "x" * 20000}}
        answers.append(
            Client().post("/csp-report/", json.dumps(large), content_type="application/csp-report").status_code
        )
    assert answers == [204] * 7
    assert len([r for r in caplog.records if r.name == "security.csp"]) == 3
    assert Client().get("/csp-report/").status_code == 405


# -- passwords: Argon2 ----------------------------------------------------------------------


@pytest.mark.django_db
def test_new_passwords_are_argon2_and_old_hashes_are_upgraded_at_log_in(
    settings: Any, api_client: Any, make_player: Any
) -> None:
    settings.PASSWORD_HASHERS = PASSWORD_HASHERS  # the production list (the suite uses a quick one)
    assert make_player("newcomer").password.startswith("argon2$argon2id$")
    old = make_player("veteran")
    User.objects.filter(pk=old.pk).update(password=make_password(PASSWORD, hasher="pbkdf2_sha256"))
    assert User.objects.get(pk=old.pk).password.startswith("pbkdf2_sha256$")

    refused = api_client.post("/api/v1/tokens/", {"username": "veteran", "password": "wrong", "name": "t"})
    assert refused.status_code == 401
    assert User.objects.get(pk=old.pk).password.startswith("pbkdf2_sha256$")  # a wrong password changes nothing

    answer = api_client.post("/api/v1/tokens/", {"username": "veteran", "password": PASSWORD, "name": "t"})
    assert answer.status_code == 201
    upgraded = User.objects.get(pk=old.pk)
    assert upgraded.password.startswith("argon2$argon2id$") and upgraded.check_password(PASSWORD)
