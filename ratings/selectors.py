"""Read queries of the ratings, shaped for the API and cached (``ratings.cache``).

The answers are the API's JSON as it is sent (``ratings.serializers`` describes
them for the contract; the tests check every answer against it): a cached page
is answered without being serialised again.

A leaderboard page is the pool's ratings by ordinal (best first, then by user id)
read through the index ``(pool, ordinal desc, user)`` (or the one with
``is_bot``); a rank is 1 + the number of better ordinals in the board, a count the
same index answers alone. Ties share a rank (1, 2, 2, 4).
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db.models import QuerySet
from rest_framework.fields import DateTimeField

from players.models import User
from ratings import cache, skill
from ratings.models import Rating, RatingChange, RatingPool, pool_for

#: The rating pages show this many of a pool's recent changes.
HISTORY_LENGTH = 20
RECENT_MATCHES = 10


_datetime = DateTimeField()  # the same text DRF gives (ISO 8601, "Z" for UTC)


def _time(value: datetime) -> str:
    return str(_datetime.to_representation(value))


class BoardKind(StrEnum):
    ALL = "all"
    HUMANS = "humans"
    BOTS = "bots"


def _board(pool: str, kind: str) -> QuerySet[Rating]:
    ratings = Rating.objects.filter(pool=pool)
    if kind == BoardKind.HUMANS:
        ratings = ratings.filter(is_bot=False)
    elif kind == BoardKind.BOTS:
        ratings = ratings.filter(is_bot=True)
    return ratings


def rank_in(*, pool: str, ordinal: float, kind: str = BoardKind.ALL) -> int:
    """The rank of an ``ordinal`` in a board: 1 + how many are better."""
    return 1 + _board(pool, kind).filter(ordinal__gt=ordinal).count()


def _entry(rating: Rating, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "username": rating.user.username,
        "is_bot": rating.is_bot,
        "rating": rating.ordinal,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "games": rating.games,
        "wins": rating.wins,
        "provisional": rating.games < skill.PROVISIONAL_GAMES,
    }


def leaderboard_count(*, pool: str, kind: str) -> int:
    """How many are on the board: cached, and moved on by each rating update that
    adds a member (``ratings.cache.board_count``); counted only when not cached."""
    return cache.board_count(pool=pool, kind=kind, compute=lambda: _board(pool, kind).count())


#: The longest cursor text read (a real one is about 50 characters).
CURSOR_MAX = 200
#: A cursor's position and account id within what the database's columns hold
#: (beyond them a query would fail: a made-up cursor is refused instead).
CURSOR_POSITION_MAX = 2**31 - 1
CURSOR_ID_MAX = 2**63 - 1


@dataclass(frozen=True)
class BoardCursor:
    """Where a leaderboard page ends: its last entry (``ordinal``, ``user_id``: the
    board's order), that entry's ``rank`` and how many entries are up to it
    (``position``). The next page reads on from the entry along the board's index
    (keyset), so every page costs what the first costs; its ranks follow from
    ``rank`` and ``position`` without counting anything."""

    position: int
    rank: int
    ordinal: float
    user_id: int

    def text(self) -> str:
        """The cursor as a ``next`` link carries it: opaque to clients."""
        plain = f"{self.position}:{self.rank}:{self.user_id}:{self.ordinal!r}"
        return base64.urlsafe_b64encode(plain.encode()).decode().rstrip("=")

    @classmethod
    def parse(cls, text: str) -> BoardCursor | None:
        """A cursor from ``text`` (as ``text()`` wrote it), or None if it is not one."""
        if len(text) > CURSOR_MAX:
            return None
        try:
            plain = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
            position, rank, user_id, ordinal = plain.split(":")
            cursor = cls(int(position), int(rank), float(ordinal), int(user_id))
        except (ValueError, UnicodeDecodeError, binascii.Error):
            return None
        sound = (
            1 <= cursor.rank <= cursor.position <= CURSOR_POSITION_MAX
            and 1 <= cursor.user_id <= CURSOR_ID_MAX
            and math.isfinite(cursor.ordinal)
        )
        return cursor if sound else None


def _leaderboard_page(pool: str, kind: str, limit: int, offset: int, after: BoardCursor | None) -> dict[str, Any]:
    board = _board(pool, kind)
    # The page's user ids and ordinals from the index alone, one more to know whether
    # a page follows, with the entry before the page (the cursor's, or read): when its
    # ordinal differs, the page's first rank is its position + 1 without counting.
    ordered = board.order_by("-ordinal", "user_id").values_list("user_id", "ordinal")
    if after is None:
        # A deep offset skips index entries (docs/performance.md, "Hot paths on a large database").
        start = max(offset - 1, 0)
        entries = list(ordered[start : offset + limit + 1])
        before = entries.pop(0) if offset > 0 and entries else None
        position = offset
    else:
        # Keyset: the rest of the cursor's tie (after its account), then the worse
        # ordinals: two ranges of the index, each read from its start.
        entries = list(ordered.filter(ordinal=after.ordinal, user_id__gt=after.user_id)[: limit + 1])
        if len(entries) <= limit:
            entries += list(ordered.filter(ordinal__lt=after.ordinal)[: limit + 1 - len(entries)])
        before = (after.user_id, after.ordinal)
        position = after.position
    more = len(entries) > limit
    entries = entries[:limit]
    user_ids = [user_id for user_id, _ in entries]
    rows = {
        r.user_id: r
        for r in board.filter(user_id__in=user_ids)
        .select_related("user")
        .only("user_id", "pool", "mu", "sigma", "ordinal", "games", "wins", "is_bot", "user__username")
    }
    page = [rows[u] for u in user_ids if u in rows]
    results: list[dict[str, Any]] = []
    for index, rating in enumerate(page):
        if index == 0:
            tied = before is not None and before[1] == rating.ordinal
            if tied and after is not None:
                rank = after.rank  # the tie's rank, as the page before gave it
            elif tied:
                # Tied with the entry before the page: the rank is the tie's first place. Of the
                # offset entries before the page, those tied with it come last (by user id):
                # counting them reads the tie alone, not every better entry (rank_in's count,
                # proportional to the page's depth: docs/performance.md, "Hot paths on a large
                # database").
                ahead_in_tie = board.filter(ordinal=rating.ordinal, user_id__lt=rating.user_id).count()
                rank = position + 1 - ahead_in_tie
            else:
                rank = position + 1
        elif rating.ordinal == page[index - 1].ordinal:
            rank = results[-1]["rank"]
        else:
            rank = position + index + 1
        results.append(_entry(rating, rank))
    following = None
    if more and results:
        last_user, last_ordinal = entries[-1]
        following = BoardCursor(position + len(entries), results[-1]["rank"], last_ordinal, last_user).text()
    return {"count": leaderboard_count(pool=pool, kind=kind), "results": results, "next_cursor": following}


def leaderboard_page(
    *, pool: str, kind: str, limit: int, offset: int = 0, after: BoardCursor | None = None
) -> dict[str, Any]:
    """``{"count", "results", "next_cursor"}``: one page of a pool's leaderboard
    (``kind``: all, humans or bots), at ``offset`` or after the cursor ``after``
    (``next_cursor``: the cursor of the page that follows, None at the end); cached
    until the pool's next rating update."""
    where = ("after", after.text()) if after is not None else ("offset", offset)
    return cache.cached(
        ("board", pool, kind, limit, *where), [pool], lambda: _leaderboard_page(pool, kind, limit, offset, after)
    )


def _change_entry(change: RatingChange) -> dict[str, Any]:
    return {
        "game_id": change.game_id,
        "at": _time(change.created_at),
        "rank": change.rank,
        "players": change.players,
        "won": change.won,
        "forfeit": change.forfeit,
        "rating_before": change.ordinal_before,
        "rating_after": change.ordinal_after,
        "mu_before": change.mu_before,
        "mu_after": change.mu_after,
        "sigma_before": change.sigma_before,
        "sigma_after": change.sigma_after,
        "voided": change.voided_at is not None,
    }


def _player_ratings(user: User) -> dict[str, Any]:
    pools = []
    for rating in Rating.objects.filter(user=user).order_by("pool"):
        changes = list(
            RatingChange.objects.filter(user=user, pool=rating.pool).order_by("-created_at", "-id")[:HISTORY_LENGTH]
        )
        counted = [c for c in changes if c.voided_at is None]
        pools.append(
            {
                "pool": rating.pool,
                "rating": rating.ordinal,
                "mu": rating.mu,
                "sigma": rating.sigma,
                "games": rating.games,
                "wins": rating.wins,
                "rank": rank_in(pool=rating.pool, ordinal=rating.ordinal),
                "provisional": rating.games < skill.PROVISIONAL_GAMES,
                "updated_at": _time(rating.updated_at),
                "history": [
                    {
                        "game_id": c.game_id,
                        "at": _time(c.created_at),
                        "rating": c.ordinal_after,
                        "mu": c.mu_after,
                        "sigma": c.sigma_after,
                    }
                    for c in reversed(counted)
                ],
                "recent_matches": [_change_entry(c) for c in changes[:RECENT_MATCHES]],
            }
        )
    return {"username": user.username, "is_bot": user.is_bot, "pools": pools}


def player_ratings(*, user: User) -> dict[str, Any]:
    """A player's ratings in each pool they played: rating, rank, provisional,
    the recent history (oldest first) and recent rated matches (newest first)."""
    return cache.cached(("player", user.pk), list(RatingPool), lambda: _player_ratings(user))


def ordinals(*, user_ids: Iterable[int], players: int) -> dict[int, float]:
    """The rating (ordinal) of each account that has one in the pool of a table of
    ``players`` (an account without one is not in the answer: it stands at 0.0)."""
    rows = Rating.objects.filter(user_id__in=list(user_ids), pool=pool_for(players))
    return dict(rows.values_list("user_id", "ordinal"))


def ordinals_by_pool(*, user_ids: Iterable[int]) -> dict[int, dict[str, tuple[float, int]]]:
    """Each account's (ordinal, games) per pool it has a rating in."""
    out: dict[int, dict[str, tuple[float, int]]] = {}
    for user_id, pool, ordinal, games in Rating.objects.filter(user_id__in=list(user_ids)).values_list(
        "user_id", "pool", "ordinal", "games"
    ):
        out.setdefault(user_id, {})[pool] = (ordinal, games)
    return out
