"""The one path for every state change of a game.

Every service that changes a game - a move, a lobby action, a bot's turn, a turn
clock, a moderator's action - does it inside ``game_change`` (or
``game_change_new`` for a table that does not exist yet)::

    with game_change(game_id) as change:       # transaction + the game row locked (and re-read)
        require_status(change.game, ...)        # check against what is locked
        change.seat_update(seat, player=...)    # the seats, through the change
        change.match_store(match, payloads)     # the engine's new state and its events
        # or change.move_record(...), change.events_append(...), change.mark_moderated()

When the block ends without an exception, the change saves the fields it
touched and registers, for after the commit, ``games.signals.committed``: live
play's hook sends the notice to live listeners and the follow-up task (the next
bot turn, the turn clock: ``live.dispatch``, above this layer); a change
that finishes the match first sends ``games.signals.match_finished``, inside the
transaction (ratings are updated with the final move, or not at all).  An
exception rolls everything back and nothing is published.  A block that changes
nothing writes and publishes nothing.

This module is the only one that writes ``Game``, ``Seat``, ``Move`` and
``Event`` rows (``tests/contract/test_architecture.py`` checks it), so the row
lock, the event log and the follow-ups cannot be forgotten by a new service.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import cache, lru_cache
from typing import Any, TypeVar

import orjson
from django.db import DEFAULT_DB_ALIAS, connection, connections, router, transaction
from django.db.models import Field, Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from django.utils import timezone

from core.errors import CoreCode
from games import engine, signals
from games.engine import Match
from games.engine import Move as EngineMove
from games.errors import GameError
from games.models import Event, Game, GameStatus, Move, Seat
from players.models import User

_M = TypeVar("_M", bound=Model)


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


class GameChange:
    """A locked game and what one state change does to it (see the module's doc)."""

    def __init__(self, game: Game, seats: list[Seat] | None = None) -> None:
        self.game = game
        #: The game's seats in seat order with their players, when the change was
        #: opened with ``seats=True`` (read with the row, in the same statement).
        self.seats = seats
        self.replayed_move_id: int | None = None
        self.events: list[Event] = []
        self._fields: set[str] = set()
        self._bot_turn = False
        self._notify_seats: list[Seat] | None = None
        # Rows written when the change ends, with the game's row, in one statement.
        self._new_events: list[Event] = []
        self._new_moves: list[Move] = []
        self._finished = False  # this change ended the match (games.signals.match_finished)

    # -- what a change may do ---------------------------------------------------

    def update(self, **values: Any) -> None:
        """Set fields of the game row (saved when the change ends)."""
        for name, value in values.items():
            setattr(self.game, name, value)
        self._fields.update(values)

    def events_append(self, *payloads: dict[str, Any]) -> list[Event]:
        """Append events to the game's log, each with the next seq (written when the
        change ends, with the game's row)."""
        now = timezone.now()
        rows = []
        for data in payloads:
            self.game.seq += 1
            rows.append(
                _new_row(
                    Event,
                    {"game": self.game},
                    id=None,
                    game_id=self.game.pk,
                    seq=self.game.seq,
                    type=data["type"],
                    data=data,
                    created_at=now,
                )
            )
        self._new_events += rows
        self.events += rows
        self._fields.add("seq")
        return rows

    def seat_update(self, seat: Seat, **values: Any) -> None:
        """Change one of the game's seats (read under this change's lock)."""
        if seat.game_id != self.game.pk:
            raise ValueError(f"seat {seat.pk} is not a seat of game {self.game.pk}")
        for name, value in values.items():
            setattr(seat, name, value)
        seat.save(update_fields=list(values))
        # The game row is written too, even when nothing else changes: a change that
        # waited for the lock can then tell that what it read along was stale (_lock_with_seats).
        self._fields.add("seq")

    def turn_recompute(self, match: Match | None = None, seats: list[Seat] | None = None) -> None:
        """Keep the denormalised turn and its deadline in step with the engine state,
        and note whether a server bot is to move (bot turns have no deadline).
        ``seats``: the game's seats, when the caller has them (saves a query)."""
        game = self.game
        match = match or Match.from_dict(game.state)
        self._fields.update(("turn_seat", "turn_deadline"))
        if match.status != engine.PLAYING or game.status != GameStatus.RUNNING:
            game.turn_seat = None
            game.turn_deadline = None
            self._bot_turn = False
            return
        game.turn_seat = match.turn
        if seats is not None:
            bot_turn = seats[match.turn].bot_controlled
        else:
            bot_turn = game.seats.filter(number=match.turn).exclude(bot_strategy="").exists()
        limit = game.turn_time_limit
        game.turn_deadline = timezone.now() + timedelta(seconds=limit) if limit and not bot_turn else None
        self._bot_turn = bot_turn

    def match_store(self, match: Match, payloads: list[dict[str, Any]], seats: list[Seat] | None = None) -> list[Event]:
        """Store the engine's new state and its events (and the result when the
        match has ended); recompute the turn."""
        rows = self.events_append(*payloads)
        self.update(state=match.to_dict())
        if match.status == engine.ENDED:
            self.update(
                status=GameStatus.FINISHED,
                finished_at=timezone.now(),
                result={"totals": match.totals, "winners": match.winners, "tie_break": match.tie_break},
            )
            self._finished = True
        self.turn_recompute(match, seats)
        return rows

    def move_record(
        self,
        seat: Seat,
        move: dict[str, Any],
        *,
        source: str,
        actor: User | None,
        idempotency_key: str = "",
        match: Match | None = None,
        seats: list[Seat] | None = None,
    ) -> MoveResult:
        """Apply one move to the running game through the engine and store
        everything it changed. A ``RuleError`` propagates before anything is
        written. ``match`` and ``seats``: the game's engine state and seats, when
        the caller already read them (``seats`` also say whom to notify)."""
        game = self.game
        match = match or Match.from_dict(game.state)
        round_number = match.round_number
        payloads = match.apply(seat.number, move)
        row = _new_row(
            Move,
            {"game": game, "actor": actor},
            id=None,
            game_id=game.pk,
            number=match.move_count,
            seq=game.seq + 1,
            round=round_number,
            seat=seat.number,
            payload=EngineMove.from_dict(move).to_dict(),
            source=source,
            actor_id=None if actor is None else actor.pk,
            idempotency_key=idempotency_key,
            created_at=timezone.now(),
        )
        self._new_moves.append(row)
        events = self.match_store(match, payloads, seats)
        self.update(last_move_at=timezone.now())
        self._notify_seats = seats
        return MoveResult(game=game, move=row, events=events, seats=seats, match=match)

    def mark_moderated(self) -> None:
        """A moderator acted on this game (clients see ``moderated``)."""
        if not self.game.moderated:
            self.update(moderated=True)

    # -- the end of the change ----------------------------------------------------

    def _finish(self) -> None:
        if not self._fields:
            return  # nothing changed: nothing to write or tell
        _write(self.game, sorted(self._fields), self._new_moves, self._new_events)
        plan = self._written()
        transaction.on_commit(lambda: signals.committed(plan))

    def _written(self) -> signals.FollowUp:
        """What follows a change whose rows are written: ``match_finished`` if it
        ended the match (now, in the transaction), and the plan for after the commit."""
        game, seats = self.game, self._notify_seats
        if self._finished:
            finished_seats = self.seats or seats or list(game.seats.select_related("player").order_by("number"))
            signals.match_finished.send(sender=Game, game=game, seats=finished_seats)
        return signals.FollowUp(
            game_id=game.pk,
            seq=game.seq,
            bot_turn=self._bot_turn,
            bot_delay_ms=game.bot_delay_ms,
            user_ids=None if seats is None else tuple(s.player_id for s in seats if s.player_id is not None),
            # What live listeners are told, without reading it back: the change's events end at seq.
            status=game.status if self._new_events else None,
            events=tuple(self._new_events) if self._new_events else None,
            move_sources=tuple(str(move.source) for move in self._new_moves),
        )


def _new_row(model: type[_M], related: dict[str, Model | None], **values: Any) -> _M:
    """``model(game=..., ...)``, a new row of the commit path (a move, an event),
    made as ``Model.__init__`` makes it: ``values`` holds every column by its
    attribute name (a relation's id: ``game_id``), and ``related`` the related
    objects, kept in the instance's cache as assigning them keeps them - without
    ``__init__``'s walk over the model's fields and keyword arguments, a cost of
    every move's rows (docs/performance.md, "Measurements behind the code").
    ``pre_init``/``post_init`` go unsent while nothing listens to them (nothing
    does); once something does, the rows are made by ``__init__`` again.
    ``tests/api/test_move_statements.py`` holds the two ways equal."""
    if pre_init.receivers or post_init.receivers:
        return model(**{name: value for name, value in values.items() if name not in _related_ids(model)}, **related)
    row = model.__new__(model)
    row.__dict__.update(values)
    row._state = ModelState()
    row._state.fields_cache = dict(related)
    for obj in related.values():
        if obj is not None:  # the database a related object's assignment picks for the row
            row._state.db = router.db_for_write(model, instance=obj)
            break
    return row


@cache
def _related_ids(model: type[Model]) -> frozenset[str]:
    return frozenset(f.attname for f in model._meta.concrete_fields if f.is_relation)


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    """A concrete field of ``model`` (one with a column)."""
    field = model._meta.get_field(name)
    assert isinstance(field, Field), f"{model.__name__}.{name} has no column"
    return field


def _write(game: Game, fields: list[str], moves: list[Move], events: list[Event]) -> None:
    """Save ``fields`` of the game row and insert its new moves and events.

    Fast twin (PostgreSQL) of the portable branch below; ``tests/api/test_move_statements.py``
    keeps the two equal. On PostgreSQL that is one statement (the inserts are data-modifying WITH clauses of
    the UPDATE): one round trip and no ORM query building on the path of every move."""
    if connection.vendor != "postgresql":
        Move.objects.bulk_create(moves)
        Event.objects.bulk_create(events)
        game.save(update_fields=fields)
        return
    # The connection itself, not the ``connection`` proxy, which looks it up in a
    # context-local store on every attribute: once here, not once a value.
    db = connections[DEFAULT_DB_ALIAS]
    params = []
    for model, rows in ((Move, moves), (Event, events)):
        columns = _insert_columns(model)
        params += [f.get_db_prep_save(getattr(row, f.attname), db) for row in rows for f in columns]
    targets = [_field(Game, name) for name in fields]
    params += [f.get_db_prep_save(getattr(game, f.attname), db) for f in targets]
    with db.cursor() as cursor:
        cursor.execute(_write_sql(tuple(fields), len(moves), len(events)), [*params, game.pk])


def _insert(model: type[Model], rows: list[Any]) -> None:
    """Insert ``rows`` (new ``model`` instances) in one statement and set their keys.

    Fast twin (PostgreSQL) of ``bulk_create``: a plain ``INSERT ... VALUES`` - Django
    5.2's bulk insert sends each column as an array (``UNNEST``), and psycopg escapes
    every quote of a JSON value (a dealt match's state) in Python on the way: a large
    part of a burst's tables (docs/performance.md, "Quick play")."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(rows)
        return
    columns = _insert_columns(model)
    params = [f.get_db_prep_save(f.pre_save(row, True), connection) for row in rows for f in columns]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model, len(rows)), params)
        keys = cursor.fetchall()
    for row, (key,) in zip(rows, keys, strict=True):  # PostgreSQL returns them in the VALUES' order
        row.pk = key
        row._state.adding = False
        row._state.db = connection.alias


@lru_cache(maxsize=64)
def _insert_sql(model: type[Model], count: int) -> str:
    quote = connection.ops.quote_name
    columns = _insert_columns(model)
    values = ", ".join("(" + ", ".join(["%s"] * len(columns)) + ")" for _ in range(count))
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(str(f.column)) for f in columns)}) "
        f"VALUES {values} RETURNING {quote(str(model._meta.pk.column))}"
    )


@cache
def _insert_columns(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    """The columns ``_write`` inserts of ``model`` (all but the key), shared by every call: a tuple."""
    return tuple(f for f in model._meta.concrete_fields if not f.primary_key)


@lru_cache(maxsize=256)  # shapes are few: the fields a change sets, 0-1 moves, a handful of events
def _write_sql(fields: tuple[str, ...], moves: int, events: int) -> str:
    """``_write``'s statement (PostgreSQL) for these game fields and this many new
    moves and events: written out once per shape, not on every move."""
    quote = connection.ops.quote_name
    parts = []
    for model, count in ((Move, moves), (Event, events)):
        if not count:
            continue
        columns = _insert_columns(model)
        values = ", ".join("(" + ", ".join(["%s"] * len(columns)) + ")" for _ in range(count))
        parts.append(
            f"{quote(model._meta.db_table + '_new')} AS (INSERT INTO {quote(model._meta.db_table)} "
            f"({', '.join(quote(str(f.column)) for f in columns)}) VALUES {values})"
        )
    targets = [_field(Game, name) for name in fields]
    head = f"WITH {', '.join(parts)} " if parts else ""
    return (
        f"{head}UPDATE {quote(Game._meta.db_table)} SET {', '.join(f'{quote(str(f.column))} = %s' for f in targets)} "
        f"WHERE {quote(str(_field(Game, 'id').column))} = %s"
    )


class GameGone(GameError):
    """There is no game with that id (``not_found``)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(CoreCode.NOT_FOUND, f"There is no game {game_id}.")


def _lock(game_id: int) -> Game:
    """The game row, locked until the transaction ends (its creator read along, unlocked)."""
    try:
        return Game.objects.select_related("creator").select_for_update(of=("self",)).get(pk=game_id)
    except Game.DoesNotExist:
        raise GameGone(game_id) from None


# The game row locked, its creator, and its seats with their players, in one statement.
_PLAYER_FIELDS = ("id", "username", "is_bot")
_SEAT_FIELDS = ("id", "game_id", "number", "player_id", "bot_strategy", "resigned", "away", "timeouts_in_row")


def _seats_and_replay(game: Game, replay_of: tuple[int, str] | None) -> tuple[list[Seat], int | None]:
    """The game's seats with their players, and the id of the move ``replay_of`` =
    (actor id, Idempotency-Key) names (None: none), read now."""
    replayed = None
    if replay_of is not None:
        actor_id, key = replay_of
        moves = Move.objects.filter(game=game, actor_id=actor_id, idempotency_key=key).exclude(idempotency_key="")
        replayed = moves.values_list("pk", flat=True).first()
    return list(game.seats.select_related("player").order_by("number")), replayed


def _converters(model: type[Model], names: list[str]) -> list[tuple[int, list[Any], Any]]:
    """(position, converters, column expression) of each of ``names`` (fields of
    ``model``) whose database value needs converting, as the ORM would convert it."""
    found = []
    for position, name in enumerate(names):
        field = _field(model, name)
        column = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
        if converters:
            found.append((position, converters, column))
    return found


def _from_row(model: type[Model], names: list[str], values: list[Any], converters: list[Any]) -> Any:
    """A ``model`` instance of a row read with a plain cursor (the ORM's conversions applied)."""
    db = connections[DEFAULT_DB_ALIAS]
    for position, functions, column in converters:
        value = values[position]
        for function in functions:
            value = function(value, column, db)
        values[position] = value
    return model.from_db(DEFAULT_DB_ALIAS, names, values)


@lru_cache(maxsize=1)
def _lock_with_seats_sql() -> tuple[str, list[str], list[Any]]:
    """The statement of ``_lock_with_seats`` (PostgreSQL), the game's fields in the
    order it reads them and their converters: written out once per process."""
    game_names = [f.attname for f in Game._meta.concrete_fields]
    game_columns = ", ".join(f"g.{connection.ops.quote_name(str(_field(Game, n).column))}" for n in game_names)
    seat_columns = ", ".join(f"s.{_field(Seat, f).column}" for f in _SEAT_FIELDS)
    player_columns = ", ".join(f"p.{f}" for f in _PLAYER_FIELDS)
    # The creator and each seat's player (null for an empty seat) are looked up by
    # their keys, not joined: joined, PostgreSQL hash-joined the whole account table on
    # every move while it had a few hundred accounts (docs/performance.md).
    sql = (
        f"SELECT {game_columns}, "
        f"(SELECT json_build_array(c.username, c.is_bot) FROM {User._meta.db_table} c "
        f"WHERE c.id = g.creator_id)::text, "
        f"(SELECT coalesce(json_agg(json_build_array({seat_columns}, "
        f"(SELECT json_build_array({player_columns}) FROM {User._meta.db_table} p WHERE p.id = s.player_id)"
        f") ORDER BY s.number), '[]') "
        f"FROM {Seat._meta.db_table} s WHERE s.game_id = g.id)::text, "
        f"(SELECT m.id FROM {Move._meta.db_table} m WHERE m.game_id = g.id AND m.actor_id = %s "
        f"AND m.idempotency_key = %s AND m.idempotency_key <> ''), "
        # The row as this statement's snapshot sees it, against the row locked: when they
        # differ, another change committed while this one waited for the lock, and the
        # seats and moves read along (as of the snapshot) are read again.
        f"g.xmin::text = (SELECT x.xmin::text FROM {Game._meta.db_table} x WHERE x.id = g.id) "
        f"FROM {Game._meta.db_table} g "
        f"WHERE g.id = %s FOR UPDATE OF g"
    )
    return sql, game_names, _converters(Game, game_names)


def _lock_with_seats(game_id: int, replay_of: tuple[int, str] | None) -> tuple[Game, list[Seat], int | None]:
    """Fast twin (PostgreSQL) of the portable branch below (``_lock``, ``_seats_and_replay``);
    ``tests/api/test_move_statements.py`` keeps the two equal.

    The game row locked (creator read along), its seats in seat order with their
    players (``id``, ``username``, ``is_bot`` loaded; any other field of a player is
    read when asked for) and, for ``replay_of`` = (actor id, Idempotency-Key), the id
    of the move that actor already made with that key (None: none), in one round trip
    (a plain cursor: this runs on every move, so it skips the ORM's raw-query machinery)."""
    if connection.vendor != "postgresql":
        game = _lock(game_id)
        return game, *_seats_and_replay(game, replay_of)
    sql, game_names, converters = _lock_with_seats_sql()
    actor_id, key = replay_of if replay_of is not None else (None, "")
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, [actor_id, key, game_id])
        row = cursor.fetchone()
    if row is None:
        raise GameGone(game_id)
    count = len(game_names)
    game = _from_row(Game, game_names, list(row[:count]), converters)
    creator, rows, replayed, unchanged = row[count:]
    game.creator = User.from_db(DEFAULT_DB_ALIAS, list(_PLAYER_FIELDS), [game.creator_id, *orjson.loads(creator)])
    if not unchanged:
        return game, *_seats_and_replay(game, replay_of)
    seats = []
    for *values, player in orjson.loads(rows):
        seat = Seat.from_db(DEFAULT_DB_ALIAS, list(_SEAT_FIELDS), values)
        seat.game = game
        seat.player = None if player is None else User.from_db(DEFAULT_DB_ALIAS, list(_PLAYER_FIELDS), player)
        seats.append(seat)
    return game, seats, replayed


