"""Small builders for set-up positions, shared by the engine tests.

Positions are written with tile text (``"6-4"``) as a reader of docs/rules.md would.
``setup()`` completes the boneyard: the tiles named in ``draws`` come first (they
are drawn first), then every remaining tile of the set in canonical order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from games.engine import Match, Ruleset, full_set, parse_tile, tile_text


def setup(hands: list[list[str]], draws: Sequence[str] = (), set_max: int = 6) -> dict[str, Any]:
    """A complete set-up: the given hands, and a boneyard starting with ``draws``."""
    used = {parse_tile(t) for hand in hands for t in hand} | {parse_tile(t) for t in draws}
    rest = [tile_text(t) for t in full_set(set_max) if t not in used]
    return {"hands": [list(h) for h in hands], "boneyard": list(draws) + rest}


def new_match(
    hands: list[list[str]],
    draws: Sequence[str] = (),
    *,
    boneyard: list[str] | None = None,
    set_max: int = 6,
    seed: int = 1,
    **rules: Any,
) -> tuple[Match, list[dict[str, Any]]]:
    """Round 1 of a match dealt from the given hands (one per seat).

    ``boneyard`` gives the whole boneyard exactly (then the hands and it must hold
    the whole set); otherwise ``draws`` come first and the rest follows."""
    rules.setdefault("rounds", 1)
    ruleset = Ruleset(set_max=set_max, players=len(hands), **rules)
    position = {"hands": hands, "boneyard": boneyard} if boneyard is not None else setup(hands, draws, set_max)
    return Match.new(ruleset, seed, setup=position)


def play(match: Match, tile: str, end: str) -> list[dict[str, Any]]:
    """The seat to move plays ``tile`` on ``end``."""
    return match.apply(match.turn, {"type": "play", "tile": tile, "end": end})


def draw(match: Match) -> list[dict[str, Any]]:
    return match.apply(match.turn, {"type": "draw"})


def pass_(match: Match) -> list[dict[str, Any]]:
    return match.apply(match.turn, {"type": "pass"})


def hand(match: Match, seat: int) -> list[str]:
    return [tile_text(t) for t in match.hands[seat]]


def ends(match: Match) -> dict[str, int]:
    """Open end id -> the pip it needs."""
    return {e["id"]: e["pip"] for e in match.layout.open_ends()}


def playable(match: Match) -> list[str]:
    return [e["id"] for e in match.layout.open_ends() if e["playable"]]


def legal(match: Match) -> list[dict[str, Any]]:
    return [m.to_dict() for m in match.legal_moves()]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def snapshot(match: Match) -> str:
    """The whole state as canonical JSON text: equal texts, equal states."""
    return json.dumps(match.to_dict(), sort_keys=True)


# A free layout on a double-6 set, two players. Seat 0 places the spinner 6-6; the
# arms are filled by 6-5 (e1 -> e5 needs 5), 6-4 (e2 -> e6 needs 4), 6-3 (e3 -> e7
# needs 3), 6-2 (e4 -> e8 needs 2). Then it is seat 1's turn and play is free.
ARMS_0 = ["6-6", "6-4", "6-2"]
ARMS_1 = ["6-5", "6-3"]


def free_match(extra0: list[str], extra1: list[str], draws: Sequence[str] = (), **kw: Any) -> Match:
    """Two players, the spinner's four arms filled, seat 1 to move; the seats then
    hold ``extra0`` and ``extra1``."""
    match, _ = new_match([ARMS_0 + list(extra0), ARMS_1 + list(extra1)], draws, **kw)
    for tile, end in (("6-5", "e1"), ("6-4", "e2"), ("6-3", "e3"), ("6-2", "e4")):
        play(match, tile, end)
    assert match.phase == "free" and match.turn == 1
    assert ends(match) == {"e5": 5, "e6": 4, "e7": 3, "e8": 2}
    return match


# A blocked round on top of ``free_match``: a 5-5 foot that can never be finished.
# Seat 1 plays 5-4 on e5, seat 0 3-5 on e7 (e10 needs 5), seat 1 2-5 on e8, seat 0
# 5-5 on e10 (toes e12, e13, e14), seat 1 toe 5-1, seat 0 toe 5-0. Every 5 is then
# in the layout, e14 can never be filled, so the seats draw (seat 1 first) until the
# boneyard is empty and the round is blocked. Extras and draws must hold no 5.
BLOCK_PLAYS = (("5-4", "e5"), ("3-5", "e7"), ("2-5", "e8"), ("5-5", "e10"), ("5-1", "e12"), ("5-0", "e13"))


def blocked_match(
    extra0: list[str], extra1: list[str], draws: list[str], **kw: Any
) -> tuple[Match, list[dict[str, Any]]]:
    """Play ``BLOCK_PLAYS`` then draw until round 1 ends; return the match and the
    events of the drawing (which end with round_ended)."""
    match = free_match(["3-5", "5-5", "5-0", *extra0], ["5-4", "2-5", "5-1", *extra1], draws, **kw)
    for tile, end in BLOCK_PLAYS:
        play(match, tile, end)
    assert match.phase == "foot" and playable(match) == ["e14"]
    events: list[dict[str, Any]] = []
    while match.round_index == 0 and match.status == "playing":
        events += draw(match)
    return match, events
