"""Every state change of a game: one transaction, the game row locked, the engine
asked, the new state, moves and events stored together, follow-up work sent on
commit. Player moves, bot moves, timeouts and moderator actions all end in
``_record`` - one path for every change."""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, models, transaction
from django.utils import timezone

from bots.strategies import STRATEGIES
from games import engine
from games.engine import Match, Move as EngineMove, Ruleset, RuleError
from games.errors import GameError
from games.models import Event, Game, GameStatus, Move, MoveSource, Seat
from players.models import User

log = logging.getLogger(__name__)

MAX_SEED = 2**63 - 1
FALLBACK_STRATEGY = "greedy"  # plays for an absent player: draw/pass when that is all, else a legal move
AWAY_AFTER_TIMEOUTS = 3
MAX_TURN_TIME_LIMIT = 24 * 3600
MAX_BOT_DELAY_MS = 10_000
# What a move changes on the game row (``_record``, ``_store_match``, ``_set_turn``).
MOVE_FIELDS = ["state", "seq", "status", "finished_at", "result", "turn_seat", "turn_deadline", "last_move_at"]


@dataclass
class MoveResult:
    game: Game
    move: Move
    events: list[Event]
    replayed: bool = False  # an Idempotency-Key retry: the first answer, not a second move
    # The game as the move left it, for the answer without reading it again:
    # its seats (players loaded) and engine state. None on a replay.
    seats: list[Seat] | None = None
    match: Match | None = None


# -- helpers ------------------------------------------------------------------

def _locked(game_id: int) -> Game:
    """The game row, locked until the transaction ends (its creator read along, unlocked)."""
    try:
        return Game.objects.select_related("creator").select_for_update(of=("self",)).get(pk=game_id)
    except Game.DoesNotExist:
        raise GameError("not_found", f"There is no game {game_id}.") from None


def _append_events(game: Game, payloads: list[dict[str, Any]]) -> list[Event]:
    rows = []
    for data in payloads:
        game.seq += 1
        rows.append(Event(game=game, seq=game.seq, type=data["type"], data=data))
    return Event.objects.bulk_create(rows)


def _publish_on_commit(game: Game, *, bot_turn: bool = False, seats: list[Seat] | None = None) -> None:
    """After commit: tell listeners and schedule the follow-up work (the next bot
    turn, the turn clock). Tasks carry the seq they expect and re-check it.
    ``seats``: the game's seats when the caller has them (whose accounts to tell)."""
    from games import dispatch  # late import: dispatch reaches Celery and Redis

    plan = dispatch.FollowUp(
        game_id=game.pk, seq=game.seq, bot_turn=bot_turn, bot_delay_ms=game.bot_delay_ms, deadline=game.turn_deadline,
        user_ids=None if seats is None else tuple(seat.player_id for seat in seats if seat.player_id is not None),
    )
    transaction.on_commit(lambda: dispatch.after_commit(plan))


def _record_lobby_event(game: Game, payload: dict[str, Any]) -> None:
    """Append one event that changes no engine state (a seat, a bot in the lobby),
    store the new seq and tell listeners on commit."""
    _append_events(game, [payload])
    game.save(update_fields=["seq"])
    _publish_on_commit(game)


def _record_seat_change(game: Game, payload: dict[str, Any]) -> None:
    """Append one event about a running game's seat (resigned, returned, handed to
    a bot): who controls the seat to move may have changed, so the turn's deadline
    and the bot follow-up are recomputed; store and tell listeners on commit."""
    _append_events(game, [payload])
    bot_turn = _set_turn(game, Match.from_dict(game.state))
    game.save()
    _publish_on_commit(game, bot_turn=bot_turn)


def _locked_seat(game: Game, number: int) -> Seat:
    seat = game.seats.select_for_update().filter(number=number).first()
    if seat is None:
        raise GameError("no_such_seat", f"Game {game.pk} has no seat {number}.")
    return seat


