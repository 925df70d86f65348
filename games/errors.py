"""The games layer's refusals: ``GameError`` with a ``GameCode``.

The rules engine raises its own typed errors (``games.engine.errors``: pure, no
HTTP); the games services translate them at their boundary (``engine_refusals``)
into ``GameError`` with the engine's code, registered here with its status: a
move the rules refuse is 422, an invalid ruleset or set-up 400.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Any

from django.utils.functional import lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.errors import ERROR_CODES, ApiError, CoreCode, StrOrPromise, register_enum, register_error_code
from games.engine.errors import RULE_CODES, SETUP_CODES, RuleError, RulesetError


class GameCode(StrEnum):
    NOT_SEATED = "not_seated"
    NOT_CREATOR = "not_creator"
    GAME_NOT_STARTED = "game_not_started"
    GAME_ALREADY_STARTED = "game_already_started"
    GAME_FINISHED = "game_finished"
    GAME_ABORTED = "game_aborted"
    GAME_NOT_FINISHED = "game_not_finished"
    GAME_FULL = "game_full"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    SEATS_NOT_FILLED = "seats_not_filled"
    NO_SUCH_SEAT = "no_such_seat"
    SEAT_EMPTY = "seat_empty"
    UNKNOWN_STRATEGY = "unknown_strategy"
    STALE_SEQ = "stale_seq"
    SEAT_RESIGNED = "seat_resigned"
    SEAT_AWAY = "seat_away"
    SEAT_NOT_AWAY = "seat_not_away"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"


GAME_CODES: dict[str, tuple[int, StrOrPromise]] = {
    GameCode.NOT_SEATED: (403, _("You have no seat at this game.")),
    GameCode.NOT_CREATOR: (403, _("Only the game's creator may do that.")),
    GameCode.GAME_NOT_STARTED: (409, _("The game has not started yet.")),
    GameCode.GAME_ALREADY_STARTED: (409, _("The game has already started.")),
    GameCode.GAME_FINISHED: (409, _("The game is over.")),
    GameCode.GAME_ABORTED: (409, _("The game was aborted.")),
    GameCode.GAME_NOT_FINISHED: (409, _("The full record is published when the game is over.")),
    GameCode.GAME_FULL: (409, _("Every seat is taken.")),
    GameCode.SEAT_TAKEN: (409, _("That seat is taken.")),
    GameCode.ALREADY_SEATED: (409, _("You already have a seat at this game.")),
    GameCode.SEATS_NOT_FILLED: (409, _("Every seat must be taken before the start.")),
    GameCode.NO_SUCH_SEAT: (422, _("This table has no seat with that number (seats run from 0 to players - 1).")),
    GameCode.SEAT_EMPTY: (409, _("That seat is already empty.")),
    GameCode.UNKNOWN_STRATEGY: (400, _("There is no bot strategy with that name.")),
    GameCode.STALE_SEQ: (409, _("The game has moved on since expected_seq: re-read it and decide again.")),
    GameCode.SEAT_RESIGNED: (409, _("You resigned: a server bot plays the seat.")),
    GameCode.SEAT_AWAY: (
        409,
        _("A bot plays your seat after repeated timeouts: take it back with POST .../return/ first."),
    ),
    GameCode.SEAT_NOT_AWAY: (409, _("Your seat is not played by a bot.")),
    GameCode.IDEMPOTENCY_KEY_REUSED: (422, _("The Idempotency-Key was already used for a different request.")),
}

#: The problems the rules engine's errors become: a move the rules refuse, a ruleset
#: or set-up they cannot play: 422, a request as the contract shapes it that the rules
#: refuse (400 is for a request the contract itself refuses).
RULE_ERROR_STATUS, SETUP_ERROR_STATUS = 422, 422

register_enum(GameCode, GAME_CODES)
for _code, _description in RULE_CODES.items():
    register_error_code(_code, status=RULE_ERROR_STATUS, description=_description)
for _code, _description in SETUP_CODES.items():
    register_error_code(_code, status=SETUP_ERROR_STATUS, description=_description)


class GameError(ApiError):
    """A refusal about a game: a ``GameCode`` (or a ``CoreCode`` such as
    ``validation_error``); keyword arguments become members of the problem body."""

    def __init__(self, code: GameCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)


#: The engine's codes (``RULE_CODES``, ``SETUP_CODES``) as an enumeration.
EngineCode = StrEnum("EngineCode", {code: code for code in (*RULE_CODES, *SETUP_CODES)})  # type: ignore[misc]


class EngineRefusal(ApiError):
    """A rule or set-up refusal of the engine, as the API answers it (same code)."""

    def __init__(self, error: RuleError | RulesetError) -> None:
        code = EngineCode(error.code)
        super().__init__(_engine_detail(error.message, ERROR_CODES[code].description), code=code)


def _engine_detail_now(message: str, description: StrOrPromise) -> str:
    """The engine (pure Python) words its refusals in English, with the exact tiles
    and ends; in another language the detail is its code's translated description.
    Decided when the answer is written (in the reader's language), not when raised."""
    english = (get_language() or "en").split("-")[0] == "en"
    return message if english else str(description)


_engine_detail = lazy(_engine_detail_now, str)


@contextmanager
def engine_refusals() -> Iterator[None]:
    """Turn the engine's errors raised inside the block into the API's."""
    try:
        yield
    except (RuleError, RulesetError) as error:
        raise EngineRefusal(error) from error
