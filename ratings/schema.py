"""OpenAPI components the serializers do not produce: ``LeaderboardKind``, the
enumeration of the leaderboard's ``kind`` parameter (a parameter's enum is named
only when a component holds it; ``core.schema.name_parameter_enums``, which runs
after this hook, then refers to it)."""

from __future__ import annotations

from typing import Any

from ratings.selectors import BoardKind


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["LeaderboardKind"] = {
        "type": "string",
        "enum": [kind.value for kind in BoardKind],
        "description": "A leaderboard: everyone, human accounts only, or bot accounts only.",
    }
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    return result
