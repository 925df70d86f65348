"""What a bot sees when it is its turn: a small typed view of ``GET /games/{id}/``.

Tiles are strings ``"a-b"`` (``"6-4"``); open ends have stable ids (``"e1"``) for
the whole round. ``GameState.raw`` keeps the server's whole answer (the layout
tree, the round's history, ...) for a strategy that wants more than the fields here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def pips(tile: str) -> tuple[int, int]:
    """``"6-4"`` -> ``(6, 4)``."""
    a, _, b = tile.partition("-")
    return int(a), int(b)


@dataclass(frozen=True)
class Move:
    """``play`` a ``tile`` on the open end ``end``, ``draw`` from the boneyard, or ``pass``."""

    type: str
    tile: str | None = None
    end: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Move:
        return cls(type=data["type"], tile=data.get("tile"), end=data.get("end"))

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"type": self.type}
        if self.tile is not None:
            body["tile"] = self.tile
        if self.end is not None:
            body["end"] = self.end
        return body

    @property
    def weight(self) -> int:
        """The pips the move sheds from the hand (0 for a draw or a pass)."""
        return sum(pips(self.tile)) if self.tile else 0


@dataclass(frozen=True)
class OpenEnd:
    id: str
    pip: int  # the pip a tile must show to go here
    playable: bool  # in the spinner and foot phases only some ends may be played on


@dataclass(frozen=True)
class GameState:
    """The game as your seat sees it at ``seq``. Return one of ``legal_moves``."""

    game_id: int
    seq: int  # the game's sequence number: the kit sends it as expected_seq
    seat: int
    hand: tuple[str, ...]
    legal_moves: tuple[Move, ...]
    drawn_tile: str | None  # you drew this playable tile: play it or pass
    open_ends: tuple[OpenEnd, ...]
    hand_sizes: tuple[int, ...]  # every seat's tile count, yours included
    boneyard_size: int
    round: int
    rounds: int  # how many rounds the match has
    phase: str  # "spinner", "foot" or "free"
    totals: tuple[int, ...]  # every seat's points so far (fewest wins)
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> GameState:
        """From the body of ``GET /games/{id}/`` (or a move's or a ``stale_seq`` answer's ``game``)."""
        game, state, you = view["game"], view["state"] or {}, view["you"] or {}
        round_ = state.get("round") or {}
        return cls(
            game_id=game["id"],
            seq=game["seq"],
            seat=you.get("seat", -1),
            hand=tuple(you.get("hand") or ()),
            legal_moves=tuple(Move.from_dict(m) for m in you.get("legal_moves", ())),
            drawn_tile=you.get("drawn_tile"),
            open_ends=tuple(OpenEnd(e["id"], e["pip"], e["playable"]) for e in state.get("open_ends", ())),
            hand_sizes=tuple(state.get("hand_sizes", ())),
            boneyard_size=state.get("boneyard_size", 0),
            round=round_.get("number", 0),
            rounds=round_.get("of", 0),
            phase=round_.get("phase", ""),
            totals=tuple(state.get("totals", ())),
            raw=view,
        )

    @property
    def plays(self) -> tuple[Move, ...]:
        """The legal moves that put a tile down."""
        return tuple(m for m in self.legal_moves if m.type == "play")

    @property
    def your_turn(self) -> bool:
        return bool((self.raw.get("you") or {}).get("your_turn"))

    @property
    def over(self) -> bool:
        return self.raw["game"]["status"] in ("finished", "aborted")
