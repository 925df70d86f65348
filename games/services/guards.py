"""Checks the games services make on a locked game before they change it."""

from __future__ import annotations

from django.utils.translation import gettext

from core.errors import CoreCode
from games.errors import GameCode, GameError
from games.models import Game, GameStatus, Seat
from players.models import User

_NOT_IN_STATUS = {
    GameStatus.OPEN: (GameCode.GAME_NOT_STARTED, "The game has not started yet."),
    GameStatus.RUNNING: (GameCode.GAME_ALREADY_STARTED, "The game has already started."),
    GameStatus.FINISHED: (GameCode.GAME_FINISHED, "The game is over."),
    GameStatus.ABORTED: (GameCode.GAME_ABORTED, "The game was aborted."),
}


def require_status(game: Game, *statuses: str) -> None:
    if game.status not in statuses:
        code, detail = _NOT_IN_STATUS[GameStatus(game.status)]
        raise GameError(code, detail)


def require_creator(game: Game, user: User) -> None:
    if game.creator_id != user.pk:
        raise GameError(GameCode.NOT_CREATOR, gettext("Only the game's creator may do that."))


def require_staff(user: User) -> None:
    """The games services' own floor for moderator actions (``moderation`` checks
    its permission first and records the audit entry)."""
    if not user.is_staff:
        raise GameError(CoreCode.PERMISSION_DENIED, gettext("Only staff may do that."))


def player_seat(game: Game, player: User) -> Seat:
    seat = game.seats.filter(player=player).first()
    if seat is None:
        raise GameError(GameCode.NOT_SEATED, gettext("You have no seat at this game."))
    return seat


def seat_numbered(seats: list[Seat], number: int, game: Game) -> Seat:
    if not 0 <= number < len(seats):
        raise GameError(
            GameCode.NO_SUCH_SEAT, gettext("Game %(pk)s has no seat %(number)s.") % {"pk": game.pk, "number": number}
        )
    return seats[number]
