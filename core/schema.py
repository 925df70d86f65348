"""OpenAPI helpers: declare error responses, list every error code.

In a view::

    from core.schema import problem_responses

    @extend_schema(responses={201: PlayerOutput, **problem_responses("validation_error", "username_taken")})

``problem_responses`` takes codes (or an HTTP status, meaning every registered
code with that status) and gives one ``application/problem+json`` response per
status, with an example per code.  Every operation also gets a ``default``
problem response, and a 401 when it needs authentication (``AutoSchema``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from core.errors import all_error_codes
from core.problems import PROBLEM_CONTENT_TYPE, example_problem
from core.serializers import ProblemSerializer

AUTH_CODES = ("not_authenticated", "authentication_failed")
UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
COOKIE_AUTH = "cookieAuth"  # core.schema.SessionScheme's name

#: The paging query parameters of a list (``?limit=&offset=``), for ``extend_schema(parameters=...)``
#: of a view that pages with ``core.pagination`` outside a generic list view.
PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit", int, OpenApiParameter.QUERY, required=False, description="Number of results to return per page."
    ),
    OpenApiParameter(
        "offset",
        int,
        OpenApiParameter.QUERY,
        required=False,
        description="The initial index from which to return the results.",
    ),
]


#: What a 503 may say: the database is away, or (from the load balancer) no web host answers.
UNAVAILABLE_CODES = ("database_unavailable", "service_unavailable")


def problem_responses(*codes: str | int) -> dict[tuple[int, str], OpenApiResponse]:
    """``{(status, "application/problem+json"): OpenApiResponse}`` for ``codes``.

    A string is one error code; an int is a status and stands for every
    registered code with that status.  Unknown codes fail loudly, so the
    document never promises a code that does not exist.
    """
    registry = all_error_codes()
    by_status: dict[int, list[str]] = {}
    for item in codes:
        if isinstance(item, int):
            matching = [code for code, spec in registry.items() if spec.status == item]
            if not matching:
                raise ValueError(f"no error code is registered with status {item}")
        elif item in registry:
            matching = [item]
        else:
            raise ValueError(f"unknown error code {item!r}: register it in core.errors first")
        for code in matching:
            listed = by_status.setdefault(registry[code].status, [])
            if code not in listed:
                listed.append(code)
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            response=ProblemSerializer,
            description=_describe(listed),
            examples=[OpenApiExample(code, value=example_problem(code), response_only=True) for code in listed],
        )
        for status, listed in sorted(by_status.items())
    }


def _describe(codes: list[str]) -> str:
    registry = all_error_codes()
    return "\n".join(f"* `{code}`: {registry[code].title}" for code in codes)


class AutoSchema(SpectacularAutoSchema):
    """Adds the responses every operation has: a ``default`` problem, a 429 (every
    operation is rate limited: ``core.throttling``), and a 401 when the operation
    needs authentication or takes credentials (a bad token is refused even where
    none is needed) (shared ``components/responses``); and registers the
    serializers a view lists in ``schema_components``."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        # Serializers a view sends inside something the document describes by hand (an
        # event stream's frames), registered as components of their own.
        for serializer in getattr(self.view, "schema_components", ()):
            self.resolve_serializer(serializer, "response")
        responses = operation.setdefault("responses", {})
        security = operation.get("security", [])
        if security and {} not in security:
            responses.setdefault("401", self._shared_response("NotAuthenticated", AUTH_CODES))
        elif any(security):  # anyone may call it, but a token or session sent must be good
            responses.setdefault("401", self._shared_response("AuthenticationFailed", AUTH_CODES[1:]))
        if self.view.get_throttles():
            responses.setdefault("429", self._shared_response("RateLimited", ("rate_limited",)))
        # Any operation may meet a database failover (the app's 503) or no web host able
        # to answer (the load balancer's): retry after Retry-After, a move with its
        # Idempotency-Key (docs/deploy.md).
        responses.setdefault("503", self._shared_response("Unavailable", UNAVAILABLE_CODES))
        if self.method in UNSAFE_METHODS and any(COOKIE_AUTH in scheme for scheme in security):
            self._add_csrf_refusal(responses)
        responses.setdefault("default", self._shared_response("Problem", ("server_error",)))
        operation["responses"] = dict(sorted(responses.items(), key=lambda item: item[0]))
        return operation

    def _map_serializer(self, serializer: Any, direction: Any, bypass_extensions: bool = False) -> dict[str, Any]:
        """A serializer's schema, plus the constraints between its fields that it states
        in ``schema_extra`` (JSON Schema keywords such as ``if``/``then`` or
        ``dependentRequired``): the contract says what ``validate()`` enforces."""
        schema: dict[str, Any] = super()._map_serializer(serializer, direction, bypass_extensions)
        extra = getattr(serializer, "schema_extra", None)
        return {**schema, **extra} if extra else schema

    def _add_csrf_refusal(self, responses: dict[str, Any]) -> None:
        """A browser session's unsafe request without its CSRF token: 403 ``csrf_failed``,
        beside the operation's own 403 refusals if it has any."""
        own = responses.get("403")
        if own is None:
            responses["403"] = self._shared_response("CsrfFailed", ("csrf_failed",))
            return
        content = own.get("content", {}).get(PROBLEM_CONTENT_TYPE) if isinstance(own, dict) else None
        if content is None:
            return
        content.setdefault("examples", {})["CsrfFailed"] = {
            "value": example_problem("csrf_failed"),
            "summary": "csrf_failed",
        }
        own["description"] = (own.get("description", "") + "\n" + _describe(["csrf_failed"])).strip()

    def _shared_response(self, name: str, codes: tuple[str, ...]) -> dict[str, str]:
        problem = self.resolve_serializer(ProblemSerializer, "response").ref
        description = (
            _describe(list(codes))
            if name != "Problem"
            else "Any other error, as a problem document (see `ErrorCode` for every code)."
        )
        component = ResolvedComponent(
            name=name,
            type=ResolvedComponent.RESPONSE,
            object=name,
            schema={
                "description": description,
                "content": {
                    PROBLEM_CONTENT_TYPE: {
                        "schema": problem,
                        "examples": {code: {"value": example_problem(code)} for code in codes},
                    }
                },
            },
        )
        self.registry.register_on_missing(component)
        return component.ref