def _player_seat(game: Game, player: User) -> Seat:
    seat = game.seats.filter(player=player).first()
    if seat is None:
        raise GameError("not_seated", "You have no seat at this game.")
    return seat


def _require_status(game: Game, *statuses: str) -> None:
    if game.status in statuses:
        return
    codes = {
        GameStatus.OPEN: ("game_not_started", "The game has not started yet."),
        GameStatus.RUNNING: ("game_already_started", "The game has already started."),
        GameStatus.FINISHED: ("game_finished", "The game is over."),
        GameStatus.ABORTED: ("game_aborted", "The game was aborted."),
    }
    code, detail = codes[GameStatus(game.status)]
    raise GameError(code, detail)


def _require_creator(game: Game, user: User) -> None:
    if game.creator_id != user.pk:
        raise GameError("not_creator", "Only the game's creator may do that.")


def _set_turn(game: Game, match: Match, seats: list[Seat] | None = None) -> bool:
    """Keep the denormalised turn and its deadline in step with the engine state.
    Returns whether a server bot is to move (bot turns have no deadline).
    ``seats``: the game's seats, when the caller has them (saves a query)."""
    if match.status != engine.PLAYING or game.status != GameStatus.RUNNING:
        game.turn_seat = None
        game.turn_deadline = None
        return False
    game.turn_seat = match.turn
    if seats is not None:
        bot_turn = seats[match.turn].bot_controlled
    else:
        bot_turn = game.seats.filter(number=match.turn).exclude(bot_strategy="").exists()
    limit = game.turn_time_limit
    game.turn_deadline = timezone.now() + timedelta(seconds=limit) if limit and not bot_turn else None
    return bot_turn


# -- lobby --------------------------------------------------------------------

def game_create(
    *,
    creator: User,
    ruleset: dict[str, Any] | None = None,
    turn_time_limit: int | None = None,
    bot_delay_ms: int = 0,
    seed: int | None = None,
    setup: dict[str, Any] | None = None,
    sit: bool = True,
) -> Game:
    """Open a table. A fixed seed or a set-up position makes it a practice game."""
    rules = Ruleset.from_dict(ruleset)  # RulesetError -> 400 invalid_ruleset
    if setup is not None:
        engine.Setup.from_dict(setup, rules)  # validate now, not at the start
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise GameError("validation_error", f"seed must be 0 to {MAX_SEED}.", errors={"seed": ["out of range"]})
    with transaction.atomic():
        game = Game.objects.create(
            creator=creator,
            ruleset=rules.to_dict(),
            seed=secrets.randbelow(MAX_SEED) if seed is None else seed,
            setup=setup,
            practice=seed is not None or setup is not None,
            turn_time_limit=turn_time_limit,
            bot_delay_ms=bot_delay_ms,
        )
        Seat.objects.bulk_create(Seat(game=game, number=n) for n in range(rules.players))
        events = [{"type": "game_created", "creator": creator.username, "ruleset": rules.to_dict(), "practice": game.practice}]
        if sit:
            seat = game.seats.get(number=0)
            seat.player = creator
            seat.save(update_fields=["player"])
            events.append({"type": "seat_taken", "seat": 0, "player": creator.username, "is_bot": creator.is_bot})
        _append_events(game, events)
        game.save(update_fields=["seq"])
        _publish_on_commit(game)
    return game


def _free_seat(game: Game, number: int | None) -> Seat:
    seats = list(game.seats.select_for_update().order_by("number"))
    if number is None:
        free = next((s for s in seats if not s.is_taken), None)
        if free is None:
            raise GameError("game_full", "Every seat is taken.")
        return free
    if not 0 <= number < len(seats):
        raise GameError("no_such_seat", f"Seats are numbered 0 to {len(seats) - 1}.")
    if seats[number].is_taken:
        raise GameError("seat_taken", f"Seat {number} is taken.")
    return seats[number]


