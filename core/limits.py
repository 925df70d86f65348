"""Rate limits that hold: atomic counters, a sliding window, a wait to tell the client.

A ``Limit`` allows ``count`` hits per ``seconds`` for each key (an address, an
account). It counts in fixed windows and estimates the sliding window from the
current one and the one before (the previous count weighted by how much of it
still overlaps), so a burst across a window boundary gets no double allowance.
Every hit is counted with one atomic increment - never read, add, write back,
which lets concurrent requests all slip under the limit:

* ``store="cache"``: ``INCR`` on Redis (``core.cache``; in this process's memory
  while Redis is away) - for the limits on every request;
* ``store="database"``: an upsert on ``core.models.RateCounter`` - for the limits
  that guard accounts (log-in, registration, tokens), which must hold whether or
  not Redis is there.

A refused hit counts too: a client that keeps knocking stays refused.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.core.cache import DEFAULT_CACHE_ALIAS, BaseCache, caches
from django.core.signals import setting_changed
from django.db import connection
from django.dispatch import receiver
from django.utils.crypto import salted_hmac

from core import metrics
from core.cache import count_in
from core.models import RateCounter

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """``"30/hour"`` -> (30, 3600); DRF's notation (the unit's first letter counts),
    with an optional multiple: ``"5/10min"`` -> (5, 600)."""
    count, _, period = rate.partition("/")
    digits = "".join(c for c in period if c.isdigit())
    unit = period.lstrip("0123456789")[:1]
    if not count.isdigit() or unit not in PERIODS:
        raise ValueError(f"not a rate: {rate!r} (e.g. '30/hour', '5/10min')")
    return int(count), int(digits or 1) * PERIODS[unit]


@dataclass(frozen=True)
class Limit:
    name: str
    rate: str
    store: str = "cache"  # or "database"

    def hit(self, key: str, *, now: float | None = None) -> float | None:
        """Count one hit for ``key``: None if it is within the limit, else how many
        seconds until one more would be."""
        allowed, seconds = parse_rate(self.rate)
        now = time.time() if now is None else now
        period = int(now // seconds)
        into = (now - period * seconds) / seconds  # how far into the current window, 0..1
        # The key (often a client's address) is kept only as a keyed hash, in the
        # database as in Redis (docs/security.md, "Alt accounts": no address is stored).
        counter = f"limit:{self.name}:{salted_hmac('core.limits', key, algorithm='sha256').hexdigest()}"
        current, previous = self._count(counter, period, seconds)
        if previous * (1 - into) + current <= allowed:
            return None
        metrics.THROTTLE_REFUSALS.labels(self.name).inc()
        return _wait(allowed, previous, current, into, seconds)

    def _count(self, counter: str, period: int, seconds: int) -> tuple[int, int]:
        """This window's count, plus one, and the previous window's count. A window is
        read during the next one too, so its counter lives for two windows."""
        if self.store == "database":
            current = _db_increment(counter, period, datetime.fromtimestamp((period + 2) * seconds, UTC))
            before = RateCounter.objects.filter(key=counter, period=period - 1).values_list("count", flat=True)
            return current, before.first() or 0
        key, previous = f"{counter}:{period}", f"{counter}:{period - 1}"
        cache = _cache()
        if hasattr(cache, "count_window"):  # Redis (core.cache): one round trip
            return cache.count_window(key, previous, timeout=2 * seconds)
        return count_in(cache, key, previous, timeout=2 * seconds)


_shared: dict[str, BaseCache] = {}


def _cache() -> BaseCache:
    """The default cache, one object for the whole process.

    ``django.core.cache.cache`` is one object per request context, and the web
    processes serve every request in a context of its own (``core.wsgi_bridge``),
    so through it every rate-limited request built the cache object, its Redis
    client and its in-memory fallback anew, and closed them at its end
    (docs/performance.md). The object holds no state of a request: its Redis
    clients are shared by the process already (``core.cache``) and its fallback
    (``LocMemCache``) locks; so one serves every thread. A change of ``CACHES``
    (tests) makes a new one."""
    handle = _shared.get(DEFAULT_CACHE_ALIAS)
    if handle is None:
        handle = _shared[DEFAULT_CACHE_ALIAS] = caches.create_connection(DEFAULT_CACHE_ALIAS)
    return handle


@receiver(setting_changed)
def _caches_changed(*, setting: str, **kwargs: object) -> None:
    if setting == "CACHES":
        _shared.clear()


def _wait(allowed: int, previous: int, current: int, into: float, seconds: int) -> float:
    """Seconds until the estimate, one more hit included, is back within ``allowed``."""
    if current + 1 <= allowed and previous > 0:
        # Within this window, as the previous one's weight fades.
        fade = (previous * (1 - into) + current + 1 - allowed) / previous
        return max(1.0, math.ceil(min(fade, 1 - into) * seconds))
    # After this window: then this window's hits fade instead.
    rest = (1 - into) * seconds
    fade = max(0.0, (current + 1 - allowed) / max(current, 1))
    return max(1.0, math.ceil(rest + fade * seconds))


def _db_increment(counter: str, period: int, expires_at: datetime) -> int:
    """``count + 1`` for (counter, period), created at 1: one atomic statement
    (PostgreSQL and SQLite 3.35+ both take INSERT ... ON CONFLICT ... RETURNING)."""
    table = connection.ops.quote_name(RateCounter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (key, period, count, expires_at) VALUES (%s, %s, 1, %s) "
            f"ON CONFLICT (key, period) DO UPDATE SET count = {table}.count + 1 RETURNING count",
            [counter, period, expires_at],
        )
        return int(cursor.fetchone()[0])


def forget_expired() -> int:
    """Delete the database counters of windows that no limit reads any more."""
    deleted, _ = RateCounter.objects.filter(expires_at__lt=datetime.now(UTC) - timedelta(seconds=1)).delete()
    return deleted
