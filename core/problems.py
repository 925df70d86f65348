"""Problem documents (RFC 9457): what any exception looks like on the wire.

``problem_from_exception`` is the one mapping from an exception to a
``Problem``; the DRF exception handler and Django's error views both use it, so
every error response of the server has the same shape::

    {"type": "urn:chickenfoot:problem:<code>", "title": "...", "status": 409,
     "detail": "...", "code": "<code>", ...extra}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, InternalError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.serializers import as_serializer_error
from rest_framework.settings import api_settings

from core.errors import (
    ERROR_CODES,
    ApiError,
    BadRequest,
    Conflict,
    CoreCode,
    ErrorSpec,
    NotFound,
    PermissionDenied,
    Unauthorized,
    Unprocessable,
    all_error_codes,
)
from core.humanize import try_again_in

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "urn:chickenfoot:problem:"
#: Sent with every 401, as HTTP requires; names the scheme clients should use.
WWW_AUTHENTICATE = 'Bearer realm="api"'

# DRF's exceptions and their stable codes, most specific first.
_DRF_CODES: tuple[tuple[type[drf.APIException], str], ...] = (
    (drf.NotAuthenticated, "not_authenticated"),
    (drf.AuthenticationFailed, "authentication_failed"),
    (drf.PermissionDenied, "permission_denied"),
    (drf.NotFound, "not_found"),
    (drf.MethodNotAllowed, "method_not_allowed"),
    (drf.NotAcceptable, "not_acceptable"),
    (drf.UnsupportedMediaType, "unsupported_media_type"),
    (drf.ParseError, "parse_error"),
    (drf.Throttled, "rate_limited"),
    (drf.ValidationError, "validation_error"),
)


@dataclass(frozen=True)
class Problem:
    """One error response: status, stable code, texts, extra members, headers."""

    status: int
    code: str
    title: str
    detail: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, code: str, detail: str | None = None, **extra: Any) -> Problem:
        """The problem for a registered ``code`` (the detail defaults to its description)."""
        spec = ERROR_CODES[code]
        return cls(spec.status, code, str(spec.title), str(detail or spec.description), extra)

    def body(self) -> dict[str, Any]:
        body = {
            "type": PROBLEM_TYPE_PREFIX + self.code,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        clashes = body.keys() & self.extra.keys()
        if clashes:
            raise ValueError(f"extra members may not replace {sorted(clashes)}")
        return {**body, **self.extra}

    def response_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.status == 401:
            headers.setdefault("WWW-Authenticate", WWW_AUTHENTICATE)
        return headers


def problem_from_exception(exc: BaseException) -> Problem:
    """Map any exception to its problem; anything unexpected is a bare 500."""
    if isinstance(exc, ApiError):
        headers = {"Retry-After": str(exc.extra["retry_after"])} if "retry_after" in exc.extra else {}
        return Problem(exc.status, exc.code, str(exc.title), str(exc.detail), exc.extra, headers)
    if isinstance(exc, DjangoValidationError):
        exc = drf.ValidationError(as_serializer_error(exc))
    elif isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if isinstance(exc, drf.APIException):
        return _problem_from_drf(exc)
    if database_unavailable(exc):
        extra = {"retry_after": DATABASE_RETRY_AFTER_SECONDS}
        headers = {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
        spec = ERROR_CODES[CoreCode.DATABASE_UNAVAILABLE]
        return Problem(
            spec.status, CoreCode.DATABASE_UNAVAILABLE, str(spec.title), str(spec.description), extra, headers
        )
    return Problem.of("server_error")


#: What a client is told to wait while the database is away: a failover takes seconds.
DATABASE_RETRY_AFTER_SECONDS = 2
#: SQLSTATE of a write sent to a standby (a connection left on a demoted primary).
READ_ONLY_SQL_TRANSACTION = "25006"


def database_unavailable(exc: BaseException) -> bool:
    """Did ``exc`` come from a database that cannot be reached or cannot write now?

    Django wraps the driver's errors: ``OperationalError`` (no connection, a
    connection the server ended, the pool's timeout, a failover in progress) and
    ``InterfaceError`` (a connection already closed), and the write a standby
    refused. The transaction was rolled back: nothing was changed, so the same
    request may be sent again."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return True
    return isinstance(exc, InternalError) and getattr(exc.__cause__, "sqlstate", None) == READ_ONLY_SQL_TRANSACTION


