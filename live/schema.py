"""OpenAPI components the serializers cannot express: the recursive layout tree, one
payload schema per event type (gathered in the ``EventData`` union), and the frames of
the two Server-Sent Events streams (``GameStreamFrame``, ``AccountStreamFrame``).

Names here are the final component names (``core.schema.rename_components`` runs
before this hook): ``GameView``, ``Event``, ``Ruleset``, ``AccountGame`` ...
"""

from __future__ import annotations

import re
from typing import Any

from games.serializers import ALL_EVENT_TYPES
from live import account_feeds, game_feeds


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


LAYOUT_NODE = {
    "type": "object",
    "description": (
        "A tile in the layout. The root is the spinner (the round's starting double); `next` holds its "
        "slots: the spinner's arms, one slot after a plain tile, the three toes of a double's chicken foot. "
        "Each slot is another node or an `LayoutOpenEnd`."
    ),
    "properties": {
        "tile": {"type": "string", "examples": ["9-4"]},
        "kind": ref("LayoutNodeKind"),
        "seat": {"type": "integer", "description": "Who played it."},
        "inner": {"type": "integer", "description": "The pip touching the end it was played on."},
        "outer": {"type": "integer", "description": "The pip it shows outward (what its slots need)."},
        "next": {
            "type": "array",
            "items": {"oneOf": [ref("LayoutNode"), ref("LayoutOpenEnd")]},
        },
    },
    "required": ["tile", "kind", "seat", "inner", "outer", "next"],
}

LAYOUT_OPEN_END = {
    "type": "object",
    "description": "An open end: a tile showing `pip` may be played on it (if `playable`).",
    "properties": {
        "end": {"type": "string", "examples": ["e5"], "description": "Stable id for the whole round."},
        "pip": {"type": "integer"},
        "playable": {"type": "boolean"},
    },
    "required": ["end", "pip", "playable"],
}

#: Enumerations that only the event payloads and the layout use.
ENUMS: dict[str, tuple[str, list[str]]] = {
    "LayoutNodeKind": (
        "What a layout node is: the round's spinner, a plain tile, or a double.",
        ["spinner", "tile", "double"],
    ),
    "PassReason": (
        "Why a seat passed: nothing to play and an empty boneyard; the tile it drew did not fit; "
        "or it chose not to play the playable tile it drew.",
        ["no_play", "drawn_tile_unplayable", "declined_drawn_tile"],
    ),
    "HandoverReason": ("Why a server bot took a seat over.", ["timeouts", "moderator"]),
}


# -- event payloads: one schema per event type, chosen by its "type" ----------

_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_TILE = {"type": "string", "pattern": r"^\d{1,2}-\d{1,2}$", "examples": ["9-4"]}
_END = {"type": "string", "pattern": r"^e\d+$", "examples": ["e3"]}
_INTS = {"type": "array", "items": _INT}
_TILES = {"type": "array", "items": _TILE}
_ENDS = {"type": "array", "items": _END}
_SEAT = {"type": "integer", "minimum": 0, "description": "A seat number."}
_ROUND = {"type": "integer", "minimum": 1, "description": "The round (hand) it happened in, from 1."}
_MODERATOR = {"type": "boolean", "description": "A moderator did it (absent: no)."}
_NOTE = {"type": "string", "description": "The moderator's note."}

