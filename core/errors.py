"""Stable error codes and the exceptions that carry them.

Every refusal the API can give has a stable machine-readable ``code``, an HTTP
status, a short ``title`` and a ``description``; all of them live in one
registry, ``ERROR_CODES``, so the OpenAPI document can list every code (the
``ErrorCode`` schema) and clients can branch on codes, never on messages.

Raising one::

    from core.errors import Conflict, NotFound, register_error_code

    class UsernameTaken(Conflict):          # defining the class registers the code
        code = "username_taken"
        title = "Username taken"
        description = "Another account already uses this username."

    raise UsernameTaken(f"{username!r} is taken.")
    raise NotFound("There is no game 12.")                    # the family's own code
    register_error_code("stale_seq", status=409, description="The game moved on.")
    raise ApiError("The game is at seq 12.", code="stale_seq", extra={"current_seq": 12})

The status always comes from the registry entry of the code, so one code never
means two statuses.  ``core.exception_handler`` turns any of these (and DRF's
and the rules engine's own exceptions) into an ``application/problem+json``
response.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, ClassVar, NamedTuple


class ErrorSpec(NamedTuple):
    """What one error code means: its HTTP status, title and description."""

    status: int
    title: str
    description: str


#: code -> ErrorSpec: every code the API itself raises.  The rules engine's codes
#: join in ``all_error_codes()``.
ERROR_CODES: dict[str, ErrorSpec] = {}

#: Titles of the problems that the rules engine's exceptions become.
RULE_ERROR_STATUS, RULE_ERROR_TITLE = 422, "Move refused by the rules"
SETUP_ERROR_STATUS, SETUP_ERROR_TITLE = 400, "Invalid ruleset or set-up"


def register_error_code(
    code: str, *, status: int, description: str, title: str | None = None
) -> str:
    """Add ``code`` to the registry and return it.

    ``title`` defaults to the status's reason phrase (``409`` -> "Conflict").
    Registering the same code twice with the same meaning is harmless (modules
    may be reloaded); with a different one it is a programming error.
    """
    spec = ErrorSpec(status, title or HTTPStatus(status).phrase, description)
    existing = ERROR_CODES.get(code)
    if existing is not None and existing != spec:
        raise ValueError(f"error code {code!r} is already registered as {existing}")
    ERROR_CODES[code] = spec
    return code


def register_error_codes(codes: Mapping[str, tuple[int, str]]) -> None:
    """Register a table of ``code -> (status, description)`` in one go."""
    for code, (status, description) in codes.items():
        register_error_code(code, status=status, description=description)


def all_error_codes() -> dict[str, ErrorSpec]:
    """Every code the API can answer with, sorted: ours and the rules engine's.

    The engine is imported here, not at module level, so that ``core`` stays
    importable on its own and the engine stays free of any API concern.
    """
    from games.engine.errors import RULE_CODES, SETUP_CODES

    codes = dict(ERROR_CODES)
    for code, description in RULE_CODES.items():
        codes.setdefault(code, ErrorSpec(RULE_ERROR_STATUS, RULE_ERROR_TITLE, description))
    for code, description in SETUP_CODES.items():
        codes.setdefault(code, ErrorSpec(SETUP_ERROR_STATUS, SETUP_ERROR_TITLE, description))
    return dict(sorted(codes.items()))


class ApiError(Exception):
    """Base of every error the API raises on purpose.

    A subclass that sets ``code`` (with ``status``, ``title`` and
    ``description``) registers that code.  An instance may name another
    registered code with ``code=`` (its status comes from the registry) and add
    ``extra`` members to the problem body, e.g. ``{"current_seq": 12}``.
    """

    code: ClassVar[str] = "server_error"
    status: ClassVar[int] = 500
    title: ClassVar[str] = "Internal server error"
    description: ClassVar[str] = "The server hit an unexpected error. Nothing about it is shown."

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            if "description" not in cls.__dict__:
                raise TypeError(f"{cls.__name__} sets a code but no description")
            register_error_code(cls.code, status=cls.status, title=cls.title, description=cls.description)

    def __init__(
        self,
        detail: str | None = None,
        *,
        code: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        code = code or type(self).code
        try:
            spec = ERROR_CODES[code]
        except KeyError:
            raise LookupError(
                f"error code {code!r} is not registered: use register_error_code()"
            ) from None
        # Instance attributes shadow the class defaults of the family.
        self.code = code  # type: ignore[misc]
        self.status = spec.status  # type: ignore[misc]
        self.title = spec.title  # type: ignore[misc]
        self.detail = detail or spec.description
        self.extra = dict(extra or {})
        super().__init__(self.detail)


register_error_code(
    ApiError.code, status=ApiError.status, title=ApiError.title, description=ApiError.description
)


# --- Families: raise them directly for their generic code, or subclass them -----


class BadRequest(ApiError):
    code = "bad_request"
    status = 400
    title = "Bad request"
    description = "The request cannot be served as sent."


class Unauthorized(ApiError):
    code = "not_authenticated"
    status = 401
    title = "Not authenticated"
    description = "This needs an API token (Authorization: Bearer <token>) or a session."


class PermissionDenied(ApiError):
    code = "permission_denied"
    status = 403
    title = "Permission denied"
    description = "You may not do this."


class NotFound(ApiError):
    code = "not_found"
    status = 404
    title = "Not found"
    description = "There is nothing here, or nothing you may see."


class Conflict(ApiError):
    code = "conflict"
    status = 409
    title = "Conflict"
    description = "The request conflicts with the current state of the resource."


class Unprocessable(ApiError):
    code = "unprocessable"
    status = 422
    title = "Unprocessable request"
    description = "The request is well-formed but cannot be carried out."


# --- Codes for the framework's own exceptions (mapped in core.exception_handler) --

register_error_code(
    "authentication_failed",
    status=401,
    title="Authentication failed",
    description="The credentials sent (API token or session) are invalid, revoked or belong to a suspended account.",
)
register_error_code(
    "method_not_allowed",
    status=405,
    title="Method not allowed",
    description="This resource does not support the HTTP method used.",
)
register_error_code(
    "not_acceptable",
    status=406,
    title="Not acceptable",
    description="The server cannot produce a response in a media type the Accept header allows.",
)
register_error_code(
    "unsupported_media_type",
    status=415,
    title="Unsupported media type",
    description="The request body's Content-Type is not supported: send application/json.",
)
register_error_code(
    "payload_too_large",
    status=413,
    title="Request body too large",
    description="The request body is over the server's limit (API_MAX_BODY_BYTES, 64 KiB by default).",
)
register_error_code(
    "parse_error",
    status=400,
    title="Malformed request body",
    description="The request body could not be parsed (e.g. invalid JSON).",
)
register_error_code(
    "validation_error",
    status=400,
    title="Invalid input",
    description="Some fields are invalid; `errors` maps each field to its messages.",
)
register_error_code(
    "rate_limited",
    status=429,
    title="Too many requests",
    description="Slow down: retry after `retry_after` seconds (also in the Retry-After header).",
)
