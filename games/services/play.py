"""A running game: players' moves, server bots' turns, turn clocks, resigning and
coming back."""

from __future__ import annotations

import logging
import random
import time
from typing import Any

from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext

from bots.strategies import STRATEGIES
from core import metrics
from games import engine
from games.engine import Match, RuleError
from games.engine import Move as EngineMove
from games.errors import GameCode, GameError, engine_refusals
from games.models import Event, Game, GameStatus, Move, MoveSource
from games.services.commit import GameChange, GameGone, MoveResult, game_change
from games.services.guards import player_seat, require_status
from players.models import User

log = logging.getLogger(__name__)

# Plays for an absent player where the table chose nothing (a game's bot_strategy defaults to it).
FALLBACK_STRATEGY = "greedy"
AWAY_AFTER_TIMEOUTS = 3


def _replay_idempotent(game: Game, move_id: int, move: dict[str, Any]) -> MoveResult:
    """The first answer to a move sent again with the same Idempotency-Key (move
    ``move_id``), or ``idempotency_key_reused`` when the move sent differs."""
    first = Move.objects.get(pk=move_id)
    try:
        same = EngineMove.from_dict(move).to_dict() == first.payload
    except RuleError:
        same = False
    if not same:
        raise GameError(
            GameCode.IDEMPOTENCY_KEY_REUSED, gettext("This Idempotency-Key was already used for a different move.")
        )
    return MoveResult(game=game, move=first, events=_move_events(game, first), replayed=True)


def _move_events(game: Game, move: Move) -> list[Event]:
    """The events ``move`` caused, as its first answer listed them: the engine's
    events from its first seq on, up to the first event that is not the engine's
    (a resignation, a timeout note, an abort ... recorded after it) or the next move."""
    later = Event.objects.filter(game=game, seq__gte=move.seq).order_by("seq")
    next_seq = Move.objects.filter(game=game, number=move.number + 1).values_list("seq", flat=True).first()
    if next_seq is not None:
        later = later.filter(seq__lt=next_seq)
    events = []
    for event in later:
        if event.type not in engine.EVENT_TYPES:
            break
        events.append(event)
    return events


def move_submit(
    *, game_id: int, player: User, move: dict[str, Any], expected_seq: int, idempotency_key: str = ""
) -> MoveResult:
    """A seated player's move. Refusals: stale_seq (409), the engine's rule codes
    (422), game state codes (409); an Idempotency-Key retry returns the first answer."""
    replay_of = (player.pk, idempotency_key) if idempotency_key else None
    with game_change(game_id, seats=True, replay_of=replay_of) as change:
        game = change.game
        if change.replayed_move_id is not None:
            return _replay_idempotent(game, change.replayed_move_id, move)
        require_status(game, GameStatus.RUNNING)
        seats = change.seats or []  # with the players: the answer shows them
        seat = next((s for s in seats if s.player_id == player.pk), None)
        if seat is None:
            raise GameError(GameCode.NOT_SEATED, gettext("You have no seat at this game."))
        if seat.resigned:
            raise GameError(GameCode.SEAT_RESIGNED, gettext("You resigned: a server bot plays your seat."))
        if seat.away:
            raise GameError(
                GameCode.SEAT_AWAY,
                gettext("A bot plays your seat after repeated timeouts: POST .../return/ to take it back."),
            )
        if expected_seq != game.seq:
            raise GameError(
                GameCode.STALE_SEQ,
                gettext("The game is at seq %(seq)s, not %(expected_seq)s: re-read it.")
                % {"seq": game.seq, "expected_seq": expected_seq},
                current_seq=game.seq,
            )
        try:
            with engine_refusals():
                result = change.move_record(
                    seat, move, source=MoveSource.PLAYER, actor=player, idempotency_key=idempotency_key, seats=seats
                )
        except IntegrityError:  # pragma: no cover - the row lock makes this unreachable; the constraint is the backstop
            raise GameError(
                GameCode.STALE_SEQ, gettext("Another move was recorded first: re-read the game."), current_seq=game.seq
            ) from None
        if seat.timeouts_in_row:
            change.seat_update(seat, timeouts_in_row=0)
        return result


def _choose(game: Game, match: Match, seat_number: int, strategy_name: str) -> dict[str, Any]:
    """A strategy's move for a seat, from exactly what that seat may see."""
    rng = random.Random(f"{game.seed}:{match.move_count}")
    started = time.perf_counter()
    move = STRATEGIES[strategy_name].choose(engine.seat_view(match, seat_number), rng)
    metrics.labelled(metrics.BOT_DECISION, strategy_name).observe(time.perf_counter() - started)
    return move


def _turn_seat(game: Game) -> int:
    """The seat to move of a running game (set whenever the engine is playing)."""
    if game.turn_seat is None:
        raise RuntimeError(f"running game {game.pk} has no seat to move")
    return game.turn_seat


