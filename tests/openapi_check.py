"""Check an API test's response against the committed contract, ``openapi.yaml``.

    response = api_client.get("/api/v1/me/")
    assert_matches_schema(response)

The request's path and method must be an operation of the document, the status
one of its responses (or ``default``), and the body and Content-Type must match
that response's schema.  A mismatch fails the test with what differs; when the
API changed on purpose, regenerate the document with ``make schema``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from django.http import HttpResponse
from openapi_core import Config, OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse
from openapi_core.exceptions import OpenAPIError

OPENAPI_PATH = Path(__file__).resolve().parent.parent / "openapi.yaml"


@functools.cache
def contract() -> OpenAPI:
    # openapi-core reads application/json only; errors are problem+json (JSON too).
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    return OpenAPI.from_path(OPENAPI_PATH, config=config)


def assert_matches_schema(response: HttpResponse) -> None:
    """Fail the test unless ``response`` (from a Django/DRF test client) is one
    that ``openapi.yaml`` allows for its request."""
    request = response.wsgi_request  # type: ignore[attr-defined]  # set by the test client
    try:
        contract().validate_response(DjangoOpenAPIRequest(request), DjangoOpenAPIResponse(response))
    except OpenAPIError as error:
        reasons = [f"{type(error).__name__}: {error}"]
        cause = error.__cause__
        for schema_error in getattr(cause, "schema_errors", ()) or ():
            reasons.append(f"  at {'/'.join(map(str, schema_error.path)) or '<body>'}: {schema_error.message}")
        pytest.fail(
            f"{request.method} {request.path} -> {response.status_code} does not match openapi.yaml:\n"
            + "\n".join(reasons)
            + f"\nbody: {response.content[:1000]!r}\n"
            "If the API changed on purpose, run `make schema` and commit openapi.yaml.",
            pytrace=False,
        )
