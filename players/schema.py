"""OpenAPI description of ``ApiTokenAuthentication`` (security scheme ``ApiToken``)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "players.authentication.ApiTokenAuthentication"
    name = "ApiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "cf_<prefix>_<secret>",
            "description": "An API token from `POST /api/v1/tokens/`. `Token <token>` is accepted too.",
        }