def _problem_from_drf(exc: drf.APIException) -> Problem:
    code = next((code for kind, code in _DRF_CODES if isinstance(exc, kind)), None)
    if code is None:
        code = exc.default_code if exc.default_code in ERROR_CODES else _code_for_status(exc.status_code)
    spec = ERROR_CODES[code]
    headers: dict[str, str] = {}
    extra: dict[str, Any] = {}
    detail = str(exc.detail) if isinstance(exc.detail, str) else str(spec.description)
    if isinstance(exc, drf.ValidationError):
        extra["errors"] = flatten_errors(as_serializer_error(exc))
    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    wait = getattr(exc, "wait", None)  # set by Throttled (the stubs do not declare it)
    if isinstance(exc, drf.Throttled) and wait is not None:
        retry_after = max(1, math.ceil(wait))
        headers["Retry-After"] = str(retry_after)
        extra["retry_after"] = retry_after
        detail = try_again_in(retry_after)
    # DRF turns a 401 into a 403 when no authenticator names a scheme.
    return Problem(exc.status_code, code, str(spec.title), str(detail), extra, headers)


def _code_for_status(status: int) -> str:
    """The generic code of a status, for exceptions nobody gave a code."""
    families = (BadRequest, Unauthorized, PermissionDenied, NotFound, Conflict, Unprocessable)
    generic = {family.status: family.code for family in families}
    return generic.get(status, "bad_request" if 400 <= status < 500 else "server_error")


def flatten_errors(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Serializer errors as ``{field: [messages]}``; nested fields are dotted
    (``move.tile``, ``items.2.name``) and errors about no field in particular go
    under ``non_field_errors``."""
    errors: dict[str, list[str]] = {}
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            name = str(key) if not prefix else f"{prefix}.{key}"
            if key == api_settings.NON_FIELD_ERRORS_KEY and prefix:
                name = prefix
            for path, messages in flatten_errors(value, name).items():
                errors.setdefault(path, []).extend(messages)
    elif isinstance(detail, (list, tuple)):
        if all(not isinstance(item, (Mapping, list, tuple)) for item in detail):
            if detail:
                errors[prefix or api_settings.NON_FIELD_ERRORS_KEY] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                for path, messages in flatten_errors(item, f"{prefix}.{index}" if prefix else str(index)).items():
                    errors.setdefault(path, []).extend(messages)
    else:
        errors[prefix or api_settings.NON_FIELD_ERRORS_KEY] = [str(detail)]
    return errors


def problem_json_response(problem: Problem) -> JsonResponse:
    """A plain Django response for a problem (for errors outside DRF views)."""
    response = JsonResponse(problem.body(), status=problem.status, content_type=PROBLEM_CONTENT_TYPE)
    for name, value in problem.response_headers().items():
        response[name] = value
    return response


def example_problem(code: str) -> dict[str, Any]:
    """A realistic body for ``code``, for the examples in the OpenAPI document."""
    spec: ErrorSpec = all_error_codes()[code]
    extra: dict[str, Any] = {}
    if code == "validation_error":
        extra["errors"] = {"username": ["This field is required."]}
    elif code == "rate_limited":
        extra["retry_after"] = 17
    elif code in ("database_unavailable", "service_unavailable"):
        extra["retry_after"] = DATABASE_RETRY_AFTER_SECONDS
    return Problem(spec.status, code, str(spec.title), str(spec.description), extra).body()