@contextmanager
def game_change(game_id: int, *, seats: bool = False, replay_of: tuple[int, str] | None = None) -> Iterator[GameChange]:
    """One state change of game ``game_id``: a transaction with the row locked;
    ``GameGone`` (``not_found``) if there is no such game. ``seats``: read the seats
    (with their players) along with the row: ``change.seats``; and with ``replay_of``
    = (actor id, Idempotency-Key), the id of the move it already made with that key:
    ``change.replayed_move_id``."""
    with transaction.atomic():
        if seats:
            game, game_seats, replayed = _lock_with_seats(game_id, replay_of)
            change = GameChange(game, game_seats)
            change.replayed_move_id = replayed
        else:
            change = GameChange(_lock(game_id))
        yield change
        change._finish()


@contextmanager
def game_change_new(
    *, seats: int, seat_fields: list[dict[str, Any]] | None = None, **fields: Any
) -> Iterator[GameChange]:
    """A new table with ``seats`` seats, as the first change of its life: empty, or
    taken as ``seat_fields`` says (one dict of ``Seat`` fields a seat; ``change.seats``
    then holds them, in seat order)."""
    with transaction.atomic():
        game = Game.objects.create(**fields)
        made = Seat.objects.bulk_create(
            Seat(game=game, number=n, **(seat_fields[n] if seat_fields else {})) for n in range(seats)
        )
        change = GameChange(game, made if seat_fields else None)
        yield change
        change._finish()


