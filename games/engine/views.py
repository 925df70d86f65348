"""What a viewer may see of a match.

``seat_view`` is the state as one seat sees it (its own hand and legal moves, every
other hand only as a size), ``public_view`` what a spectator sees, ``full_view``
everything (replays, moderators). Hidden information - other hands, the boneyard's
order, the seed before the end - exists only in ``full_view``.
"""

from __future__ import annotations

from typing import Any

from .match import ENDED, Match
from .tiles import tile_text


def public_view(match: Match) -> dict[str, Any]:
    ruleset = match.ruleset
    playing = match.status != ENDED
    view: dict[str, Any] = {
        "status": match.status,
        "ruleset": ruleset.to_dict(),
        "move_count": match.move_count,
        "round": {
            "number": match.round_number,
            "of": ruleset.round_count,
            "starting_double": tile_text((ruleset.starting_double(match.round_index),) * 2),
            "starter": match.starter,
            "phase": match.phase,
            "drawn_tile_pending": match.drawn is not None,
        },
        "turn": match.turn if playing else None,
        "hand_sizes": [len(h) for h in match.hands],
        "boneyard_size": len(match.boneyard),
        "layout": match.layout.tree(),
        "open_ends": match.layout.open_ends(),
        "history": list(match.log),
        "rounds": list(match.rounds),
        "totals": list(match.totals),
        "result": None,
    }
    if not playing:
        view["result"] = {
            "winners": list(match.winners),
            "tie_break": match.tie_break,
            "totals": list(match.totals),
            "seed": match.seed,
        }
    return view


def private_view(match: Match, seat: int) -> dict[str, Any]:
    """What only ``seat`` may see: its hand, the playable tile it drew, its legal moves."""
    return {
        "seat": seat,
        "hand": [tile_text(t) for t in match.hands[seat]],
        "drawn_tile": tile_text(match.drawn) if match.drawn is not None and match.turn == seat else None,
        "legal_moves": [m.to_dict() for m in match.legal_moves(seat)],
    }


def seat_view(match: Match, seat: int) -> dict[str, Any]:
    """The view of ``seat``: the public view plus its own hand and legal moves."""
    return {**public_view(match), **private_view(match, seat)}


def full_view(match: Match) -> dict[str, Any]:
    """Everything, hidden parts included: for replays and moderators only."""
    view = public_view(match)
    view["hands"] = [[tile_text(t) for t in h] for h in match.hands]
    view["boneyard"] = [tile_text(t) for t in match.boneyard]
    view["drawn_tile"] = None if match.drawn is None else tile_text(match.drawn)
    view["legal_moves"] = [m.to_dict() for m in match.legal_moves()]
    view["seed"] = match.seed
    return view
