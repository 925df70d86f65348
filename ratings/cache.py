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

A board's count (a scan of the pool's whole index) is cached apart, under the
pool's ``members`` generation, which only changes when accounts join the pool or
switch between the human and bot boards.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

T = TypeVar("T")

PAGE_SECONDS = 300
#: Without Redis (the embedded default) each process has a cache of its own, and a
#: match finished by a bot or a turn clock bumps the generation in the worker's,
#: not the web server's: pages live only this long there.
LOCAL_PAGE_SECONDS = 5
_PREFIX = "ratings"


def members(pool: str) -> str:
    """The generation of who is in ``pool``'s boards (and in which: human or bot),
    for the boards' counts: bumped only when that changes (a first rated match in
    the pool, an account marked or unmarked as a bot), not on every update."""
    return f"members:{pool}"


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
