"""A circuit breaker for the helpers that may vanish: Redis (cache, live notices)
and the broker.

The database is the source of truth; Redis and the broker only help. When one of
them fails, a request must not wait on it again and again (a connection attempt
to a host that does not answer costs its whole timeout), so after a failure the
breaker stays *open* for ``cooldown`` seconds and callers skip the helper (and
take their fallback) without trying. The first call after the cooldown tries
again; while it keeps failing the cooldown doubles, up to ``max_cooldown``. The
outage and the recovery are each logged once, with the reason, and shown in the
``chickenfoot_breaker_open`` gauge (``core.metrics``).
"""

from __future__ import annotations

import logging
import threading
import time

from core import metrics

log = logging.getLogger(__name__)


class Breaker:
    def __init__(self, name: str, *, cooldown: float = 1.0, max_cooldown: float = 8.0) -> None:
        self.name = name
        self.cooldown = cooldown
        self.max_cooldown = max_cooldown
        self._failures = 0
        self._lock = threading.Lock()
        self._retry_at = 0.0  # monotonic time before which calls are skipped
        self._down_since: float | None = None  # monotonic time of the first failure of this outage
        self.reason = ""
        metrics.BREAKER_OPEN.labels(name).set(0)

    @property
    def is_open(self) -> bool:
        """Skip the helper now (it failed less than ``cooldown`` seconds ago)?"""
        return time.monotonic() < self._retry_at

    @property
    def down(self) -> bool:
        """Did the last attempt fail (whether or not the cooldown is over)?"""
        return self._down_since is not None

    def failed(self, error: BaseException) -> None:
        with self._lock:
            now = time.monotonic()
            self._retry_at = now + min(self.max_cooldown, self.cooldown * 2**self._failures)
            self._failures += 1
            self.reason = f"{type(error).__name__}: {error}"
            if self._down_since is None:
                self._down_since = now
                metrics.BREAKER_OPEN.labels(self.name).set(1)
                log.warning("%s is unavailable (%s); going on without it", self.name, self.reason)

    def succeeded(self) -> None:
        if self._down_since is None:  # the usual case: no lock, nothing to say
            return
        with self._lock:
            if self._down_since is not None:
                log.warning("%s is back after %.1f s", self.name, time.monotonic() - self._down_since)
                self._down_since = None
                metrics.BREAKER_OPEN.labels(self.name).set(0)
                self._retry_at = 0.0
                self._failures = 0
                self.reason = ""
