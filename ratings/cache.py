"""Cached answers of the leaderboards and the players' rating pages.

Each pool has a generation number in the cache; every cached answer's key holds
the generations it was read at, so bumping a pool's generation (after each rating
update or void of that pool commits) makes every page of it stale at once, with
nothing to delete. Bumped after the commit: a reader that read the data before
then stores it under the old generation, which nobody asks for any more.

With Redis the generations and pages are shared by every process; without it
(the embedded default) they are each process's local memory, as is everything in
the cache then, so pages are kept only ``LOCAL_PAGE_SECONDS`` there (a bot's or a
clock's final move is made in the worker, whose bump the web process never sees). A generation that went missing (evicted, Redis restarted) starts
again from the clock, never from a number an old page may still be stored under.
Pages also expire after ``PAGE_SECONDS``: the bound on staleness while Redis is
away and each process falls back to its own memory.

A board's count (a scan of the pool's whole index: it grows with the pool) is
kept apart, under a key of its own that no generation names, and moved on as
members come: the rating update that adds accounts to a pool (or moves one
between the human and bot boards) adds its numbers to the cached counts once it
commits (``board_counts_adjust``, atomic in Redis; nothing when a count is not
cached). A count is read afresh only when it is missing, and is kept
``COUNT_SECONDS`` at most: the bound on a count left one off by a reader that
counted before a new member's commit and stored its count after that commit's
adjustment found nothing to adjust.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from core.cache import incr_existing

T = TypeVar("T")

PAGE_SECONDS = 300
#: Without Redis (the embedded default) each process has a cache of its own, and a
#: match finished by a bot or a turn clock bumps the generation in the worker's,
#: not the web server's: pages live only this long there.
LOCAL_PAGE_SECONDS = 5
_PREFIX = "ratings"
_BOARD_KINDS = ("all", "humans", "bots")  # ratings.selectors.BoardKind (the cache sits below the selectors)


#: How long a board's count is kept (moved on by every new member meanwhile).
COUNT_SECONDS = 3600


def _count_key(pool: str, kind: str) -> str:
    return f"{_PREFIX}:count:{pool}:{kind}"


def board_count(*, pool: str, kind: str, compute: Callable[[], int]) -> int:
    """The cached count of ``pool``'s ``kind`` board, or ``compute()`` stored."""
    key = _count_key(pool, kind)
    found = cache.get(key)
    if found is not None:
        return int(found)
    value = compute()
    cache.add(key, value, timeout=COUNT_SECONDS if settings.REDIS_URL else LOCAL_PAGE_SECONDS)
    return value


def board_counts_adjust(*, pool: str, changes: dict[str, int]) -> None:
    """Add ``changes`` (board kind -> members gained, or lost if negative) to the
    cached counts of ``pool``'s boards; a count not cached is left to be read."""
    for kind, delta in changes.items():
        if delta:
            incr_existing(cache, _count_key(pool, kind), delta)


def board_counts_forget(*, pools: Iterable[str]) -> None:
    """Drop the cached counts of ``pools``' boards (ratings removed wholesale, e.g.
    by a benchmark's clean-up): read afresh when next asked."""
    cache.delete_many([_count_key(pool, kind) for pool in pools for kind in _BOARD_KINDS])


def board_counts_adjust_on_commit(*, pool: str, changes: dict[str, int]) -> None:
    """``board_counts_adjust`` once the current transaction commits."""
    chosen = dict(changes)
    transaction.on_commit(lambda: board_counts_adjust(pool=pool, changes=chosen))


def _generation_key(pool: str) -> str:
    return f"{_PREFIX}:gen:{pool}"


def generations(pools: Iterable[str]) -> dict[str, int]:
    """The current generation of each of ``pools`` (one round trip when they are set)."""
    keys = {pool: _generation_key(pool) for pool in pools}
    found = cache.get_many(list(keys.values()))
    result = {}
    for pool, key in keys.items():
        value = found.get(key)
        if value is None:
            cache.add(key, time.time_ns(), timeout=None)
            value = cache.get(key)
        result[pool] = int(value) if value is not None else 0
    return result


def generations_bump(*, pools: Iterable[str]) -> None:
    """Make the cached pages of ``pools`` stale now (``generations_bump_on_commit``
    inside a transaction)."""
    for pool in set(pools):
        key = _generation_key(pool)
        try:
            cache.incr(key)
        except ValueError:  # missing: a fresh start, past any generation used before
            cache.set(key, time.time_ns(), timeout=None)


def generations_bump_on_commit(*, pools: Iterable[str]) -> None:
    """Make the cached pages of ``pools`` stale once the current transaction commits."""
    chosen = list(pools)
    transaction.on_commit(lambda: generations_bump(pools=chosen))


def cached(parts: tuple[Any, ...], pools: Iterable[str], compute: Callable[[], T]) -> T:
    """``compute()``, cached under ``parts`` and the generations of ``pools``."""
    key = ":".join([_PREFIX, *map(str, parts), *(f"{p}@{g}" for p, g in generations(pools).items())])
    found = cache.get(key)
    if found is not None:
        return found
    value = compute()
    cache.set(key, value, timeout=PAGE_SECONDS if settings.REDIS_URL else LOCAL_PAGE_SECONDS)
    return value
