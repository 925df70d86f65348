"""Who plays whom: pure functions over the waiting seeks (no database, no clock:
``now`` comes in), so the rules are tested with any seeks and ratings.

* Compatible seeks want the same table: the same number of players, preset,
  rated or casual, and clock (``Candidate.pool``).
* Fair: first come, first served. The oldest waiting seek is matched first, with
  the oldest seeks that fit it; a younger seek is only matched before an older
  one when the older one cannot be matched at all yet.
* Rated seeks only meet within a rating window that widens with the time waited
  (``RatingWindow``): two seeks fit when each one's rating is within the other's
  window, so a long wait widens one's own reach, never another's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Candidate:
    """A waiting seek, as the matcher sees it."""

    id: int
    user_id: int
    players: int
    preset: str
    rated: bool
    turn_time_limit: int | None
    rating: float
    created_at: datetime
    expires_at: datetime
    on_timeout: str = "bots"

    @property
    def pool(self) -> tuple[int, str, bool, int | None]:
        return (self.players, self.preset, self.rated, self.turn_time_limit)


@dataclass(frozen=True)
class RatingWindow:
    """How far from its own rating a rated seek reaches after waiting ``t`` seconds:
    ``base + per_second * t``, at most ``most``."""

    base: float
    per_second: float
    most: float

    def width(self, waited_seconds: float) -> float:
        return min(self.base + self.per_second * max(0.0, waited_seconds), self.most)

    def reaches(self, seek: Candidate, other: Candidate, now: datetime) -> bool:
        """Does ``seek`` (as long as it has waited) accept ``other``'s rating?"""
        if not seek.rated:
            return True
        return abs(seek.rating - other.rating) <= self.width((now - seek.created_at).total_seconds())

    def fit(self, a: Candidate, b: Candidate, now: datetime) -> bool:
        return a.pool == b.pool and self.reaches(a, b, now) and self.reaches(b, a, now)


def _oldest_first(seeks: Sequence[Candidate]) -> list[Candidate]:
    return sorted(seeks, key=lambda s: (s.created_at, s.id))


def _companions(
    anchor: Candidate, seeks: list[Candidate], window: RatingWindow, now: datetime, want: int, *, bots_only: bool
) -> list[Candidate]:
    """Up to ``want`` seeks after ``anchor`` (oldest first) that fit it and each other."""
    group = [anchor]
    for other in seeks:
        if len(group) > want:
            break
        if other.id == anchor.id or (bots_only and other.on_timeout != "bots"):
            continue
        if all(window.fit(member, other, now) for member in group):
            group.append(other)
    return group[1:]


def next_group(seeks: Sequence[Candidate], window: RatingWindow, now: datetime) -> list[Candidate] | None:
    """The first complete table: the oldest seek that can be matched with the oldest
    seeks that fit it, anchor first; None when no table can be filled with people."""
    ordered = _oldest_first(seeks)
    by_pool: dict[tuple[int, str, bool, int | None], list[Candidate]] = {}
    for seek in ordered:
        by_pool.setdefault(seek.pool, []).append(seek)
    for anchor in ordered:
        pool = by_pool[anchor.pool]
        if len(pool) < anchor.players:
            continue
        later = pool[pool.index(anchor) + 1 :]
        others = _companions(anchor, later, window, now, anchor.players - 1, bots_only=False)
        if len(others) == anchor.players - 1:
            return [anchor, *others]
    return None


def all_groups(seeks: Sequence[Candidate], window: RatingWindow, now: datetime) -> list[list[Candidate]]:
    """Every complete table, in the order ``next_group`` would give them one after
    another (each time without the seeks already grouped), anchor first in each -
    but each pool sorted once and searched on its own (a pool's tables never take
    another's seeks): a burst of 1,000 seeks is planned in one sweep, not 250."""
    by_pool: dict[tuple[int, str, bool, int | None], list[Candidate]] = {}
    for seek in _oldest_first(seeks):
        by_pool.setdefault(seek.pool, []).append(seek)

    def first_group(pool: list[Candidate]) -> list[Candidate] | None:
        for index, anchor in enumerate(pool):
            if len(pool) - index < anchor.players:
                return None  # too few seeks left after it (and after any younger one)
            others = _companions(anchor, pool[index + 1 :], window, now, anchor.players - 1, bots_only=False)
            if len(others) == anchor.players - 1:
                return [anchor, *others]
        return None

    found: list[list[Candidate]] = []
    pending = {key: group for key, pool in by_pool.items() if (group := first_group(pool)) is not None}
    while pending:
        # next_group's choice: the oldest anchor that can be matched, whatever its pool
        key = min(pending, key=lambda k: (pending[k][0].created_at, pending[k][0].id))
        group = pending.pop(key)
        found.append(group)
        taken = {c.id for c in group}
        by_pool[key] = rest = [c for c in by_pool[key] if c.id not in taken]
        if (following := first_group(rest)) is not None:
            pending[key] = following
    return found


@dataclass(frozen=True)
class Timeout:
    """A seek whose wait ran out: ``companions`` (seeks that would also take bots)
    join it, and ``bots`` server bots fill the rest; or, for ``expire``, it ends."""

    seek: Candidate
    companions: list[Candidate]
    bots: int


def next_timeout(seeks: Sequence[Candidate], window: RatingWindow, now: datetime) -> Timeout | None:
    """The oldest seek whose wait is over, with what happens to it."""
    ordered = _oldest_first(seeks)
    due = [s for s in ordered if s.expires_at <= now]
    if not due:
        return None
    seek = min(due, key=lambda s: (s.expires_at, s.created_at, s.id))
    if seek.on_timeout != "bots":
        return Timeout(seek, [], 0)
    later = [s for s in ordered if s.id != seek.id]
    companions = _companions(seek, later, window, now, seek.players - 2, bots_only=True)
    return Timeout(seek, companions, seek.players - 1 - len(companions))
