"""OpenAPI components the serializers cannot express (the recursive layout tree),
and nullable references written so that OpenAPI 3.0.3 validators accept null."""

from __future__ import annotations

from typing import Any

LAYOUT_NODE = {
    "type": "object",
    "description": (
        "A tile in the layout. The root is the spinner (the round's starting double); `next` holds its "
        "slots: the spinner's arms, one slot after a plain tile, the three toes of a double's chicken foot. "
        "Each slot is another node or an `OpenEnd`."
    ),
    "properties": {
        "tile": {"type": "string", "example": "9-4"},
        "kind": {"type": "string", "enum": ["spinner", "tile", "double"]},
        "seat": {"type": "integer", "description": "Who played it."},
        "inner": {"type": "integer", "description": "The pip touching the end it was played on."},
        "outer": {"type": "integer", "description": "The pip it shows outward (what its slots need)."},
        "next": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/LayoutNode"},
                                                       {"$ref": "#/components/schemas/LayoutOpenEnd"}]}},
    },
    "required": ["tile", "kind", "seat", "inner", "outer", "next"],
}

LAYOUT_OPEN_END = {
    "type": "object",
    "description": "An open end: a tile showing `pip` may be played on it (if `playable`).",
    "properties": {
        "end": {"type": "string", "example": "e5", "description": "Stable id for the whole round."},
        "pip": {"type": "integer"},
        "playable": {"type": "boolean"},
    },
    "required": ["end", "pip", "playable"],
}


NULL = {"$ref": "#/components/schemas/NullEnum"}


def _nullable_refs(node: Any) -> None:
    """Rewrite ``{allOf: [X], nullable: true}`` (drf-spectacular's nullable nested
    serializer) as ``{oneOf: [X, NullEnum], nullable: true}``.

    OpenAPI 3.0.3 says ``nullable`` only counts next to a ``type`` in the same
    schema object, so a validator that follows it (openapi-core) refuses ``null``
    for the former: a game without a state, a seat without a player. The latter
    is how drf-spectacular itself writes a nullable enum."""
    if isinstance(node, dict):
        all_of = node.get("allOf")
        if node.get("nullable") is True and "type" not in node and isinstance(all_of, list) and len(all_of) == 1:
            del node["allOf"]
            node["oneOf"] = [all_of[0], dict(NULL)]
        for value in node.values():
            _nullable_refs(value)
    elif isinstance(node, list):
        for value in node:
            _nullable_refs(value)


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["LayoutNode"] = LAYOUT_NODE
    schemas["LayoutOpenEnd"] = LAYOUT_OPEN_END
    schemas.setdefault("NullEnum", {"enum": [None]})
    _nullable_refs(result)
    return result