# type -> (properties, required besides "type"); descriptions: games.serializers.ALL_EVENT_TYPES
EVENT_PAYLOADS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "game_created": (
        {"creator": _STR, "ruleset": ref("Ruleset"), "practice": _BOOL, "rated": _BOOL},
        ["creator", "ruleset", "practice"],
    ),
    "seat_taken": ({"seat": _SEAT, "player": _STR, "is_bot": _BOOL}, ["seat", "player", "is_bot"]),
    "seat_left": ({"seat": _SEAT, "player": _STR, "moderator": _MODERATOR, "note": _NOTE}, ["seat", "player"]),
    "bot_added": (
        {
            "seat": _SEAT,
            "strategy": ref("StrategyName"),
            "player": {
                "type": "string",
                "description": "The bot account it plays under (absent: a nameless server bot).",
            },
        },
        ["seat", "strategy"],
    ),
    "game_started": ({}, []),
    "game_aborted": (
        {
            "by": {"type": "string", "description": "The creator who aborted; empty when a moderator did."},
            "moderator": _BOOL,
            "reason": _STR,
        },
        ["by", "moderator", "reason"],
    ),
    "seat_resigned": (
        {"seat": _SEAT, "player": _STR, "bot_strategy": ref("StrategyName")},
        ["seat", "player", "bot_strategy"],
    ),
    "turn_timed_out": (
        {"seat": _SEAT, "timeouts_in_row": {"type": "integer", "minimum": 1}},
        ["seat", "timeouts_in_row"],
    ),
    "seat_handed_to_bot": (
        {
            "seat": _SEAT,
            "bot_strategy": ref("StrategyName"),
            "reason": ref("HandoverReason"),
            "moderator": _MODERATOR,
            "note": _NOTE,
        },
        ["seat", "bot_strategy", "reason"],
    ),
    "seat_returned": ({"seat": _SEAT, "player": _STR}, ["seat", "player"]),
    "round_started": (
        {"round": _ROUND, "starting_double": _TILE, "hand_sizes": _INTS, "boneyard_size": _INT},
        ["round", "starting_double", "hand_sizes", "boneyard_size"],
    ),
    "drew": (
        {
            "round": _ROUND,
            "seat": _SEAT,
            "boneyard_size": _INT,
            "for_starting_double": {
                "type": "boolean",
                "description": "Drawn while nobody held the starting double (absent: a draw on a turn).",
            },
        },
        ["round", "seat", "boneyard_size"],
    ),
    "spinner_placed": (
        {"round": _ROUND, "seat": _SEAT, "tile": _TILE, "arms": _ENDS},
        ["round", "seat", "tile", "arms"],
    ),
    "tile_played": (
        {"round": _ROUND, "seat": _SEAT, "tile": _TILE, "end": _END, "outer": _INT, "new_ends": _ENDS},
        ["round", "seat", "tile", "end", "outer", "new_ends"],
    ),
    "spinner_completed": ({"round": _ROUND, "seat": _SEAT}, ["round", "seat"]),
    "foot_opened": (
        {"round": _ROUND, "seat": _SEAT, "double": _TILE, "toes": _ENDS},
        ["round", "seat", "double", "toes"],
    ),
    "foot_completed": ({"round": _ROUND, "seat": _SEAT}, ["round", "seat"]),
    "passed": ({"round": _ROUND, "seat": _SEAT, "reason": ref("PassReason")}, ["round", "seat", "reason"]),
    "round_ended": (
        {
            "round": _ROUND,
            "number": _ROUND,
            "starting_double": _TILE,
            "starter": _SEAT,
            "reason": ref("RoundEndReason"),
            "went_out": {"type": ["integer", "null"], "description": "The seat that went out; null: blocked."},
            "hands": {"type": "array", "items": _TILES, "description": "Every hand at the end (revealed)."},
            "scores": _INTS,
            "totals": _INTS,
        },
        ["round", "number", "starting_double", "starter", "reason", "went_out", "hands", "scores", "totals"],
    ),
    "match_ended": (
        {"round": _ROUND, "totals": _INTS, "winners": _INTS, "tie_break": ref("TieBreak"), "seed": _INT},
        ["round", "totals", "winners", "tie_break", "seed"],
    ),
}


def event_component_name(event_type: str) -> str:
    return "Event" + "".join(part.capitalize() for part in event_type.split("_"))


def _event_components() -> dict[str, Any]:
    components: dict[str, Any] = {}
    for event_type, (properties, required) in EVENT_PAYLOADS.items():
        components[event_component_name(event_type)] = {
            "type": "object",
            "description": ALL_EVENT_TYPES[event_type],
            "properties": {"type": {"type": "string", "const": event_type}, **properties},
            "required": ["type", *required],
        }
    components["EventData"] = {
        "description": (
            "An event's payload: its fields depend on its `type` (one schema per type). A client should "
            "ignore fields it does not know, and skip an event type it does not know: new ones may come."
        ),
        "oneOf": [ref(event_component_name(t)) for t in EVENT_PAYLOADS],
        "discriminator": {
            "propertyName": "type",
            "mapping": {t: ref(event_component_name(t))["$ref"] for t in EVENT_PAYLOADS},
        },
    }
    return components


# -- the Server-Sent Events streams: one schema per frame -----------------------


def _json_data(schema_name: str, description: str) -> dict[str, Any]:
    """A frame's ``data:`` field: text holding a JSON document of the schema ``schema_name``."""
    return {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": ref(schema_name),
        "description": f"{description} Decode the JSON text with the `{schema_name}` schema.",
    }


