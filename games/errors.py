"""The API's refusals about games, each with a stable code and an HTTP status."""

from __future__ import annotations

from typing import Any

from core.errors import ApiError, register_error_codes

GAME_CODES: dict[str, tuple[int, str]] = {
    "not_seated": (403, "You have no seat at this game."),
    "not_creator": (403, "Only the game's creator may do that."),
    "game_not_started": (409, "The game has not started yet."),
    "game_already_started": (409, "The game has already started."),
    "game_finished": (409, "The game is over."),
    "game_aborted": (409, "The game was aborted."),
    "game_not_finished": (409, "The full record is published when the game is over."),
    "game_full": (409, "Every seat is taken."),
    "seat_taken": (409, "That seat is taken."),
    "already_seated": (409, "You already have a seat at this game."),
    "seats_not_filled": (409, "Every seat must be taken before the start."),
    "no_such_seat": (400, "There is no seat with that number."),
    "seat_empty": (409, "That seat is already empty."),
    "unknown_strategy": (400, "There is no bot strategy with that name."),
    "stale_seq": (409, "The game has moved on since expected_seq: re-read it and decide again."),
    "seat_resigned": (409, "You resigned: a server bot plays the seat."),
    "seat_away": (409, "A bot plays your seat after repeated timeouts: take it back with POST .../return/ first."),
    "seat_not_away": (409, "Your seat is not played by a bot."),
    "idempotency_key_reused": (422, "The Idempotency-Key was already used for a different request."),
}


register_error_codes(GAME_CODES)


class GameError(ApiError):
    """A refusal about a game, by code (``GAME_CODES`` or any registered code:
    its status comes from the registry); keyword arguments go into the body."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
