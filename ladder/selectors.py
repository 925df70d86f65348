"""Read queries of the ladder: its participants, their games, the schedule."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from bots.strategies import STRATEGIES
from games.models import GameStatus, Seat
from ladder.models import LEVEL_ACCOUNT_PREFIX, TABLE_SIZES, LadderEntry, LadderRound

CURRENT = (GameStatus.OPEN, GameStatus.RUNNING)


def ladder_game_counts(*, user_ids: Iterable[int] | None = None) -> tuple[dict[int, int], dict[int, int]]:
    """Per account: its ladder games (aborted ones aside), and how many of them are
    still going."""
    seats = Seat.objects.filter(game__ladder_game__isnull=False, player__isnull=False).exclude(
        game__status=GameStatus.ABORTED
    )
    if user_ids is not None:
        seats = seats.filter(player_id__in=list(user_ids))
    rows = (
        seats.order_by()
        .values("player_id")
        .annotate(played=Count("game_id"), running=Count("game_id", filter=Q(game__status__in=CURRENT)))
    )
    played = {r["player_id"]: r["played"] for r in rows}
    running = {r["player_id"]: r["running"] for r in rows}
    return played, running


def _entry_row(entry: LadderEntry, played: dict[int, int], running: dict[int, int]) -> dict[str, Any]:
    return {
        "username": entry.user.username,
        "level": entry.level or None,
        "active": entry.active and entry.user.is_active,
        "games": played.get(entry.user_id, 0),
        "games_running": running.get(entry.user_id, 0),
        "table_sizes": sorted(entry.table_sizes),
        "max_games": entry.max_games,
        "joined_at": entry.joined_at,
    }


def participant_list() -> list[dict[str, Any]]:
    """Every participant (``LadderParticipant`` rows): the server's levels by name
    (with those whose account the first round has yet to make), then the outside
    bots in the order they joined."""
    entries = list(LadderEntry.objects.select_related("user"))
    played, running = ladder_game_counts(user_ids=[e.user_id for e in entries])
    made = {e.level for e in entries if e.level}
    pending = [
        {
            "username": LEVEL_ACCOUNT_PREFIX + level,
            "level": level,
            "active": True,
            "games": 0,
            "games_running": 0,
            "table_sizes": sorted(TABLE_SIZES),
            "max_games": None,
            "joined_at": None,
        }
        for level in set(STRATEGIES) - made
    ]
    levels = sorted([*pending, *(_entry_row(e, played, running) for e in entries if e.level)], key=lambda r: r["level"])
    outside = [_entry_row(e, played, running) for e in entries if not e.level]  # joined_at order (Meta)
    return [*levels, *outside]


def entry_get(*, user_id: int) -> dict[str, Any] | None:
    """One account's participant row, or None when it has never entered."""
    entry = LadderEntry.objects.filter(user_id=user_id).select_related("user").first()
    if entry is None:
        return None
    played, running = ladder_game_counts(user_ids=[user_id])
    return _entry_row(entry, played, running)


def slot_of(moment: datetime, interval: float) -> int:
    """The schedule's slot ``moment`` falls in: rounds are due once per slot."""
    return int(moment.timestamp() // interval)


def schedule(*, now: datetime | None = None) -> dict[str, Any]:
    """When rounds are played: the interval (0: never) and the next round's slot start;
    the last round played."""
    now = now or timezone.now()
    interval = float(settings.LADDER_INTERVAL_SECONDS)
    last = LadderRound.objects.annotate(game_count=Count("games")).order_by("-id").first()
    next_at = None
    if interval > 0:
        slot = slot_of(now, interval)
        if LadderRound.objects.filter(slot=slot).exists():
            next_at = datetime.fromtimestamp((slot + 1) * interval, tz=UTC)
        else:
            next_at = now  # due: played at beat's next check (within check_seconds)
    return {
        "interval_seconds": interval,
        "check_seconds": min(interval, float(settings.LADDER_CHECK_SECONDS)) if interval > 0 else 0.0,
        "turn_seconds": settings.LADDER_TURN_SECONDS,
        "next_round_at": next_at,
        "last_round": None
        if last is None
        else {"id": last.pk, "table_size": last.table_size, "games": last.game_count, "created_at": last.created_at},
    }


def levels_of(*, user_ids: Iterable[int]) -> dict[int, str]:
    """The server level each of these accounts plays for the ladder (only the level
    accounts are in the answer)."""
    entries = LadderEntry.objects.filter(user_id__in=list(user_ids)).exclude(level="")
    return dict(entries.values_list("user_id", "level"))
