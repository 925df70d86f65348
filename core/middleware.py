"""Middleware for what reaches the server before (and around) any view.

* ``ClientAddress`` - the one place that decides a request's client address
  (``REMOTE_ADDR``): ``X-Forwarded-For`` is believed only as far as the
  deployment says proxies stand in front of the server (``NUM_PROXIES``, default
  0: never). Rate limits key on this address, so a client cannot reset them by
  sending the header. (The web servers' own proxy-header handling is off: see
  ``config/gunicorn.conf.py`` and ``manage.py serve``.) The scheme a proxy
  reports (``X-Forwarded-Proto``, read through ``SECURE_PROXY_SSL_HEADER``) is
  settled by the same rule: removed with no proxies, else the value the outermost
  trusted proxy set - so a client cannot claim HTTPS it did not use.
* ``ApiProblems`` - every answer under ``/api/`` that is an error is a problem
  document (``application/problem+json``) with a stable code, whatever produced
  it: a path with control characters (refused before any view or database sees
  it), a body over ``API_MAX_BODY_BYTES`` (413), a host not in ALLOWED_HOSTS, an
  unknown URL, and the HTML pages Django shows for errors when DEBUG is on.
* ``ContentSecurityPolicy`` - django-csp's middleware, the policy's header text
  built once (per settings) rather than for every answer.
* ``PageMessages`` - Django's messages (the admin's "saved" notes, kept in the
  session or a cookie between pages) for pages, not for the API.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.translation import gettext as _

from core.problems import PROBLEM_CONTENT_TYPE, Problem, problem_json_response

API_PREFIX = "/api/"
BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")
# What an error status means when no view said more (e.g. Django's own 404 page).
STATUS_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
}


class ClientAddress:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.META["REMOTE_ADDR"] = client_address(request.META, settings.NUM_PROXIES)
        scheme = forwarded_scheme(request.META, settings.NUM_PROXIES)
        if scheme is None:
            request.META.pop("HTTP_X_FORWARDED_PROTO", None)
        else:
            request.META["HTTP_X_FORWARDED_PROTO"] = scheme
        return self.get_response(request)


def client_address(meta: dict[str, object], proxies: int) -> str:
    """The client's address: the connection's peer, or - behind ``proxies`` proxies,
    each of which appends the address it got the request from to X-Forwarded-For -
    the address the outermost of them saw."""
    peer = str(meta.get("REMOTE_ADDR") or "")
    if proxies <= 0:
        return peer
    forwarded = [part.strip() for part in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",") if part.strip()]
    if not forwarded:
        return peer
    return forwarded[-min(proxies, len(forwarded))]


def forwarded_scheme(meta: dict[str, object], proxies: int) -> str | None:
    """The scheme the outermost of ``proxies`` trusted proxies reported in
    X-Forwarded-Proto (each one that appends adds its own entry), or None: no
    proxies, no header."""
    if proxies <= 0:
        return None
    reported = [part.strip() for part in str(meta.get("HTTP_X_FORWARDED_PROTO") or "").split(",") if part.strip()]
    if not reported:
        return None
    return reported[-min(proxies, len(reported))].lower()


class ApiProblems:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        if any(ord(char) < 0x20 or ord(char) == 0x7F for char in request.path):
            return problem_json_response(Problem.of("not_found", _("No resource has a path with control characters.")))
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return problem_json_response(Problem.of("bad_request", _("The Content-Length header is not a number.")))
        if declared > settings.API_MAX_BODY_BYTES:
            return _too_large()
        if request.method in BODY_METHODS:
            try:
                body = request.body  # read here, once (views parse it from memory) and measured, however sent
            except RequestDataTooBig:
                return _too_large()
            if len(body) > settings.API_MAX_BODY_BYTES:
                return _too_large()
        try:
            request.get_host()
        except DisallowedHost:
            return problem_json_response(Problem.of("bad_request", _("This server does not answer for that host.")))
        response = self.get_response(request)
        if response.status_code >= 400 and not _is_json(response):
            code = STATUS_CODES.get(
                response.status_code, "server_error" if response.status_code >= 500 else "bad_request"
            )
            problem = Problem.of(code)
            replacement = problem_json_response(problem)
            if response.status_code == 405 and response.has_header("Allow"):
                replacement["Allow"] = response["Allow"]
            return replacement
        return response


def _too_large() -> HttpResponse:
    return problem_json_response(
        Problem.of(
            "payload_too_large",
            _("The request body is over the limit of %(limit)s bytes.") % {"limit": settings.API_MAX_BODY_BYTES},
        )
    )


def _is_json(response: HttpResponse) -> bool:
    content_type = response.get("Content-Type", "")
    return content_type.startswith(("application/json", PROBLEM_CONTENT_TYPE, "text/event-stream"))


#: The attributes django-csp's decorators (``csp_update``, ``csp_replace`` ...) set
#: on a response whose policy differs from the settings' one.
_CSP_PER_RESPONSE = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)


class ContentSecurityPolicy(CSPMiddleware):
    """django-csp's middleware, which builds the policy's text from the settings
    afresh for every answer (the directives walked, copied and joined, twice: the
    policy and the report-only one): here it is built once and kept until the
    settings change (``setting_changed``). An answer whose policy is its own - a
    nonce asked for by the request, a ``csp_update``/``csp_replace``/``csp_exempt``
    on the view - goes through django-csp's own code, unchanged."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in _CSP_PER_RESPONSE
        ):
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:  # django-csp leaves Django's debug pages alone
            return response
        for header, report_only, exempt in (
            (HEADER, False, "_csp_exempt"),
            (HEADER_REPORT_ONLY, True, "_csp_exempt_ro"),
        ):
            policy, excluded = _csp_policy(report_only)
            if (
                policy
                and header not in response
                and getattr(response, exempt, False) is False
                and not request.path_info.startswith(excluded)
            ):
                response[header] = policy
        # As django-csp does: a nonce asked for after the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response


@functools.cache
def _csp_policy(report_only: bool) -> tuple[str, tuple[str, ...]]:
    """The settings' policy (or report-only policy) as its header's text, and the
    path prefixes it is not sent on."""
    policy = getattr(
        settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY" if report_only else "CONTENT_SECURITY_POLICY", None
    )
    return build_policy(report_only=report_only), tuple((policy or {}).get("EXCLUDE_URL_PREFIXES", None) or ())


@receiver(setting_changed)
def _csp_settings_changed(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _csp_policy.cache_clear()


class PageMessages(MessageMiddleware):
    """Django's messages middleware, which gives every request a message store
    (a cookie's and the session's) and settles it on the answer: under ``/api/``
    nothing adds or shows a message (they are the admin's and the pages'), so an
    API request gets none, as if it had none queued - and a message a page queued
    waits, untouched, for the next page."""

    def process_request(self, request: HttpRequest) -> None:
        if not request.path_info.startswith(API_PREFIX):
            super().process_request(request)
        # (Django's process_response leaves a request without a store alone.)