def _frame(
    description: str, event: dict[str, Any], data: dict[str, Any], id_schema: dict[str, Any] | None
) -> dict[str, Any]:
    properties: dict[str, Any] = {"event": event}
    if id_schema is not None:
        properties["id"] = id_schema
    properties["data"] = data
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": ["event", "data"] + (["id"] if id_schema is not None else []),
    }


def _stream_components() -> dict[str, Any]:
    game_frames = {
        "GameStreamSnapshot": _frame(
            "First frame of every (re)connection: the game as you may see it. It has no id.",
            {"type": "string", "const": "snapshot"},
            _json_data("GameView", "The game as you may see it now."),
            None,
        ),
        "GameStreamEvent": _frame(
            "One event of the game's log, in order, each once. `event` is the event's type.",
            ref("EventType"),
            _json_data("Event", "The event, as the event log lists it."),
            {
                "type": "string",
                "pattern": r"^[0-9]+$",
                "description": "The event's seq: resume after it with Last-Event-ID.",
            },
        ),
        "GameStreamEnd": _frame(
            "The game is over: the last frame. The server closes the stream after it; a reconnection "
            "with its id (the game's last seq) gets 204 No Content.",
            {"type": "string", "const": "end"},
            _json_data("GameStreamEndData", "The game's last seq and how it ended."),
            {"type": "string", "pattern": r"^[0-9]+$", "description": "The game's last seq."},
        ),
    }
    game_feed_mapping: dict[str, str] = {}
    for game_feed in game_feeds.feeds():
        for name, meaning in game_feed.events.items():
            frame = "GameStream" + "".join(part.title() for part in name.split("_"))
            game_frames[frame] = _frame(
                f"`{name}` ({game_feed.name}): {meaning} It has no id: Last-Event-ID stays the game's seq.",
                {"type": "string", "const": name},
                _json_data(game_feed.component, f"The {game_feed.component}."),
                None,
            )
            game_feed_mapping[name] = ref(frame)["$ref"]
    end_data = {
        "type": "object",
        "description": "The `end` frame's data.",
        "properties": {
            "seq": {"type": "integer", "description": "The seq of the game's last event."},
            "status": ref("GameStatus"),
        },
        "required": ["seq", "status"],
    }
    account_frames = {
        "AccountStreamSnapshot": _frame(
            "First frame of every (re)connection: your open and running games.",
            {"type": "string", "const": "snapshot"},
            _json_data("AccountSnapshot", "Your games now."),
            None,
        ),
        "AccountStreamUpdate": _frame(
            "Something happened in one of your games: it started, it is your turn, or it is over.",
            ref("AccountStreamEventType"),
            _json_data("AccountGame", "The game as your games list shows it now."),
            {
                "type": "string",
                "pattern": r"^[0-9]+\.[0-9]+$",
                "description": "`<game>.<seq>`: unique per change (the account stream does not resume).",
            },
        ),
    }
    snapshot = {
        "type": "object",
        "description": "The account stream's snapshot: your open and running games"
        + "".join(
            f"; {feed.description[:1].lower()}{feed.description[1:].rstrip('.')}" for feed in account_feeds.feeds()
        )
        + ".",
        "properties": {
            "games": {"type": "array", "items": ref("AccountGame")},
            **{
                feed.name: {"type": "array", "items": ref(feed.component), "description": feed.description}
                for feed in account_feeds.feeds()
            },
        },
        "required": ["games", *(feed.name for feed in account_feeds.feeds())],
    }
    account_events = {
        "type": "string",
        "enum": ["your_turn", "game_started", "game_over"],
        "description": "What happened in one of your games.",
    }
    feed_mapping: dict[str, str] = {}
    feed_components: dict[str, Any] = {}
    for feed in account_feeds.feeds():
        frame, event_type = f"AccountStream{feed.component}Update", f"AccountStream{feed.component}EventType"
        meanings = "; ".join(f"`{name}`: {meaning}" for name, meaning in feed.events.items())
        if len(feed.events) == 1:
            event: dict[str, Any] = {"type": "string", "const": next(iter(feed.events)), "description": meanings}
        else:
            feed_components[event_type] = {"type": "string", "enum": list(feed.events), "description": meanings}
            event = ref(event_type)
        account_frames[frame] = _frame(
            f"A change of one of your {feed.name}: {meanings}.",
            event,
            _json_data(feed.component, f"The {feed.component} as it is now."),
            {
                "type": "string",
                "pattern": rf"^{re.escape(feed.name)}\..+$",
                "description": f"`{feed.name}.<key>.<version>`: unique per change (the account stream does not resume).",
            },
        )
        feed_mapping.update({name: ref(frame)["$ref"] for name in feed.events})
    return {
        **game_frames,
        "GameStreamEndData": end_data,
        "GameStreamFrame": {
            "description": (
                "One frame (one event) of `GET /games/{game_id}/stream/`, as the `event:`, `id:` and `data:` "
                "lines give it; `event` tells which."
            ),
            "oneOf": [ref(name) for name in game_frames],
            "discriminator": {
                "propertyName": "event",
                "mapping": {
                    "snapshot": ref("GameStreamSnapshot")["$ref"],
                    "end": ref("GameStreamEnd")["$ref"],
                    **{t: ref("GameStreamEvent")["$ref"] for t in sorted(ALL_EVENT_TYPES)},
                    **game_feed_mapping,
                },
            },
        },
        **account_frames,
        "AccountSnapshot": snapshot,
        "AccountStreamEventType": account_events,
        **feed_components,
        "AccountStreamFrame": {
            "description": "One frame (one event) of `GET /me/stream/`; `event` tells which.",
            "oneOf": [ref(name) for name in account_frames],
            "discriminator": {
                "propertyName": "event",
                "mapping": {
                    "snapshot": ref("AccountStreamSnapshot")["$ref"],
                    **{e: ref("AccountStreamUpdate")["$ref"] for e in account_events["enum"]},
                    **feed_mapping,
                },
            },
        },
    }