def game_join(*, game_id: int, player: User, seat: int | None = None) -> Game:
    with transaction.atomic():
        game = _locked(game_id)
        _require_status(game, GameStatus.OPEN)
        if game.seats.filter(player=player).exists():
            raise GameError("already_seated", "You already have a seat at this game.")
        free = _free_seat(game, seat)
        free.player = player
        free.save(update_fields=["player"])
        _record_lobby_event(game, {"type": "seat_taken", "seat": free.number, "player": player.username, "is_bot": player.is_bot})
    return game


def game_leave(*, game_id: int, player: User) -> Game:
    with transaction.atomic():
        game = _locked(game_id)
        _require_status(game, GameStatus.OPEN)
        seat = _player_seat(game, player)
        seat.player = None
        seat.save(update_fields=["player"])
        _record_lobby_event(game, {"type": "seat_left", "seat": seat.number, "player": player.username})
    return game


def game_add_bot(*, game_id: int, by: User, strategy: str, seat: int | None = None) -> Game:
    if strategy not in STRATEGIES:
        raise GameError("unknown_strategy", f"No bot strategy {strategy!r}; there are: {', '.join(sorted(STRATEGIES))}.")
    with transaction.atomic():
        game = _locked(game_id)
        _require_creator(game, by)
        _require_status(game, GameStatus.OPEN)
        free = _free_seat(game, seat)
        free.bot_strategy = strategy
        free.save(update_fields=["bot_strategy"])
        _record_lobby_event(game, {"type": "bot_added", "seat": free.number, "strategy": strategy})
    return game


def game_start(*, game_id: int, by: User) -> Game:
    with transaction.atomic():
        game = _locked(game_id)
        _require_creator(game, by)
        _require_status(game, GameStatus.OPEN)
        empty = [s.number for s in game.seats.all() if not s.is_taken]
        if empty:
            raise GameError("seats_not_filled", f"Seat(s) {', '.join(map(str, empty))} still empty: fill them (or add bots) first.")
        match, payloads = Match.new(Ruleset.from_dict(game.ruleset), game.seed, game.setup)
        game.status = GameStatus.RUNNING
        game.started_at = timezone.now()
        _append_events(game, [{"type": "game_started"}])
        _, bot_turn = _store_match(game, match, payloads)
        game.save()
        _publish_on_commit(game, bot_turn=bot_turn)
    return game


def game_abort(*, game_id: int, by: User, reason: str = "", as_moderator: bool = False) -> Game:
    """The creator may abort a table in the lobby. ``as_moderator``: a moderator
    aborts any unfinished game - only ``moderation.services`` passes it, having
    checked the moderation permission and recording the audit entry; the API
    never does."""
    if as_moderator:
        _require_staff(by)
    with transaction.atomic():
        game = _locked(game_id)
        if as_moderator:
            _require_status(game, GameStatus.OPEN, GameStatus.RUNNING)
        else:
            _require_creator(game, by)
            _require_status(game, GameStatus.OPEN)
        game.status = GameStatus.ABORTED
        game.abort_reason = reason
        game.finished_at = timezone.now()
        game.turn_seat = None
        game.turn_deadline = None
        _append_events(game, [{"type": "game_aborted", "by": by.username, "moderator": as_moderator, "reason": reason}])
        game.save()
        _publish_on_commit(game)
    return game


# -- playing ------------------------------------------------------------------

def _store_match(
    game: Game, match: Match, payloads: list[dict[str, Any]], seats: list[Seat] | None = None
) -> tuple[list[Event], bool]:
    """Store the engine's new state and its events; returns them and whether a
    server bot is to move next."""
    rows = _append_events(game, payloads)
    game.state = match.to_dict()
    if match.status == engine.ENDED:
        game.status = GameStatus.FINISHED
        game.finished_at = timezone.now()
        game.result = {"totals": match.totals, "winners": match.winners, "tie_break": match.tie_break}
    return rows, _set_turn(game, match, seats)


