"""The answers served on every move and every poll, built as plain dicts.

Fast twin of ``games/serializers.py`` (the contract's shapes); ``tests/api/test_output.py``
keeps the two equal.

``games.serializers`` declares these shapes for the contract (``openapi.yaml``).
Building them through DRF's nested serializers is slow (every nested serializer
deep-copies its declared fields each time it is made; docs/performance.md,
"Measurements behind the code"), so the hot answers - a game as one viewer sees
it, a move's answer, events and the lobby list - are built here instead. ``tests/api/test_output.py``
checks, on games in every status and for every kind of viewer, that each
builder answers exactly what its serializer would.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from rest_framework.fields import DateTimeField

from games import selectors
from games.models import Event, Game, Move, Seat
from games.selectors import GameView
from players.models import User

_datetime = DateTimeField()  # the same text DRF gives (ISO 8601, "Z" for UTC)

RULESET_FIELDS = ("set_max", "players", "hand_size", "spinner_arms", "rounds", "double_blank_points")
MOVE_FIELDS = ("type", "tile", "end")


def _time(value: datetime | None) -> str | None:
    """What DRF's ``DateTimeField`` writes; for an aware time while the current
    time zone is UTC (always, unless a request activated another), the same text
    without its field's machinery (a move's answer carries several times)."""
    if value is None:
        return None
    if value.tzinfo is not None and timezone.get_current_timezone_name() == "UTC":
        text = value.astimezone(UTC).isoformat()
        return text[:-6] + "Z"  # isoformat of a UTC time ends in +00:00
    return _datetime.to_representation(value)


def ruleset_output(ruleset: dict[str, Any]) -> dict[str, Any]:
    return {name: ruleset[name] for name in RULESET_FIELDS}


def seat_output(seat: Seat) -> dict[str, Any]:
    player = seat.player
    return {
        "number": seat.number,
        "player": None if player is None else {"id": player.pk, "username": player.username, "is_bot": player.is_bot},
        "bot_strategy": seat.bot_strategy,
        "is_bot": bool(seat.bot_strategy) or bool(player is not None and player.is_bot),
        "resigned": seat.resigned,
    }


def game_summary_output(game: Game, seats: Iterable[Seat] | None = None) -> dict[str, Any]:
    """``GameSummaryOutput``; ``seats`` in seat order, players loaded (default: the prefetched ones)."""
    result = game.result
    return {
        "id": game.pk,
        "status": str(game.status),
        "creator": game.creator.username,
        "ruleset": ruleset_output(game.ruleset),
        "practice": game.practice,
        "rated": game.rated,
        "turn_time_limit": game.turn_time_limit,
        "bot_delay_ms": game.bot_delay_ms,
        "bot_strategy": game.bot_strategy,
        "seq": game.seq,
        "turn_seat": game.turn_seat,
        "turn_deadline": _time(game.turn_deadline),
        "seats": [seat_output(seat) for seat in (game.seats.all() if seats is None else seats)],
        "result": None
        if result is None
        else {"totals": result["totals"], "winners": result["winners"], "tie_break": result["tie_break"]},
        "abort_reason": game.abort_reason,
        "moderated": game.moderated,
        "created_at": _time(game.created_at),
        "started_at": _time(game.started_at),
        "finished_at": _time(game.finished_at),
    }


def move_body_output(body: dict[str, Any]) -> dict[str, Any]:
    return {name: body[name] for name in MOVE_FIELDS if name in body}


def game_output(view: GameView) -> dict[str, Any]:
    """``GameOutput``: the game as one viewer sees it. The engine's public view
    has exactly the fields of ``MatchStateOutput``."""
    you = view.you
    if you is not None:
        you = {
            "seat": you["seat"],
            "resigned": you["resigned"],
            "hand": you["hand"],
            "drawn_tile": you["drawn_tile"],
            "legal_moves": [move_body_output(move) for move in you["legal_moves"]],
            "your_turn": you["your_turn"],
            "turn_deadline": _time(you["turn_deadline"]),
        }
    return {"game": game_summary_output(view.game, view.seats), "seed": view.seed, "state": view.state, "you": you}


def event_output(event: Event) -> dict[str, Any]:
    return {"seq": event.seq, "type": event.type, "data": event.data, "created_at": _time(event.created_at)}


def move_output(move: Move) -> dict[str, Any]:
    return {
        "number": move.number,
        "seq": move.seq,
        "round": move.round,
        "seat": move.seat,
        "move": move_body_output(move.payload),
        "source": str(move.source),
        "created_at": _time(move.created_at),
    }


def event_page_output(page: dict[str, Any]) -> dict[str, Any]:
    """``EventPageOutput`` from ``{seq, status, events, has_more}``."""
    return {
        "seq": page["seq"],
        "status": str(page["status"]),
        "events": [event_output(e) for e in page["events"]],
        "has_more": page["has_more"],
    }


def game_body(game_id: int, viewer: User | None) -> dict[str, Any]:
    """The game as ``viewer`` (a user, or None) may see it, read fresh: the ``GameView`` schema."""
    return game_output(selectors.game_view(game=selectors.game_get(game_id=game_id), viewer=viewer))