class ErrorCodeFieldExtension(OpenApiSerializerFieldExtension):
    """Describes ``ErrorCodeField`` as the ``ErrorCode`` enum of every code."""

    target_class = "core.serializers.ErrorCodeField"

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        codes = all_error_codes()
        lines = [f"* `{code}` ({spec.status}): {spec.description}" for code, spec in codes.items()]
        component = ResolvedComponent(
            name="ErrorCode",
            type=ResolvedComponent.SCHEMA,
            object="ErrorCode",
            schema={
                "type": "string",
                "enum": list(codes),
                "description": "Every stable error code, with its HTTP status:\n\n" + "\n".join(lines),
            },
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


def component_names(names: list[str]) -> dict[str, str]:
    """The name a person would write for each generated component name: ``GameOutput``
    is ``Game``, ``GameCreateInputRequest`` is ``GameCreate`` (``RulesetInput`` where
    the output already took ``Ruleset``), ``PaginatedTokenOutputList`` is
    ``PaginatedTokenList``."""
    renamed: dict[str, str] = {}
    for name in names:
        if "Output" in name:
            renamed[name] = name.replace("Output", "")
    taken = set(names) - set(renamed) | set(renamed.values())
    for name in names:
        if name.endswith("InputRequest"):
            base = name.removesuffix("InputRequest")
            renamed[name] = base if base not in taken else f"{base}Input"
            taken.add(renamed[name])
    if len(set(renamed.values())) != len(renamed) or set(renamed.values()) & (set(names) - set(renamed)):
        raise ValueError(f"component names collide after renaming: {renamed}")
    return renamed


def _rewrite_refs(node: Any, refs: dict[str, str]) -> Any:
    if isinstance(node, dict):
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and set(all_of[0]) == {"$ref"}:
            # drf-spectacular wraps a reference in allOf to give it a description or a
            # default; OpenAPI 3.1 allows those beside $ref itself, which generators read better.
            node = {"$ref": all_of[0]["$ref"], **{k: v for k, v in node.items() if k != "allOf"}}
        return {
            key: refs.get(value, value) if key == "$ref" else _rewrite_refs(value, refs) for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(value, refs) for value in node]
    return node


def rename_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: components named as a person would (``component_names``),
    every ``$ref`` to them rewritten."""
    schemas = result.get("components", {}).get("schemas", {})
    renamed = component_names(list(schemas))
    prefix = "#/components/schemas/"
    result = _rewrite_refs(result, {prefix + old: prefix + new for old, new in renamed.items()})
    result["components"]["schemas"] = {
        renamed.get(name, name): schema for name, schema in result["components"]["schemas"].items()
    }
    return result


def name_parameter_enums(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: a parameter whose choices are a named enum (``?status=``
    takes a ``GameStatus``) refers to that enum instead of repeating it inline."""
    schemas = result.get("components", {}).get("schemas", {})
    named = {tuple(sorted(map(str, s["enum"]))): name for name, s in schemas.items() if "enum" in s}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                schema = parameter.get("schema", {})
                name = named.get(tuple(sorted(map(str, schema.get("enum", [])))))
                if name is not None:
                    parameter["schema"] = {"$ref": f"#/components/schemas/{name}"}
    return result


class SessionScheme(OpenApiAuthenticationExtension):
    """``core.authentication.SessionAuthentication``: the browser's session cookie."""

    target_class = "core.authentication.SessionAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": (
                "A browser's session from `POST /api/v1/session/`. Its unsafe requests send the session's "
                "CSRF token as the `X-CSRFToken` header (`csrf_failed` without it)."
            ),
        }
