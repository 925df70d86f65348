"""OpenAPI components the serializers cannot express (the recursive layout tree, one
payload schema per event type), and nullable references written so that OpenAPI 3.0.3
validators accept null."""

from __future__ import annotations

from typing import Any

from games.serializers import ALL_EVENT_TYPES

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
        "next": {
            "type": "array",
            "items": {
                "oneOf": [{"$ref": "#/components/schemas/LayoutNode"}, {"$ref": "#/components/schemas/LayoutOpenEnd"}]
            },
        },
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


# -- event payloads: one schema per event type, chosen by its "type" ----------

_INT = {"type": "integer"}
_STR = {"type": "string"}
_TILE = {"type": "string", "example": "9-4"}
_INTS = {"type": "array", "items": _INT}
_STRS = {"type": "array", "items": _STR}
_SEAT = {"type": "integer", "description": "A seat number."}
_NULLABLE_INT = {"type": "integer", "nullable": True}

# type -> (properties, required besides "type"); descriptions: games.serializers.ALL_EVENT_TYPES
EVENT_PAYLOADS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "game_created": (
        {"creator": _STR, "ruleset": {"type": "object"}, "practice": {"type": "boolean"}},
        ["creator", "ruleset", "practice"],
    ),
    "seat_taken": ({"seat": _SEAT, "player": _STR, "is_bot": {"type": "boolean"}}, ["seat", "player"]),
    "seat_left": ({"seat": _SEAT, "player": _STR, "moderator": {"type": "boolean"}, "note": _STR}, ["seat", "player"]),
    "bot_added": ({"seat": _SEAT, "strategy": _STR}, ["seat", "strategy"]),
    "game_started": ({}, []),
    "game_aborted": ({"by": _STR, "moderator": {"type": "boolean"}, "reason": _STR}, ["by", "moderator", "reason"]),
    "seat_resigned": ({"seat": _SEAT, "player": _STR, "bot_strategy": _STR}, ["seat", "bot_strategy"]),
    "turn_timed_out": ({"seat": _SEAT, "timeouts_in_row": _INT}, ["seat", "timeouts_in_row"]),
    "seat_handed_to_bot": (
        {
            "seat": _SEAT,
            "bot_strategy": _STR,
            "reason": {"type": "string", "enum": ["timeouts", "moderator"]},
            "moderator": {"type": "boolean"},
            "note": _STR,
        },
        ["seat", "bot_strategy", "reason"],
    ),
    "seat_returned": ({"seat": _SEAT, "player": _STR}, ["seat", "player"]),
    "round_started": (
        {"round": _INT, "starting_double": _TILE, "hand_sizes": _INTS, "boneyard_size": _INT},
        ["round", "starting_double", "hand_sizes", "boneyard_size"],
    ),
    "drew": (
        {
            "round": _INT,
            "seat": _SEAT,
            "boneyard_size": _INT,
            "for_starting_double": {"type": "boolean", "description": "Drawn while nobody held the starting double."},
        },
        ["round", "seat", "boneyard_size"],
    ),
    "spinner_placed": ({"round": _INT, "seat": _SEAT, "tile": _TILE, "arms": _STRS}, ["round", "seat", "tile", "arms"]),
    "tile_played": (
        {"round": _INT, "seat": _SEAT, "tile": _TILE, "end": _STR, "outer": _INT, "new_ends": _STRS},
        ["round", "seat", "tile", "end", "outer", "new_ends"],
    ),
    "spinner_completed": ({"round": _INT, "seat": _SEAT}, ["round", "seat"]),
    "foot_opened": (
        {"round": _INT, "seat": _SEAT, "double": _TILE, "toes": _STRS},
        ["round", "seat", "double", "toes"],
    ),
    "foot_completed": ({"round": _INT, "seat": _SEAT}, ["round", "seat"]),
    "passed": (
        {
            "round": _INT,
            "seat": _SEAT,
            "reason": {"type": "string", "enum": ["no_play", "drawn_tile_unplayable", "declined_drawn_tile"]},
        },
        ["round", "seat", "reason"],
    ),
    "round_ended": (
        {
            "round": _INT,
            "number": _INT,
            "starting_double": _TILE,
            "starter": _SEAT,
            "reason": {"type": "string", "enum": ["domino", "blocked"]},
            "went_out": _NULLABLE_INT,
            "hands": {"type": "array", "items": _STRS},
            "scores": _INTS,
            "totals": _INTS,
        },
        ["round", "number", "reason", "hands", "scores", "totals"],
    ),
    "match_ended": (
        {
            "round": _INT,
            "totals": _INTS,
            "winners": _INTS,
            "tie_break": {
                "type": "string",
                "enum": ["lowest_total", "most_zero_rounds", "lowest_nonzero_round", "shared"],
            },
            "seed": _INT,
        },
        ["totals", "winners", "tie_break", "seed"],
    ),
}


def _component_name(event_type: str) -> str:
    return "Event" + "".join(part.capitalize() for part in event_type.split("_"))


def _event_components() -> dict[str, Any]:
    components: dict[str, Any] = {}
    for event_type, (properties, required) in EVENT_PAYLOADS.items():
        components[_component_name(event_type)] = {
            "type": "object",
            "description": ALL_EVENT_TYPES[event_type],
            "properties": {"type": {"type": "string", "enum": [event_type]}, **properties},
            "required": ["type", *required],
            "additionalProperties": True,  # clients must ignore fields they do not know
        }
    components["EventData"] = {
        "description": "An event's payload: its fields depend on its `type` (one schema per type).",
        "oneOf": [{"$ref": f"#/components/schemas/{_component_name(t)}"} for t in EVENT_PAYLOADS],
        "discriminator": {
            "propertyName": "type",
            "mapping": {t: f"#/components/schemas/{_component_name(t)}" for t in EVENT_PAYLOADS},
        },
    }
    return components


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(_event_components())
    schemas["LayoutNode"] = LAYOUT_NODE
    schemas["LayoutOpenEnd"] = LAYOUT_OPEN_END
    schemas.setdefault("NullEnum", {"enum": [None]})
    _nullable_refs(result)
    return result