def _still_due(change: GameChange, expected_seq: int, what: str) -> bool:
    """Is the locked game still where the task expects it (running, at ``expected_seq``)?"""
    game = change.game
    if game.status == GameStatus.RUNNING and game.seq == expected_seq:
        return True
    log.info(
        "%s task for game %s at seq %s is stale (game %s at seq %s)", what, game.pk, expected_seq, game.status, game.seq
    )
    return False


def bot_move(*, game_id: int, expected_seq: int) -> MoveResult | None:
    """A server bot's turn. Does nothing when the game has moved on since
    ``expected_seq`` or the seat to move is not a bot's (a duplicate or late task)."""
    try:
        with game_change(game_id, seats=True) as change:
            if not _still_due(change, expected_seq, "bot"):
                return None
            game = change.game
            seats = change.seats or []
            seat = seats[_turn_seat(game)]
            if not seat.bot_controlled:
                log.info("bot task for game %s at seq %s: seat %s is not a bot's", game_id, expected_seq, seat.number)
                return None
            match = Match.from_dict(game.state)
            move = _choose(game, match, seat.number, seat.bot_strategy)
            return change.move_record(seat, move, source=MoveSource.BOT, actor=None, match=match, seats=seats)
    except GameGone:
        log.info("bot task for game %s at seq %s is stale (no such game)", game_id, expected_seq)
        return None


def turn_timeout(*, game_id: int, expected_seq: int) -> MoveResult | None:
    """The turn clock ran out: move for the absent player with the fallback
    strategy; after ``AWAY_AFTER_TIMEOUTS`` in a row a bot keeps the seat until the
    player returns. Does nothing if the game moved on or the deadline is not due."""
    try:
        with game_change(game_id) as change:
            return _timeout(change, expected_seq)
    except GameGone:
        return None


def _timeout(change: GameChange, expected_seq: int) -> MoveResult | None:
    """``turn_timeout`` on the locked game."""
    game = change.game
    if not _still_due(change, expected_seq, "turn clock"):
        return None
    deadline = game.turn_deadline
    if deadline is None or deadline > timezone.now():
        return None
    seats = list(game.seats.all())
    seat = seats[_turn_seat(game)]
    if seat.bot_controlled:
        return None
    timeouts = seat.timeouts_in_row + 1
    notes: list[dict[str, Any]] = [{"type": "turn_timed_out", "seat": seat.number, "timeouts_in_row": timeouts}]
    level = game.bot_strategy  # the table's bot level
    if timeouts >= AWAY_AFTER_TIMEOUTS:
        change.seat_update(seat, timeouts_in_row=timeouts, away=True, bot_strategy=level)
        notes.append({"type": "seat_handed_to_bot", "seat": seat.number, "bot_strategy": level, "reason": "timeouts"})
    else:
        change.seat_update(seat, timeouts_in_row=timeouts)
    change.events_append(*notes)
    match = Match.from_dict(game.state)
    move = _choose(game, match, seat.number, level)
    result = change.move_record(seat, move, source=MoveSource.TIMEOUT, actor=None, match=match, seats=seats)
    metrics.TURN_CLOCKS_FIRED.inc()
    metrics.TURN_CLOCK_LATENESS.observe((timezone.now() - deadline).total_seconds())  # the move changed the deadline
    return result


def seat_change_record(change: GameChange, payload: dict[str, Any]) -> None:
    """Record one event about a running game's seat (resigned, returned, handed to
    a bot): who controls the seat to move may have changed, so the turn's deadline
    and the bot follow-up are recomputed."""
    change.events_append(payload)
    change.turn_recompute()


def seat_return(*, game_id: int, player: User) -> Game:
    """An away player takes their seat back from the bot."""
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.RUNNING)
        seat = player_seat(change.game, player)
        if not seat.away:
            raise GameError(GameCode.SEAT_NOT_AWAY, gettext("Your seat is not played by a bot: nothing to take back."))
        change.seat_update(seat, away=False, bot_strategy="", timeouts_in_row=0)
        seat_change_record(change, {"type": "seat_returned", "seat": seat.number, "player": player.username})
    return change.game


def game_resign(*, game_id: int, player: User, strategy: str | None = None) -> Game:
    """Hand the player's seat to a server bot (the table's level unless ``strategy``
    says otherwise) so the table can finish."""
    with game_change(game_id) as change:
        require_status(change.game, GameStatus.RUNNING)
        strategy = strategy or change.game.bot_strategy
        seat = player_seat(change.game, player)
        if seat.resigned:
            raise GameError(GameCode.SEAT_RESIGNED, gettext("You already resigned."))
        change.seat_update(seat, resigned=True, away=False, bot_strategy=strategy)
        seat_change_record(
            change, {"type": "seat_resigned", "seat": seat.number, "player": player.username, "bot_strategy": strategy}
        )
    return change.game
