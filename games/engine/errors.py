"""Typed errors of the rules engine.

Every refusal carries a stable, machine-readable ``code`` (clients and bots branch
on it, so codes never change meaning) and a ``message`` a person understands.
``RULE_CODES`` lists every code the engine can raise for a move, with the
description the OpenAPI document shows; ``SETUP_CODES`` the codes for an invalid
ruleset, set-up position or stored state.
"""

from __future__ import annotations


def gettext_noop(message: str) -> str:
    """Marks ``message`` for the translation catalogue (``manage.py makemessages``
    finds it by this name) and returns it as it is: the engine stays free of
    Django. The API translates these descriptions at its boundary (``games.errors``)."""
    return message


RULE_CODES: dict[str, str] = {
    "invalid_move": gettext_noop("The move is malformed: unknown type, or a play without a valid tile or end id."),
    "not_your_turn": gettext_noop("It is another seat's turn."),
    "tile_not_in_hand": gettext_noop("The tile is not in your hand."),
    "no_such_end": gettext_noop("There is no open end with that id in the layout."),
    "pips_do_not_match": gettext_noop("The tile has no half matching the pip the open end needs."),
    "spinner_not_filled": gettext_noop("Every arm of the spinner must be filled before a tile goes anywhere else."),
    "foot_not_filled": gettext_noop("The open chicken foot needs all three toes before a tile goes anywhere else."),
    "must_play": gettext_noop("You hold a playable tile, so you must play: drawing and passing are refused."),
    "must_draw": gettext_noop("You cannot play and the boneyard is not empty: draw before you may pass."),
    "already_drew": gettext_noop("You already drew this turn: play the drawn tile or pass."),
    "must_play_drawn_tile": gettext_noop("After drawing you may only play the tile you drew (or pass)."),
    "boneyard_empty": gettext_noop("The boneyard is empty: there is nothing to draw."),
    "match_over": gettext_noop("The match is over: no more moves."),
}

SETUP_CODES: dict[str, str] = {
    "invalid_ruleset": gettext_noop("The ruleset is not valid (set size, players, hand size, arms, rounds or points)."),
    "invalid_setup": gettext_noop("The set-up position is not valid for the ruleset (hands, boneyard)."),
    "invalid_state": gettext_noop("The stored state cannot be read by this engine version."),
}


class EngineError(Exception):
    """Base of every engine error: a stable ``code`` and a human ``message``."""

    code = "engine_error"

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class RuleError(EngineError):
    """A move that the rules refuse in the current state (HTTP 422 in the API)."""


class RulesetError(EngineError, ValueError):
    """An invalid ruleset, set-up position or state (HTTP 400 in the API)."""
