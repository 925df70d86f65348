"""OpenAPI components the serializers cannot express: the recursive layout tree."""

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


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["LayoutNode"] = LAYOUT_NODE
    schemas["LayoutOpenEnd"] = LAYOUT_OPEN_END
    return result
