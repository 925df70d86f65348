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
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers

from core.errors import all_error_codes
from core.pagination import PageQueryInput
from core.problems import PROBLEM_CONTENT_TYPE, example_problem
from core.serializers import ProblemSerializer, UniqueListField

AUTH_CODES = ("not_authenticated", "authentication_failed")
UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
COOKIE_AUTH = "cookieAuth"  # core.schema.SessionScheme's name

#: The paging query parameters of a list (``?limit=&offset=``, with the bounds
#: ``core.pagination`` enforces), for ``extend_schema(parameters=...)`` of a view that
#: pages outside a generic list view.
PAGE_PARAMETERS = [PageQueryInput]

#: What a 503 may say: the database is away, or (from the load balancer) no web host answers.
UNAVAILABLE_CODES = ("database_unavailable", "service_unavailable")

# A request's text: no NUL character (DRF refuses it: PostgreSQL cannot store it); and
# where blanks are trimmed and a blank value refused, something besides blanks.
TEXT = r"^[^\u0000]*$"
TEXT_NOT_BLANK = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"


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
    """Adds the responses every operation has: a ``default`` problem, a 400 where it
    takes a body or a query (input against the contract is refused), a 429 (every
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
        if operation.get("security") == [{}]:
            # Anonymous only: declared as no requirement at all (an empty list), which
            # OpenAPI reads the same and openapi-python-client reads as "no credentials
            # needed" (it takes any non-empty list, even [{}], as "needs a token").
            operation["security"] = []
        security = operation.get("security", [])
        if security and {} not in security:
            responses.setdefault("401", self._shared_response("NotAuthenticated", AUTH_CODES))
        elif any(security):  # anyone may call it, but a token or session sent must be good
            responses.setdefault("401", self._shared_response("AuthenticationFailed", AUTH_CODES[1:]))
        takes_input = "requestBody" in operation or any(p.get("in") == "query" for p in operation.get("parameters", []))
        if takes_input:  # input that breaks the contract is refused (core.strict, core.pagination)
            responses.setdefault("400", self._shared_response("ValidationError", ("validation_error",)))
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

    def get_auth(self) -> list[dict[str, Any]]:
        """The operation's security. A view lists in ``schema_anonymous_methods`` the
        methods that need no credentials although they take them (token creation: by
        password, or by a token): declared anonymous (``security: []``, see
        ``get_operation``), which generators read as such (openapi-python-client then
        takes a plain ``Client``, and an ``AuthenticatedClient`` as well); the
        description says what credentials add."""
        if self.method.lower() in getattr(self.view, "schema_anonymous_methods", ()):
            return [{}]
        return super().get_auth()

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        self._direction = direction  # read by _insert_field_validators, which is not told
        return super()._map_basic_serializer(serializer, direction)

    def _insert_field_validators(self, field: Any, schema: dict[str, Any]) -> None:
        """A field's validators as drf-spectacular writes them, and, for requests, the
        rules DRF's ``CharField`` enforces beyond them: no NUL character anywhere (DRF
        refuses it), and not blank once trimmed where blanks are trimmed and a blank is
        refused. A field with a pattern of its own says both already."""
        super()._insert_field_validators(field, schema)
        if isinstance(field, UniqueListField):
            schema["uniqueItems"] = True
        if (
            getattr(self, "_direction", None) == "request"
            and isinstance(field, serializers.CharField)
            and schema.get("type") == "string"
            and not {"pattern", "enum", "format", "oneOf"} & set(schema)
        ):
            blank_refused = field.trim_whitespace and not field.allow_blank
            schema["pattern"] = TEXT_NOT_BLANK if blank_refused else TEXT

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


#: Components named otherwise than by the rule below, with the reason: an object with a
#: member of its own name (a game view's ``game``, a logged move's ``move``) becomes,
#: in openapi-python-client, a ``from_dict`` whose result variable (named after the
#: model) shadows that member's, and fails ``mypy --strict``.
NAMED_OTHERWISE = {"GameOutput": "GameView", "MoveOutput": "MoveEntry"}


def component_names(names: list[str]) -> dict[str, str]:
    """The name a person would write for each generated component name: ``GameOutput``
    is ``Game`` (but see NAMED_OTHERWISE), ``GameCreateInputRequest`` is ``GameCreate`` (``RulesetInput`` where
    the output already took ``Ruleset``), ``PaginatedTokenOutputList`` is
    ``PaginatedTokenList``."""
    renamed: dict[str, str] = {}
    for name in names:
        if name in NAMED_OTHERWISE:
            renamed[name] = NAMED_OTHERWISE[name]
        elif "Output" in name:
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
    match_subclasses = True  # players.authentication.DeviceSessionAuthentication
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


# -- Server-Sent Events answers, as generators can use them --------------------------

#: The key, on a ``text/event-stream`` media type, of the schema of one frame of the
#: stream: OpenAPI 3.2's ``itemSchema``, written as a vendor extension while this
#: document is OpenAPI 3.1 (where ``itemSchema`` is no key of a media type).
ITEM_SCHEMA = "x-itemSchema"
#: Beside it, the schema of one frame as a stream reader yields it, its ``data:`` JSON
#: parsed (the frame schema's ``data`` is the text, with its ``contentSchema``).
ITEM_MESSAGE_SCHEMA = "x-itemMessageSchema"
_SCHEMAS = "#/components/schemas/"


def _message(frame: dict[str, Any]) -> dict[str, Any]:
    """A frame schema with its ``data`` text replaced by the schema of its JSON."""
    data = frame["properties"]["data"]
    parsed = {**data["contentSchema"], "description": data.get("description", "").split(" Decode the JSON")[0]}
    return {**frame, "properties": {**frame["properties"], "data": parsed}}


def stream_items(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook (after every component is in): each ``text/event-stream``
    answer declared with a frame union (``schema: {$ref: GameStreamFrame}``) becomes
    what the generators we test can use (docs/clients.md, "Streams").

    * ``schema: {type: string}``: the body is text. openapi-python-client hands a
      ``text/*`` body to the schema's model (``from_dict(response.text)``, a TypeError
      for an object schema) and openapi-typescript types it as the schema: a string is
      what both then say, truly.
    * ``x-itemSchema``: the frame union (OpenAPI 3.2's ``itemSchema``; neither
      generator reads it, openapi-typescript types a media type without ``schema`` as
      ``unknown``), each frame's ``data`` a JSON text with its ``contentSchema``.
    * ``x-itemMessageSchema`` and a component ``<Stream>Message``: the same union with
      each ``data`` the schema of its JSON, which both generators type (openapi-typescript:
      a union in which ``event`` narrows ``data``; openapi-python-client: one model per
      frame with ``data`` typed). The bot kit's and ``clients/typescript``'s stream
      readers yield these."""
    schemas = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {}) if isinstance(operation, dict) else {}
            for response in responses.values():
                media = response.get("content", {}).get("text/event-stream") if isinstance(response, dict) else None
                ref = media.get("schema", {}).get("$ref", "") if isinstance(media, dict) else ""
                if not isinstance(media, dict) or not ref.startswith(_SCHEMAS) or not ref.endswith("Frame"):
                    continue
                frame_name = ref.removeprefix(_SCHEMAS)
                union = schemas[frame_name]
                message_name = frame_name.removesuffix("Frame") + "Message"
                members = [member["$ref"].removeprefix(_SCHEMAS) for member in union["oneOf"]]
                for member in members:
                    schemas[f"{member}Message"] = _message(schemas[member])
                mapping = union["discriminator"]["mapping"]
                schemas[message_name] = {
                    "description": f"{union['description']} As a stream reader yields it: `data` is the frame's "
                    f"JSON, parsed (on the wire it is text: `{frame_name}`).",
                    "oneOf": [{"$ref": f"{_SCHEMAS}{member}Message"} for member in members],
                    "discriminator": {
                        "propertyName": union["discriminator"]["propertyName"],
                        "mapping": {event: f"{target}Message" for event, target in mapping.items()},
                    },
                }
                media.clear()
                media.update(
                    {
                        "schema": {
                            "type": "string",
                            "description": f"Server-Sent Events: frames of `{frame_name}` (`{ITEM_SCHEMA}`). Read "
                            f"it with a stream reader, which yields `{message_name}` (`{ITEM_MESSAGE_SCHEMA}`).",
                        },
                        ITEM_SCHEMA: {"$ref": ref},
                        ITEM_MESSAGE_SCHEMA: {"$ref": f"{_SCHEMAS}{message_name}"},
                    }
                )
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    return result