@contextmanager
def game_changes_new(tables: Sequence[tuple[list[dict[str, Any]], dict[str, Any]]]) -> Iterator[list[GameChange]]:
    """Many new tables, each taken as its ``seat_fields`` say (one dict of ``Seat``
    fields a seat), as the first change of each one's life: what ``game_change_new``
    does for each, with every table's rows written together when the block ends - the
    games in one INSERT, their seats in one, their events in one (quick play's burst
    of tables: three statements, not three a table) - and one notice for them all
    after the commit (``games.signals.committed_many``: one Redis write). The block
    may append events, store a match and update fields (``change.seats`` holds the
    seats, in seat order, unsaved until the block ends); an exception writes nothing."""
    with transaction.atomic():
        changes = []
        for seat_fields, fields in tables:
            game = Game(**fields)
            seats = [Seat(game=game, number=n, **values) for n, values in enumerate(seat_fields)]
            change = GameChange(game, seats)
            change._notify_seats = seats  # who is told: known, no need to read them back
            changes.append(change)
        yield changes
        if not changes:
            return
        _insert(Game, [c.game for c in changes])  # the keys come back
        for change in changes:  # the rows made before their game had a key
            for row in (*(change.seats or ()), *change._new_events, *change._new_moves):
                row.game_id = change.game.pk
        _insert(Seat, [seat for c in changes for seat in c.seats or ()])
        _insert(Event, [event for c in changes for event in c._new_events])
        _insert(Move, [move for c in changes for move in c._new_moves])
        plans = [change._written() for change in changes]
        transaction.on_commit(lambda: signals.committed_many(plans))


def locked_seats(change: GameChange) -> list[Seat]:
    """The game's seats, locked, in seat order."""
    return list(change.game.seats.select_for_update().order_by("number"))


def games_purge(*, creator: User) -> int:
    """Delete every game ``creator`` opened, with its seats, moves and events (for
    tools that clean up their own benchmark tables: nobody is told). Returns how
    many games went."""
    _, by_model = Game.objects.filter(creator=creator).delete()
    return by_model.get(Game._meta.label, 0)
