"""Tiles: ``(high, low)`` tuples inside the engine, ``"high-low"`` text outside.

A tile is always stored high half first, so ``(9, 4)`` and ``"9-4"`` name the same
tile whichever way round a client writes it.
"""

from __future__ import annotations

from functools import cache

from .errors import RuleError

Tile = tuple[int, int]

MAX_PIP = 18

# Every tile text of the largest set, both orders, for parsing without regexes.
_PARSE: dict[str, Tile] = {f"{a}-{b}": (max(a, b), min(a, b)) for a in range(MAX_PIP + 1) for b in range(MAX_PIP + 1)}
_TEXT: dict[Tile, str] = {(a, b): f"{a}-{b}" for a in range(MAX_PIP + 1) for b in range(a + 1)}


@cache
def full_set(set_max: int) -> tuple[Tile, ...]:
    """Every tile of a double-``set_max`` set, in a fixed canonical order."""
    return tuple((a, b) for a in range(set_max + 1) for b in range(a + 1))


def tile_text(tile: Tile) -> str:
    return _TEXT[tile]


def parse_tile(text: object, set_max: int = MAX_PIP) -> Tile:
    """Read ``"9-4"`` (or ``"4-9"``); refuse anything that is not a tile of the set."""
    tile = _PARSE.get(text) if isinstance(text, str) else None
    if tile is None or tile[0] > set_max:
        raise RuleError("invalid_move", f'{text!r} is not a tile of a double-{set_max} set (write it like "9-4").')
    return tile


def tile_points(tile: Tile, double_blank_points: int) -> int:
    """Points a tile left in hand scores: its pips, the double-blank by the ruleset."""
    if tile == (0, 0):
        return double_blank_points
    return tile[0] + tile[1]