def _record(
    game: Game, seat: Seat, move: dict[str, Any], *, source: str, actor: User | None, idempotency_key: str = "",
    match: Match | None = None, seats: list[Seat] | None = None,
) -> MoveResult:
    """Apply one move to a locked, running game and store everything it changed.
    A ``RuleError`` propagates before anything is written. ``match`` and ``seats``:
    the game's engine state and seats, when the caller already read them."""
    match = match or Match.from_dict(game.state)
    round_number = match.round_number
    payloads = match.apply(seat.number, move)
    first_seq = game.seq + 1
    row = Move.objects.create(
        game=game, number=match.move_count, seq=first_seq, round=round_number, seat=seat.number,
        payload=EngineMove.from_dict(move).to_dict(), source=source, actor=actor, idempotency_key=idempotency_key,
    )
    events, bot_turn = _store_match(game, match, payloads, seats)
    game.last_move_at = timezone.now()
    game.save(update_fields=MOVE_FIELDS)
    _publish_on_commit(game, bot_turn=bot_turn, seats=seats)
    return MoveResult(game=game, move=row, events=events, seats=seats, match=match)


def _replay_idempotent(game: Game, actor: User, key: str, move: dict[str, Any]) -> MoveResult | None:
    first = Move.objects.filter(game=game, actor=actor, idempotency_key=key).first()
    if first is None:
        return None
    try:
        same = EngineMove.from_dict(move).to_dict() == first.payload
    except RuleError:
        same = False
    if not same:
        raise GameError("idempotency_key_reused", "This Idempotency-Key was already used for a different move.")
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
    with transaction.atomic():
        game = _locked(game_id)
        if idempotency_key:
            replay = _replay_idempotent(game, player, idempotency_key, move)
            if replay is not None:
                return replay
        _require_status(game, GameStatus.RUNNING)
        seats = list(game.seats.select_related("player"))  # with the players: the answer shows them
        seat = next((s for s in seats if s.player_id == player.pk), None)
        if seat is None:
            raise GameError("not_seated", "You have no seat at this game.")
        if seat.resigned:
            raise GameError("seat_resigned", "You resigned: a server bot plays your seat.")
        if seat.away:
            raise GameError("seat_away", "A bot plays your seat after repeated timeouts: POST .../return/ to take it back.")
        if expected_seq != game.seq:
            raise GameError("stale_seq", f"The game is at seq {game.seq}, not {expected_seq}: re-read it.", current_seq=game.seq)
        try:
            result = _record(game, seat, move, source=MoveSource.PLAYER, actor=player, idempotency_key=idempotency_key,
                             seats=seats)
        except IntegrityError:  # pragma: no cover - the row lock makes this unreachable; the constraint is the backstop
            raise GameError("stale_seq", "Another move was recorded first: re-read the game.", current_seq=game.seq) from None
        if seat.timeouts_in_row:
            seat.timeouts_in_row = 0
            seat.save(update_fields=["timeouts_in_row"])
        return result


def _choose(game: Game, match: Match, seat_number: int, strategy_name: str) -> dict[str, Any]:
    """A strategy's move for a seat, from exactly what that seat may see."""
    rng = random.Random(f"{game.seed}:{match.move_count}")
    return STRATEGIES[strategy_name].choose(engine.seat_view(match, seat_number), rng)


