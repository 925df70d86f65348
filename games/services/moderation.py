"""Moderators' actions on games, through the same commit path as every change.

``moderation.services`` calls these after checking the moderation permission, in
the transaction in which it records the audit entry. Each marks the game
``moderated`` and appends an event that tells every client a moderator acted.
The games layer's own floor is staff status; it knows nothing of the audit trail.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext

from games.errors import GameCode, GameError
from games.models import Game, GameStatus, Seat
from games.services.commit import game_change, locked_seats
from games.services.guards import require_staff, require_status, seat_numbered
from games.services.lobby import abort
from games.services.play import FALLBACK_STRATEGY, seat_change_record
from players.models import User


@dataclass(frozen=True)
class SeatChanged:
    """A moderated seat: the game and the account that held the seat (read under the lock)."""

    game: Game
    player: User | None


def game_abort_as_moderator(*, game_id: int, by: User, reason: str = "") -> Game:
    """Abort any open or running game."""
    require_staff(by)
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.OPEN, GameStatus.RUNNING)
        abort(change, by=by, reason=reason, moderator=True)
        change.mark_moderated()
    return change.game


def seat_hand_to_bot(
    *, game_id: int, seat_number: int, by: User, reason: str = "", strategy: str = FALLBACK_STRATEGY
) -> SeatChanged:
    """Hand a running game's seat to a server bot for good (the player cannot take
    it back with ``return``)."""
    require_staff(by)
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.RUNNING)
        seat = seat_numbered(locked_seats(change), seat_number, change.game)
        player = seat.player
        change.seat_update(seat, bot_strategy=strategy, away=False, resigned=seat.player_id is not None)
        seat_change_record(
            change,
            {
                "type": "seat_handed_to_bot",
                "seat": seat_number,
                "bot_strategy": strategy,
                "reason": "moderator",
                "moderator": True,
                "note": reason,
            },
        )
        change.mark_moderated()
    return SeatChanged(change.game, player)


def seat_remove(*, game_id: int, seat_number: int, by: User, reason: str = "") -> SeatChanged:
    """Empty a seat (a player's or a bot's) of a game that has not started."""
    require_staff(by)
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.OPEN)
        seat = seat_numbered(locked_seats(change), seat_number, change.game)
        if not seat.is_taken:
            raise GameError(
                GameCode.SEAT_EMPTY, gettext("Seat %(seat_number)s is already empty.") % {"seat_number": seat_number}
            )
        player = seat.player
        who = player.username if player is not None else f"bot:{seat.bot_strategy}"
        change.seat_update(seat, player=None, bot_strategy="")
        change.events_append(
            {"type": "seat_left", "seat": seat_number, "player": who, "moderator": True, "note": reason}
        )
        change.mark_moderated()
    return SeatChanged(change.game, player)


def player_withdraw(*, player: User, by: User, reason: str = "") -> list[int]:
    """Take a (suspended) player out of every table: their seats in running games go
    to bots, their open tables are aborted, their seats at others' open tables are
    emptied. Returns the ids of the games touched, each changed in a change of its own."""
    require_staff(by)
    touched: list[int] = []
    for game_id, number in _seats(player, GameStatus.RUNNING, resigned=False):
        seat_hand_to_bot(game_id=game_id, seat_number=number, by=by, reason=reason)
        touched.append(game_id)
    for game_id in Game.objects.filter(creator=player, status=GameStatus.OPEN).values_list("id", flat=True):
        game_abort_as_moderator(game_id=game_id, by=by, reason=reason)
        touched.append(game_id)
    for game_id, number in _seats(player, GameStatus.OPEN):
        seat_remove(game_id=game_id, seat_number=number, by=by, reason=reason)
        touched.append(game_id)
    return touched


def _seats(player: User, status: str, **filters: bool) -> list[tuple[int, int]]:
    """``(game_id, seat number)`` of the player's seats in games of ``status``
    (a hint only: each change re-reads its seat under the lock)."""
    return list(Seat.objects.filter(player=player, game__status=status, **filters).values_list("game_id", "number"))
