"""The layout: the spinner, its arms, chains, and chicken feet, with open ends.

Every open end has an integer id (shown as ``e<N>``), assigned in order of
creation and never reused or renumbered while the round runs, so ``e3`` means the
same end to every client and in every replay.

While ``pending`` is non-empty, tiles may only go on those ends: first the
spinner's arms, later the three toes of an open chicken foot. One foot at most is
open at a time (a toe of an X-X foot is an X-y tile, never a double), so
``pending`` is always one group.
"""

from __future__ import annotations

from typing import Any

from .errors import RuleError
from .moves import end_text
from .tiles import Tile, parse_tile, tile_text

TOES = 3

SPINNER = "spinner"
FOOT = "foot"

# Node fields, kept as lists for speed: high, low, outer pip, seat, end played on (-1 for
# the spinner), kind, child end ids.
_HI, _LO, _OUTER, _SEAT, _ON, _KIND, _CHILDREN = range(7)
KIND_SPINNER, KIND_TILE, KIND_DOUBLE = "spinner", "tile", "double"


class Layout:
    __slots__ = ("ends", "filled_by", "next_end", "nodes", "pending", "pending_kind")

    def __init__(self) -> None:
        self.nodes: list[list[Any]] = []
        self.ends: dict[int, int] = {}  # open end id -> pip it needs
        self.pending: list[int] = []
        self.pending_kind: str | None = None
        self.next_end = 1
        self.filled_by: dict[int, int] = {}  # end id -> index of the node played on it

    def copy(self) -> Layout:
        """An independent copy, cheap: a node is never changed once placed (its list of
        child end ids included), so the copy shares them and copies only the containers."""
        layout = Layout.__new__(Layout)
        layout.nodes = self.nodes.copy()
        layout.ends = self.ends.copy()
        layout.pending = self.pending.copy()
        layout.pending_kind = self.pending_kind
        layout.next_end = self.next_end
        layout.filled_by = self.filled_by.copy()
        return layout

    # -- building -----------------------------------------------------------
    def _new_ends(self, pip: int, count: int) -> list[int]:
        first = self.next_end
        self.next_end += count
        ids = list(range(first, first + count))
        for end in ids:
            self.ends[end] = pip
        return ids

    def place_spinner(self, pip: int, seat: int, arms: int) -> list[int]:
        ids = self._new_ends(pip, arms)
        self.nodes.append([pip, pip, pip, seat, -1, KIND_SPINNER, ids])
        self.pending = list(ids)
        self.pending_kind = SPINNER
        return ids

    def playable_ends(self) -> list[int] | dict[int, int]:
        """The end ids a tile may go on now (the pending group, else every open end)."""
        return self.pending or self.ends

    def check_play(self, tile: Tile, end: int) -> int:
        """Refuse a play the layout does not allow; return the pip it leaves outward."""
        pip = self.ends.get(end)
        if pip is None:
            raise RuleError("no_such_end", f"There is no open end {end_text(end)}; open ends: {self.describe_open()}.")
        if self.pending and end not in self.pending:
            if self.pending_kind == SPINNER:
                raise RuleError(
                    "spinner_not_filled",
                    f"The spinner's arms come first: play on {', '.join(map(end_text, self.pending))}.",
                )
            raise RuleError(
                "foot_not_filled",
                f"The chicken foot needs its toes first: play on {', '.join(map(end_text, self.pending))}.",
            )
        high, low = tile
        if high == pip:
            return low
        if low == pip:
            return high
        raise RuleError(
            "pips_do_not_match", f"{tile_text(tile)} does not match end {end_text(end)}, which needs a {pip}."
        )

    def place(self, tile: Tile, end: int, outer: int, seat: int) -> tuple[list[int], str | None]:
        """Put a checked tile on ``end``. Returns the new end ids and the group it
        opened or completed (``"foot_opened"``, ``"foot_completed"``, ``"spinner_completed"``)."""
        del self.ends[end]
        index = len(self.nodes)
        self.filled_by[end] = index
        change = None
        if self.pending:
            self.pending.remove(end)
            if not self.pending:
                change = "spinner_completed" if self.pending_kind == SPINNER else "foot_completed"
                self.pending_kind = None
        if tile[0] == tile[1]:
            ids = self._new_ends(outer, TOES)
            kind = KIND_DOUBLE
            self.pending = list(ids)
            self.pending_kind = FOOT
            change = "foot_opened"
        else:
            ids = self._new_ends(outer, 1)
            kind = KIND_TILE
        self.nodes.append([tile[0], tile[1], outer, seat, end, kind, ids])
        return ids, change

    # -- reading ------------------------------------------------------------
    def describe_open(self) -> str:
        return ", ".join(f"{end_text(e)} (needs {p})" for e, p in self.ends.items()) or "none"

    def open_ends(self) -> list[dict[str, Any]]:
        playable = set(self.playable_ends())
        return [{"id": end_text(e), "pip": p, "playable": e in playable} for e, p in self.ends.items()]

    def tiles(self) -> list[Tile]:
        return [(n[_HI], n[_LO]) for n in self.nodes]

    def tree(self) -> dict[str, Any] | None:
        """The layout as a tree a client can draw: nodes with ``next`` slots, each slot
        a node or an open end ``{"end": "e5", "pip": 4, "playable": true}``."""
        if not self.nodes:
            return None
        return self._node(0, set(self.playable_ends()))

    # Methods, not two closures calling each other: those form a reference cycle
    # (through their cells) that holds the layout until the garbage collector runs.
    def _node(self, index: int, playable: set[int]) -> dict[str, Any]:
        n = self.nodes[index]
        inner = n[_LO] if n[_OUTER] == n[_HI] else n[_HI]
        return {
            "tile": tile_text((n[_HI], n[_LO])),
            "kind": n[_KIND],
            "seat": n[_SEAT],
            "inner": inner,
            "outer": n[_OUTER],
            "next": [self._slot(e, playable) for e in n[_CHILDREN]],
        }

    def _slot(self, end: int, playable: set[int]) -> dict[str, Any]:
        index = self.filled_by.get(end)
        if index is None:
            return {"end": end_text(end), "pip": self.ends[end], "playable": end in playable}
        return self._node(index, playable)

    # -- persistence --------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [
                [tile_text((n[_HI], n[_LO])), n[_OUTER], n[_SEAT], n[_ON], n[_KIND], list(n[_CHILDREN])]
                for n in self.nodes
            ],
            "ends": [[e, p] for e, p in self.ends.items()],
            "pending": list(self.pending),
            "pending_kind": self.pending_kind,
            "next_end": self.next_end,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Layout:
        layout = cls()
        for text, outer, seat, on, kind, children in data["nodes"]:
            high, low = parse_tile(text)
            if on >= 0:
                layout.filled_by[on] = len(layout.nodes)
            layout.nodes.append([high, low, outer, seat, on, kind, list(children)])
        layout.ends = {e: p for e, p in data["ends"]}
        layout.pending = list(data["pending"])
        layout.pending_kind = data["pending_kind"]
        layout.next_end = data["next_end"]
        return layout
