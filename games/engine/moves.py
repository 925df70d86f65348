"""Moves a seat makes: play a tile onto an open end, draw, or pass.

Outside the engine a move is JSON: ``{"type": "play", "tile": "9-4", "end": "e3"}``,
``{"type": "draw"}`` or ``{"type": "pass"}``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .errors import RuleError
from .tiles import MAX_PIP, Tile, parse_tile, tile_text

PLAY = "play"
DRAW = "draw"
PASS = "pass"
MOVE_TYPES = (PLAY, DRAW, PASS)


def end_text(end: int) -> str:
    return f"e{end}"


def parse_end(text: object) -> int:
    # ASCII digits only, and few of them: str.isdigit() also accepts "²" (which int()
    # rejects with a bare ValueError) and "١" (which int() reads as 1), and int()
    # raises ValueError past 4300 digits.
    digits = text[1:] if isinstance(text, str) and text[:1] == "e" else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= 9:
        return int(digits)
    raise RuleError("invalid_move", f'{text!r} is not an open-end id (ids look like "e3").')


class Move(NamedTuple):
    """One move. ``tile`` and ``end`` are set for plays only."""

    type: str
    tile: Tile | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.type == PLAY:
            assert self.tile is not None and self.end is not None
            return {"type": PLAY, "tile": tile_text(self.tile), "end": end_text(self.end)}
        return {"type": self.type}

    @classmethod
    def from_dict(cls, data: Any, set_max: int = MAX_PIP) -> Move:
        if isinstance(data, Move):
            return data
        if not isinstance(data, dict) or data.get("type") not in MOVE_TYPES:
            raise RuleError(
                "invalid_move",
                'A move is {"type": "play", "tile": "9-4", "end": "e3"}, {"type": "draw"} or {"type": "pass"}.',
            )
        kind = data["type"]
        if kind != PLAY:
            return cls(kind)
        if "tile" not in data or "end" not in data:
            raise RuleError(
                "invalid_move", 'A play names the tile and the open end: {"type": "play", "tile": "9-4", "end": "e3"}.'
            )
        return cls(PLAY, parse_tile(data["tile"], set_max), parse_end(data["end"]))


DRAW_MOVE = Move(DRAW)
PASS_MOVE = Move(PASS)