def bot_move(*, game_id: int, expected_seq: int) -> MoveResult | None:
    """A server bot's turn. Does nothing when the game has moved on since
    ``expected_seq`` or the seat to move is not a bot's (a duplicate or late task)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != GameStatus.RUNNING or game.seq != expected_seq:
            log.info("bot task for game %s at seq %s is stale (game %s)", game_id, expected_seq,
                     None if game is None else f"{game.status} at seq {game.seq}")
            return None  # gone, over, or moved on: this task is stale
        seats = list(game.seats.all())
        seat = seats[game.turn_seat]
        if not seat.bot_controlled:
            log.info("bot task for game %s at seq %s: seat %s is not a bot's", game_id, expected_seq, seat.number)
            return None
        match = Match.from_dict(game.state)
        move = _choose(game, match, seat.number, seat.bot_strategy)
        return _record(game, seat, move, source=MoveSource.BOT, actor=None, match=match, seats=seats)


def turn_timeout(*, game_id: int, expected_seq: int) -> MoveResult | None:
    """The turn clock ran out: move for the absent player with the fallback
    strategy; after ``AWAY_AFTER_TIMEOUTS`` in a row a bot keeps the seat until the
    player returns. Does nothing if the game moved on or the deadline is not due."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != GameStatus.RUNNING or game.seq != expected_seq:
            return None  # gone, over, or moved on: this task is stale
        if game.turn_deadline is None or game.turn_deadline > timezone.now():
            return None
        seats = list(game.seats.all())
        seat = seats[game.turn_seat]
        if seat.bot_controlled:
            return None
        seat.timeouts_in_row += 1
        notes = [{"type": "turn_timed_out", "seat": seat.number, "timeouts_in_row": seat.timeouts_in_row}]
        if seat.timeouts_in_row >= AWAY_AFTER_TIMEOUTS:
            seat.away = True
            seat.bot_strategy = FALLBACK_STRATEGY
            notes.append({"type": "seat_handed_to_bot", "seat": seat.number, "bot_strategy": FALLBACK_STRATEGY, "reason": "timeouts"})
        seat.save(update_fields=["timeouts_in_row", "away", "bot_strategy"])
        _append_events(game, notes)
        match = Match.from_dict(game.state)
        move = _choose(game, match, seat.number, FALLBACK_STRATEGY)
        return _record(game, seat, move, source=MoveSource.TIMEOUT, actor=None, match=match, seats=seats)


def seat_return(*, game_id: int, player: User) -> Game:
    """An away player takes their seat back from the bot."""
    with transaction.atomic():
        game = _locked(game_id)
        _require_status(game, GameStatus.RUNNING)
        seat = _player_seat(game, player)
        if not seat.away:
            raise GameError("seat_not_away", "Your seat is not played by a bot: nothing to take back.")
        seat.away = False
        seat.bot_strategy = ""
        seat.timeouts_in_row = 0
        seat.save(update_fields=["away", "bot_strategy", "timeouts_in_row"])
        _record_seat_change(game, {"type": "seat_returned", "seat": seat.number, "player": player.username})
    return game


@dataclass(frozen=True)
class PendingTurn:
    """Work a running game waits for from a worker: a server bot's move (due once
    the bot delay has passed) or a turn clock (due at the deadline)."""

    game_id: int
    seq: int
    kind: str  # "bot" or "timeout"
    due_at: datetime


def pending_turns() -> list[PendingTurn]:
    """Every running game's pending bot move or turn clock (the database is the
    record of what is due; a task on the broker is only a reminder of it)."""
    found: list[PendingTurn] = []
    running = Game.objects.filter(status=GameStatus.RUNNING)
    for game_id, seq, deadline in running.filter(turn_deadline__isnull=False).values_list("id", "seq", "turn_deadline"):
        found.append(PendingTurn(game_id, seq, "timeout", deadline))
    bots = running.filter(seats__number=models.F("turn_seat"), seats__bot_strategy__gt="")
    for game_id, seq, last, started, delay in bots.values_list("id", "seq", "last_move_at", "started_at", "bot_delay_ms"):
        since = last or started
        if since is not None:
            found.append(PendingTurn(game_id, seq, "bot", since + timedelta(milliseconds=delay)))
    return found


def overdue_games(*, now: Any = None, bot_grace: timedelta = timedelta(seconds=5)) -> list[tuple[int, int, str]]:
    """Games whose follow-up work seems lost: a turn deadline passed, or a bot to
    move with no move for ``bot_grace`` past its delay. Returns ``(id, seq, kind)``."""
    now = now or timezone.now()
    return [(t.game_id, t.seq, t.kind) for t in pending_turns()
            if t.due_at + (bot_grace if t.kind == "bot" else timedelta(0)) < now]


