"""The settings of a game (its *ruleset*), fixed when the game is created.

Defaults are those of ``docs/rules.md``: a double-9 set, four players, the hand
size from the table, four spinner arms, one round per double, the double-blank
worth 50.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import RulesetError

SET_SIZES = (6, 9, 12, 15, 18)

MAX_PLAYERS = {6: 6, 9: 8, 12: 10, 15: 12, 18: 14}

# Hand size by set, for 2, 3, 4, 5-6, 7, and 8 or more players (docs/rules.md, "Setup of a round").
_HAND_TABLE = {
    6: (7, 6, 5, 4, None, None),
    9: (11, 9, 7, 7, 7, 6),
    12: (15, 13, 12, 11, 10, 9),
    15: (18, 16, 15, 13, 12, 11),
    18: (21, 19, 17, 15, 14, 13),
}

SPINNER_ARMS = (4, 6)
MAX_DOUBLE_BLANK_POINTS = 100


def tile_count(set_max: int) -> int:
    return (set_max + 1) * (set_max + 2) // 2


def default_hand_size(set_max: int, players: int) -> int | None:
    column = {2: 0, 3: 1, 4: 2, 5: 3, 6: 3, 7: 4}.get(players, 5)
    return _HAND_TABLE[set_max][column]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A game's settings. Constructing one validates it (``RulesetError``)."""

    set_max: int = 9
    players: int = 4
    hand_size: int | None = None
    spinner_arms: int = 4
    rounds: int | None = None
    double_blank_points: int = 50

    def __post_init__(self) -> None:
        if not _is_int(self.set_max) or self.set_max not in SET_SIZES:
            raise RulesetError(
                "invalid_ruleset", f"set_max must be one of {', '.join(map(str, SET_SIZES))} (got {self.set_max!r})."
            )
        most = MAX_PLAYERS[self.set_max]
        if not _is_int(self.players) or not 2 <= self.players <= most:
            raise RulesetError(
                "invalid_ruleset", f"A double-{self.set_max} set takes 2 to {most} players (got {self.players!r})."
            )
        tiles = tile_count(self.set_max)
        if self.hand_size is not None:
            if not _is_int(self.hand_size) or self.hand_size < 1:
                raise RulesetError(
                    "invalid_ruleset", f"hand_size must be a positive whole number (got {self.hand_size!r})."
                )
            if self.players * self.hand_size > tiles:
                raise RulesetError(
                    "invalid_ruleset",
                    f"{self.players} hands of {self.hand_size} need {self.players * self.hand_size} tiles; "
                    f"a double-{self.set_max} set has {tiles}.",
                )
        if not _is_int(self.spinner_arms) or self.spinner_arms not in SPINNER_ARMS:
            raise RulesetError("invalid_ruleset", f"spinner_arms must be 4 or 6 (got {self.spinner_arms!r}).")
        if self.rounds is not None and (not _is_int(self.rounds) or not 1 <= self.rounds <= self.set_max + 1):
            raise RulesetError(
                "invalid_ruleset",
                f"rounds must be 1 to {self.set_max + 1} on a double-{self.set_max} set (got {self.rounds!r}).",
            )
        if not _is_int(self.double_blank_points) or not 0 <= self.double_blank_points <= MAX_DOUBLE_BLANK_POINTS:
            raise RulesetError(
                "invalid_ruleset",
                f"double_blank_points must be 0 to {MAX_DOUBLE_BLANK_POINTS} (got {self.double_blank_points!r}).",
            )

    @property
    def effective_hand_size(self) -> int:
        if self.hand_size is not None:
            return self.hand_size
        size = default_hand_size(self.set_max, self.players)
        assert size is not None  # MAX_PLAYERS keeps the table's gaps out of reach
        return size

    @property
    def round_count(self) -> int:
        return self.rounds if self.rounds is not None else self.set_max + 1

    @property
    def tile_count(self) -> int:
        return tile_count(self.set_max)

    def starting_double(self, round_index: int) -> int:
        """The pip of round ``round_index``'s (0-based) starting double."""
        return self.set_max - round_index

    def to_dict(self) -> dict[str, Any]:
        # Every setting is a number or None: no ``asdict`` (a recursive deep copy) on every move.
        return {name: getattr(self, name) for name in _SETTINGS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Ruleset:
        """Build from JSON; missing keys take their defaults, unknown keys are refused."""
        if data is not None and not isinstance(data, Mapping):
            raise RulesetError(
                "invalid_ruleset", f"A ruleset is a JSON object of settings (got {type(data).__name__})."
            )
        data = dict(data or {})
        unknown = sorted(set(data) - set(_SETTINGS))
        if unknown:
            raise RulesetError("invalid_ruleset", f"Unknown ruleset setting(s): {', '.join(unknown)}.")
        return cls(**data)


_SETTINGS = tuple(f.name for f in fields(Ruleset))  # the names, in order
