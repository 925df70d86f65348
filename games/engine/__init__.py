"""The Chicken Foot rules engine: pure Python, no Django, no I/O, no clock, no
global random.

Use::

    from games.engine import Match, Ruleset, seat_view

    match, events = Match.new(Ruleset(set_max=9, players=4), seed=42)
    moves = match.legal_moves()                # for the seat to move
    events = match.apply(match.turn, moves[0])  # or {"type": "play", "tile": "9-4", "end": "e3"}
    state = match.to_dict()                     # JSON; Match.from_dict(state) restores it
    seat_view(match, 0)                         # what seat 0 may see

* ``Ruleset`` validates the settings (``RulesetError``, code ``invalid_ruleset``).
* ``Match.new`` deals round 1 from the seed - or from a ``Setup`` (given hands and
  boneyard) - and places the starting double, drawing for it when nobody holds it.
* ``Match.apply(seat, move)`` validates a move completely first: a refused move
  raises ``RuleError`` (a stable ``code`` from ``RULE_CODES`` and a message) and
  changes nothing; an accepted one returns its public events (``EVENT_TYPES``),
  and starts the next round by itself when a round ends.
* ``Match.replay(ruleset, seed, moves, setup)`` rebuilds a match from its record.
* Open ends have ids ``e1, e2, ...`` that never change while a round runs.
* ``seat_view`` / ``public_view`` / ``full_view`` are what a seat, a spectator and a
  moderator may see; only ``full_view`` holds other hands, the boneyard and the seed.

The engine is the rules only. The bots' reasoning that builds on it (fast
play-outs, sampling hidden tiles, the search behind ``strong``, the strategies'
registry) is the ``bots`` package, which imports the engine and is never imported
by it; ``Match.copy()`` is the cheap exact copy it relies on.
"""

from .errors import RULE_CODES, SETUP_CODES, EngineError, RuleError, RulesetError
from .match import BLOCKED, DOMINO, ENDED, PLAYING, TIE_BREAKS, Match, Setup, decide_winners
from .moves import DRAW, PASS, PLAY, Move
from .ruleset import MAX_PLAYERS, SET_SIZES, Ruleset, default_hand_size, tile_count
from .tiles import Tile, full_set, parse_tile, tile_points, tile_text
from .views import full_view, private_view, public_view, seat_view

EVENT_TYPES: dict[str, str] = {
    "round_started": "A round was dealt: its starting double, hand sizes, boneyard size.",
    "drew": "A seat drew one tile (never which); for_starting_double when drawing for the spinner.",
    "spinner_placed": "The starting double was placed as the spinner, with its arm end ids.",
    "tile_played": "A seat played a tile on an open end; the new end ids it opened.",
    "spinner_completed": "Every arm of the spinner is filled: play is free.",
    "foot_opened": "A double opened a chicken foot: its three toe end ids must be filled first.",
    "foot_completed": "The foot's three toes are in place: play is free again.",
    "passed": "A seat passed (no_play, drawn_tile_unplayable, or declined_drawn_tile).",
    "round_ended": "A round ended (domino or blocked): every hand revealed, the round's scores and totals.",
    "match_ended": "The match ended: totals, winners, the tie-break used, and the seed.",
}

__all__ = [
    "BLOCKED",
    "DOMINO",
    "DRAW",
    "ENDED",
    "EVENT_TYPES",
    "MAX_PLAYERS",
    "PASS",
    "PLAY",
    "PLAYING",
    "RULE_CODES",
    "SETUP_CODES",
    "SET_SIZES",
    "TIE_BREAKS",
    "EngineError",
    "Match",
    "Move",
    "RuleError",
    "Ruleset",
    "RulesetError",
    "Setup",
    "Tile",
    "decide_winners",
    "default_hand_size",
    "full_set",
    "full_view",
    "parse_tile",
    "private_view",
    "public_view",
    "seat_view",
    "tile_count",
    "tile_points",
    "tile_text",
]