def _null_enum_to_null(node: Any) -> Any:
    """drf-spectacular writes a nullable enum as ``oneOf: [Enum, NullEnum]``; in
    OpenAPI 3.1 null is a type of its own: ``oneOf: [Enum, {type: null}]``."""
    if isinstance(node, dict):
        if node.get("$ref") == "#/components/schemas/NullEnum":
            return {"type": "null"}
        return {key: _null_enum_to_null(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_null_enum_to_null(value) for value in node]
    return node


# -- moves: one shape per move type, told apart by "type" ---------------------------

_MOVE_DOCS = {
    "play": "Play `tile` from your hand on the open end `end`.",
    "draw": "Draw a tile from the boneyard.",
    "pass": "Pass (nothing to play and nothing to draw, or the drawn tile is not played).",
}
_EXPECTED_SEQ = {"type": "integer", "minimum": 0, "description": "The game's seq you decided on; stale -> 409."}


def _move_components() -> dict[str, Any]:
    """``MoveBody`` (a move as the game shows it: legal moves, the move log, records)
    and ``MoveSubmit`` (a move as sent), each a ``oneOf`` of a play, a draw and a pass
    discriminated by ``type``: a play has ``tile`` and ``end``, a draw and a pass have
    neither (the server ignores them there, as any member the schema does not name)."""
    components: dict[str, Any] = {}
    for suffix, extra in (("Move", {}), ("MoveSubmit", {"expected_seq": _EXPECTED_SEQ})):
        variants = {}
        for kind in ("play", "draw", "pass"):
            properties: dict[str, Any] = {"type": {"type": "string", "const": kind}}
            if kind == "play":
                properties["tile"] = {**_TILE, "description": 'The tile, e.g. "9-4".'}
                properties["end"] = {**_END, "description": 'The open end id, e.g. "e3".'}
            properties.update(extra)
            name = f"{kind.capitalize()}{suffix}"
            variants[kind] = name
            components[name] = {
                "type": "object",
                "description": _MOVE_DOCS[kind],
                "properties": properties,
                "required": sorted(properties),
            }
        union = "MoveBody" if suffix == "Move" else "MoveSubmit"
        components[union] = {
            "description": "A play, a draw or a pass, told apart by `type`.",
            "oneOf": [ref(name) for name in variants.values()],
            "discriminator": {
                "propertyName": "type",
                "mapping": {kind: f"#/components/schemas/{name}" for kind, name in variants.items()},
            },
        }
    return components


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    result = _null_enum_to_null(result)
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.pop("NullEnum", None)
    for name, (description, values) in ENUMS.items():
        schemas[name] = {"type": "string", "enum": values, "description": description}
    schemas.update(_event_components())
    schemas.update(_stream_components())
    schemas.update(_move_components())
    schemas["LayoutNode"] = LAYOUT_NODE
    schemas["LayoutOpenEnd"] = LAYOUT_OPEN_END
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    return result
