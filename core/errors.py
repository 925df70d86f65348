"""Stable error codes and the exception that carries them.

Every refusal the API can give has a stable machine-readable ``code``, an HTTP
status, a short ``title`` and a ``description``.  Each layer enumerates its own
codes (``CoreCode`` here, ``games.errors.GameCode``, ``players.errors.PlayerCode``)
and registers them in one registry, ``ERROR_CODES``, from which the OpenAPI
document lists every code (the ``ErrorCode`` schema): clients branch on codes,
never on messages.

Each layer raises one exception type, a subclass of ``ApiError`` taking one of
its enumerated codes::

    raise GameError(GameCode.STALE_SEQ, "The game is at seq 12.", current_seq=12)
    raise ApiError("There is no player 'bob'.", code=CoreCode.NOT_FOUND)

The status always comes from the registry entry of the code, so one code never
means two statuses.  ``core.problems.problem_from_exception`` is the one place
where an exception (ours, DRF's, Django's) becomes an ``application/problem+json``
response.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise
else:
    StrOrPromise = str


class ErrorSpec(NamedTuple):
    """What one error code means: its HTTP status, title and description.

    The title and description are lazy translations (docs/i18n.md): ``str()`` of
    them is in the language active when it is read (the request's, in an answer;
    English in ``openapi.yaml``). The code never is translated."""

    status: int
    title: StrOrPromise
    description: StrOrPromise


def _lazy(text: StrOrPromise) -> StrOrPromise:
    """A lazy translation of ``text`` (already lazy: as it is). A plain string must
    be in the catalogue by another way: marked with ``gettext_noop`` where it is
    written (the engine's descriptions, the titles in ``core.error_titles``)."""
    return text if isinstance(text, Promise) else gettext_lazy(text)


class CoreCode(StrEnum):
    """The codes of the API as a whole (the framework's errors and the generic families)."""

    SERVER_ERROR = "server_error"
    BAD_REQUEST = "bad_request"
    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    PERMISSION_DENIED = "permission_denied"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    CONFLICT = "conflict"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    UNPROCESSABLE = "unprocessable"
    PARSE_ERROR = "parse_error"
    VALIDATION_ERROR = "validation_error"
    RATE_LIMITED = "rate_limited"
    DATABASE_UNAVAILABLE = "database_unavailable"
    SERVICE_UNAVAILABLE = "service_unavailable"
    CSRF_FAILED = "csrf_failed"


#: code -> ErrorSpec: every code the API can answer with, registered by the
#: layers that raise them (``core`` here, ``games.errors``, ``players.errors``).
ERROR_CODES: dict[str, ErrorSpec] = {}


def register_error_code(code: str, *, status: int, description: StrOrPromise, title: StrOrPromise | None = None) -> str:
    """Add ``code`` to the registry and return it.

    ``title`` defaults to the code said in words (``game_full`` -> "Game full"):
    a problem's title names its kind exactly, so a client can show it as it is
    (its translation is marked in ``core.error_titles``). Registering the same code twice with the same meaning is harmless (modules
    may be reloaded); with a different one it is a programming error.
    """
    code = str(code)  # an enum member is stored as its plain value
    spec = ErrorSpec(status, _lazy(title or code.replace("_", " ").capitalize()), _lazy(description))
    existing = ERROR_CODES.get(code)
    if existing is not None and (existing.status, str(existing.title), str(existing.description)) != (
        spec.status,
        str(spec.title),
        str(spec.description),
    ):
        raise ValueError(f"error code {code!r} is already registered as {existing}")
    ERROR_CODES[code] = spec
    return code


def register_error_codes(codes: Mapping[str, tuple[int, StrOrPromise]]) -> None:
    """Register a table of ``code -> (status, description)`` in one go."""
    for code, (status, description) in codes.items():
        register_error_code(code, status=status, description=description)


def register_enum(
    codes: type[StrEnum],
    specs: Mapping[str, tuple[int, StrOrPromise] | tuple[int, StrOrPromise, StrOrPromise]],
    *,
    title: StrOrPromise | None = None,
) -> None:
    """Register every member of the enumeration ``codes``: ``specs`` gives each
    one's ``(status, description)`` or ``(status, description, title)`` and must
    cover exactly the members."""
    missing, unknown = set(codes) - specs.keys(), specs.keys() - set(codes)
    if missing or unknown:
        raise ValueError(f"{codes.__name__}: no spec for {sorted(missing)}, no member for {sorted(unknown)}")
    for code in codes:
        status, description, *own_title = specs[code]
        register_error_code(code, status=status, title=own_title[0] if own_title else title, description=description)


def all_error_codes() -> dict[str, ErrorSpec]:
    """Every registered code, sorted."""
    return dict(sorted(ERROR_CODES.items()))


class ApiError(Exception):
    """Base of every error the API raises on purpose.

    A subclass that sets ``code`` (with ``status``, ``title`` and
    ``description``) registers that code.  An instance may name another
    registered code with ``code=`` (its status comes from the registry) and add
    ``extra`` members to the problem body, e.g. ``{"current_seq": 12}``.
    """

    code: ClassVar[str] = CoreCode.SERVER_ERROR
    status: ClassVar[int] = 500
    title: ClassVar[StrOrPromise] = gettext_lazy("Internal server error")
    description: ClassVar[StrOrPromise] = gettext_lazy("The server hit an unexpected error. Nothing about it is shown.")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            if "description" not in cls.__dict__:
                raise TypeError(f"{cls.__name__} sets a code but no description")
            register_error_code(cls.code, status=cls.status, title=cls.title, description=cls.description)

    def __init__(
        self,
        detail: StrOrPromise | None = None,
        *,
        code: StrEnum | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        code_name = str(code or type(self).code)
        try:
            spec = ERROR_CODES[code_name]
        except KeyError:
            raise LookupError(f"error code {code_name!r} is not registered: use register_error_code()") from None
        # Instance attributes shadow the class defaults of the family.
        self.code = code_name  # type: ignore[misc]
        self.status = spec.status  # type: ignore[misc]
        self.title = spec.title  # type: ignore[misc]
        self.detail = detail or spec.description
        self.extra = dict(extra or {})
        super().__init__(self.detail)


register_error_code(ApiError.code, status=ApiError.status, title=ApiError.title, description=ApiError.description)


# --- Families: raise them directly for their generic code, or subclass them -----


class BadRequest(ApiError):
    code = CoreCode.BAD_REQUEST
    status = 400
    title = gettext_lazy("Bad request")
    description = gettext_lazy("The request cannot be served as sent.")


class Unauthorized(ApiError):
    code = CoreCode.NOT_AUTHENTICATED
    status = 401
    title = gettext_lazy("Not authenticated")
    description = gettext_lazy("This needs an API token (Authorization: Bearer <token>) or a session.")


class PermissionDenied(ApiError):
    code = CoreCode.PERMISSION_DENIED
    status = 403
    title = gettext_lazy("Permission denied")
    description = gettext_lazy("You may not do this.")


class CsrfFailed(ApiError):
    code = CoreCode.CSRF_FAILED
    status = 403
    title = gettext_lazy("CSRF check failed")
    description = gettext_lazy(
        "An unsafe request (POST, PUT, PATCH, DELETE) authenticated by a browser session came without "
        "the session's CSRF token in the X-CSRFToken header, or from another origin. Get the token "
        "again (GET /api/v1/session/) and resend. API tokens need none."
    )


class NotFound(ApiError):
    code = CoreCode.NOT_FOUND
    status = 404
    title = gettext_lazy("Not found")
    description = gettext_lazy("There is nothing here, or nothing you may see.")


class Conflict(ApiError):
    code = CoreCode.CONFLICT
    status = 409
    title = gettext_lazy("Conflict")
    description = gettext_lazy("The request conflicts with the current state of the resource.")


class Unprocessable(ApiError):
    code = CoreCode.UNPROCESSABLE
    status = 422
    title = gettext_lazy("Unprocessable request")
    description = gettext_lazy("The request is well-formed but cannot be carried out.")


# --- Codes for the framework's own exceptions (mapped in core.exception_handler) --

register_error_code(
    CoreCode.AUTHENTICATION_FAILED,
    status=401,
    title=gettext_lazy("Authentication failed"),
    description=gettext_lazy(
        "The credentials sent (API token or session) are invalid, revoked or belong to a suspended account."
    ),
)
register_error_code(
    CoreCode.METHOD_NOT_ALLOWED,
    status=405,
    title=gettext_lazy("Method not allowed"),
    description=gettext_lazy("This resource does not support the HTTP method used."),
)
register_error_code(
    CoreCode.NOT_ACCEPTABLE,
    status=406,
    title=gettext_lazy("Not acceptable"),
    description=gettext_lazy("The server cannot produce a response in a media type the Accept header allows."),
)
register_error_code(
    CoreCode.UNSUPPORTED_MEDIA_TYPE,
    status=415,
    title=gettext_lazy("Unsupported media type"),
    description=gettext_lazy("The request body's Content-Type is not supported: send application/json."),
)
register_error_code(
    CoreCode.PAYLOAD_TOO_LARGE,
    status=413,
    title=gettext_lazy("Request body too large"),
    description=gettext_lazy("The request body is over the server's limit (API_MAX_BODY_BYTES, 64 KiB by default)."),
)
register_error_code(
    CoreCode.PARSE_ERROR,
    status=400,
    title=gettext_lazy("Malformed request body"),
    description=gettext_lazy("The request body could not be parsed (e.g. invalid JSON)."),
)
register_error_code(
    CoreCode.VALIDATION_ERROR,
    status=400,
    title=gettext_lazy("Invalid input"),
    description=gettext_lazy("Some fields are invalid; `errors` maps each field to its messages."),
)
register_error_code(
    CoreCode.RATE_LIMITED,
    status=429,
    title=gettext_lazy("Too many requests"),
    description=gettext_lazy("Slow down: retry after `retry_after` seconds (also in the Retry-After header)."),
)
register_error_code(
    CoreCode.DATABASE_UNAVAILABLE,
    status=503,
    title=gettext_lazy("Database unavailable"),
    description=gettext_lazy(
        "The database cannot be reached just now (e.g. while a standby takes over from a failed primary): "
        "nothing was changed. Retry after `retry_after` seconds (also in the Retry-After header) with the same request."
    ),
)
register_error_code(
    CoreCode.SERVICE_UNAVAILABLE,
    status=503,
    title=gettext_lazy("Service unavailable"),
    description=gettext_lazy(
        "Sent by the load balancer when no web server can answer (one is being replaced): the request may "
        "not have reached the game. Retry after `retry_after` seconds with the same request (a move with the same "
        "Idempotency-Key is done at most once)."
    ),
)
