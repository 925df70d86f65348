"""Persistence of games: the game row (with the engine state), seats, the move log,
the event log. No behaviour lives here: every change goes through ``services``."""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from django.db import models
from django.db.models import Q


class DocumentField(models.JSONField):
    """A JSON document the database keeps but never looks inside (the engine
    state, rewritten whole on every move). On PostgreSQL it is stored as
    ``text``: ``jsonb`` parses every write into its binary form, which pgbench
    measured far slower than lz4-compressed text (which migration 0003 turns on
    where the server has lz4; docs/performance.md). Elsewhere it is a plain
    ``JSONField``."""

    def db_type(self, connection: Any) -> str | None:
        return "text" if connection.vendor == "postgresql" else super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        value = value if prepared else self.get_prep_value(value)
        if value is None:
            return None
        # orjson: the state is written on every move, and orjson encodes it faster than json.
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if connection.vendor != "postgresql" or value is None:
            return super().from_db_value(value, expression, connection)
        return orjson.loads(value)  # ... and read on every move


class GameStatus(models.TextChoices):
    OPEN = "open", "open"  # in the lobby: seats may be taken
    RUNNING = "running", "running"
    FINISHED = "finished", "finished"
    ABORTED = "aborted", "aborted"


class Game(models.Model):
    # No index of its own: ``game_creator`` (creator, id) serves every lookup by creator.
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games", db_index=False
    )
    status = models.CharField(max_length=16, choices=GameStatus.choices, default=GameStatus.OPEN, db_index=True)
    ruleset = models.JSONField(help_text="The engine ruleset, fixed at creation.")
    seed = models.BigIntegerField(help_text="Shuffle seed; shown to players only after the end (or in practice games).")
    setup = models.JSONField(null=True, blank=True, help_text="A given first-round position (practice games).")
    practice = models.BooleanField(default=False, help_text="Unrated; the seed is visible from the start.")
    rated = models.BooleanField(
        default=False, help_text="The final standings change the players' ratings (never a practice game)."
    )
    turn_time_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Seconds per turn, or none.")
    bot_delay_ms = models.PositiveIntegerField(default=0, help_text="Pause before a server bot moves.")
    bot_strategy = models.CharField(
        max_length=32,
        default="greedy",
        help_text="The table's bot level: the strategy that plays a seat on a timeout, after repeated "
        "timeouts or a resignation.",
    )
    state = DocumentField(null=True, blank=True, help_text="The engine's full state (hidden parts included).")
    seq = models.PositiveIntegerField(default=0, help_text="Sequence number of the last event.")
    turn_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    result = models.JSONField(null=True, blank=True)
    abort_reason = models.TextField(blank=True)
    moderated = models.BooleanField(default=False, help_text="A moderator acted on this game (see the audit trail).")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_move_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            # One account's games from its own index entries (docs/performance.md, "Hot paths
            # on a large database"): the games it created, newest first (the lobby's "mine") ...
            models.Index(fields=["creator", "id"], name="game_creator"),
            # ... and whether a seat's game is on the player's record (finished, not practice),
            # answered by this small index alone (the record's count and page).
            models.Index(fields=["id"], condition=Q(status="finished", practice=False), name="game_listed"),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} ({self.status})"

    @property
    def seat_count(self) -> int:
        return int(self.ruleset["players"])


class Seat(models.Model):
    """A place at the table: a player (human or bot account), or a server bot."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    # No index of its own: ``seat_player_game`` (player, game) serves every lookup by player.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
        db_index=False,
    )
    bot_strategy = models.CharField(max_length=32, blank=True, help_text="Set when a server bot plays this seat.")
    resigned = models.BooleanField(default=False)
    away = models.BooleanField(
        default=False, help_text="Handed to a bot after repeated timeouts, until the player returns."
    )
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["game_id", "number"]
        indexes = [
            # A player's games (the profile's list and its count, the lobby's "mine", the
            # account stream) read the player's seats from this index alone, in game order,
            # not one table page a seat (docs/performance.md, "Hot paths on a large database").
            models.Index(fields=["player", "game"], name="seat_player_game"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_unique_number"),
            models.UniqueConstraint(
                fields=["game", "player"], condition=Q(player__isnull=False), name="seat_unique_player"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} of game {self.game_id}"

    @property
    def is_taken(self) -> bool:
        return self.player_id is not None or bool(self.bot_strategy)

    @property
    def bot_controlled(self) -> bool:
        """A server bot moves this seat (a bot seat, a resigned or an away player)."""
        return bool(self.bot_strategy)


class MoveSource(models.TextChoices):
    PLAYER = "player", "player"
    BOT = "bot", "server bot"
    TIMEOUT = "timeout", "turn clock"


class Move(models.Model):
    """One accepted move, in order: with ruleset + seed + setup it replays the match."""

    # No index of its own: ``move_unique_number`` (game, number) serves every
    # lookup by game, and each index is one more insert on every move.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    number = models.PositiveIntegerField(help_text="1, 2, ... within the game.")
    seq = models.PositiveIntegerField(help_text="Sequence number of the move's first event.")
    round = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    payload = models.JSONField(help_text='The move as the engine reads it, e.g. {"type": "draw"}.')
    source = models.CharField(max_length=16, choices=MoveSource.choices, default=MoveSource.PLAYER)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    idempotency_key = models.CharField(max_length=128, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="move_unique_number"),
            models.UniqueConstraint(
                fields=["game", "actor", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="move_unique_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} move {self.number} (seat {self.seat})"


class Event(models.Model):
    """The public event log: everything a spectator may know, numbered by ``seq``."""

    # No index of its own: ``event_unique_seq`` (game, seq) serves every lookup by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq")]

    def __str__(self) -> str:
        return f"game {self.game_id} event {self.seq}: {self.type}"