def game_resign(*, game_id: int, player: User, strategy: str = FALLBACK_STRATEGY) -> Game:
    """Hand the player's seat to a server bot so the table can finish."""
    with transaction.atomic():
        game = _locked(game_id)
        _require_status(game, GameStatus.RUNNING)
        seat = _player_seat(game, player)
        if seat.resigned:
            raise GameError("seat_resigned", "You already resigned.")
        seat.resigned = True
        seat.away = False
        seat.bot_strategy = strategy
        seat.save(update_fields=["resigned", "away", "bot_strategy"])
        _record_seat_change(game, {"type": "seat_resigned", "seat": seat.number, "player": player.username,
                                   "bot_strategy": strategy})
    return game


# -- moderation ---------------------------------------------------------------
# Staff actions on a game. The admin (moderation app) calls these and records the
# audit entry; the events they append tell every client that a moderator acted.

def _require_staff(user: User) -> None:
    if not user.is_staff:
        raise GameError("permission_denied", "Only staff may do that.")


def seat_hand_to_bot(*, game_id: int, seat_number: int, by: User, reason: str = "", strategy: str = FALLBACK_STRATEGY) -> Game:
    """A moderator hands a running game's seat to a server bot (for good: the player
    cannot take it back with ``return``)."""
    _require_staff(by)
    with transaction.atomic():
        game = _locked(game_id)
        _require_status(game, GameStatus.RUNNING)
        seat = _locked_seat(game, seat_number)
        seat.bot_strategy = strategy
        seat.away = False
        seat.resigned = seat.player_id is not None
        seat.save(update_fields=["bot_strategy", "away", "resigned"])
        _record_seat_change(game, {"type": "seat_handed_to_bot", "seat": seat_number, "bot_strategy": strategy,
                                   "reason": "moderator", "moderator": True, "note": reason})
    return game


def seat_remove(*, game_id: int, seat_number: int, by: User, reason: str = "") -> Game:
    """A moderator empties a seat of a game that has not started."""
    _require_staff(by)
    with transaction.atomic():
        game = _locked(game_id)
        _require_status(game, GameStatus.OPEN)
        seat = _locked_seat(game, seat_number)
        if not seat.is_taken:
            raise GameError("seat_empty", f"Seat {seat_number} is already empty.")
        who = seat.player.username if seat.player_id else f"bot:{seat.bot_strategy}"
        seat.player = None
        seat.bot_strategy = ""
        seat.save(update_fields=["player", "bot_strategy"])
        _record_lobby_event(game, {"type": "seat_left", "seat": seat_number, "player": who, "moderator": True, "note": reason})
    return game


def player_withdraw(*, player: User, by: User, reason: str = "") -> list[int]:
    """Take a (suspended) player out of every table: their seats in running games go
    to bots, their open tables are aborted, their seats at others' open tables are
    emptied. Returns the ids of the games touched. Each game is its own transaction."""
    _require_staff(by)
    touched: list[int] = []
    for seat in Seat.objects.filter(player=player, game__status=GameStatus.RUNNING).exclude(resigned=True):
        seat_hand_to_bot(game_id=seat.game_id, seat_number=seat.number, by=by, reason=reason)
        touched.append(seat.game_id)
    for game_id in Game.objects.filter(creator=player, status=GameStatus.OPEN).values_list("id", flat=True):
        game_abort(game_id=game_id, by=by, reason=reason, as_moderator=True)
        touched.append(game_id)
    for seat in Seat.objects.filter(player=player, game__status=GameStatus.OPEN):
        seat_remove(game_id=seat.game_id, seat_number=seat.number, by=by, reason=reason)
        touched.append(seat.game_id)
    return touched
