"""Beat exactly once, with several hosts running it: a lease in the database.

Every worker host runs ``celery beat`` (so that one dying leaves another), and
``LeasedScheduler`` lets only one of them send: the holder of the ``BeatLease`` row,
which it renews every ``BEAT_LEASE_SECONDS / 4``. A beat whose host died or was cut
off stops renewing; once its lease has expired by the database's clock another
beat claims it and starts sending. The holder itself stops sending as soon as a
renewal fails, and never sends later than ``BEAT_LEASE_SECONDS`` after the start
of its last successful renewal - before anyone else can have claimed it - so two
beats never send at once. (The periodic tasks are safe to run twice anyway; this
keeps them from being sent twice as often.) A beat that stops cleanly gives the
lease up, so another takes over at once rather than when it expires: beat runs the
turn clock, and a restart should not stop the clocks for ``BEAT_LEASE_SECONDS``.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from typing import Any

from celery.beat import PersistentScheduler
from django.conf import settings
from django.db import DatabaseError, connection

log = logging.getLogger(__name__)

LEASE_NAME = "beat"

_NOW = {
    "postgresql": "extract(epoch from clock_timestamp())",
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
}


class Lease:
    """A row only one holder can have at a time, for ``seconds`` after each renewal."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name = name
        self.seconds = seconds
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.holding = False
        self.valid_until = 0.0  # monotonic: no sending after this
        self.renew_at = 0.0  # monotonic: renew from then on

    def claim(self) -> bool:
        """Take or renew the lease; True if this holder has it now."""
        now = _NOW.get(connection.vendor, _NOW["postgresql"])
        with connection.cursor() as cursor:
            cursor.execute(
                f"""INSERT INTO ops_beatlease (name, holder, expires_at) VALUES (%s, %s, {now} + %s)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE ops_beatlease.holder = excluded.holder OR ops_beatlease.expires_at < {now}
                RETURNING holder""",
                [self.name, self.holder, self.seconds],
            )
            return cursor.fetchone() is not None

    def release(self) -> None:
        """Give the lease up (a clean stop): another holder may claim it at once."""
        if not self.holding:
            return
        self.holding = False
        self.valid_until = 0.0
        try:
            with connection.cursor() as cursor:
                cursor.execute("DELETE FROM ops_beatlease WHERE name = %s AND holder = %s", [self.name, self.holder])
        except DatabaseError as error:  # it runs out on its own
            log.warning("beat: could not give up the lease (%s): another beat takes it when it expires", error)
        else:
            log.warning("beat: %s gave up the lease", self.holder)

    def held(self) -> bool:
        """Does this holder have the lease now (renewing or claiming it when due)?"""
        now = time.monotonic()
        if self.holding and now < self.renew_at:
            return True
        started = time.monotonic()
        try:
            won = self.claim()
        except DatabaseError as error:
            connection.close()  # reconnect next time (perhaps to a new primary)
            if self.holding:
                log.warning("beat: could not renew the lease (%s): not sending until it is renewed", error)
            won = False
        if won:
            if not self.holding:
                log.warning("beat: %s holds the lease: this beat sends the periodic tasks", self.holder)
            self.valid_until = started + self.seconds
            self.renew_at = started + self.seconds / 4
        elif self.holding:
            log.warning("beat: %s lost the lease: another beat sends the periodic tasks", self.holder)
        self.holding = won
        return won and time.monotonic() < self.valid_until


class LeasedScheduler(PersistentScheduler):
    """Celery's default scheduler, sending only while this beat holds the lease."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.lease = Lease(LEASE_NAME, settings.BEAT_LEASE_SECONDS)
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if not self.lease.held():
            return self.lease.seconds / 10  # ask again soon: take over within a second of expiry
        wait: float = super().tick(*args, **kwargs)
        return min(wait, max(0.0, self.lease.renew_at - time.monotonic()))

    def close(self) -> None:
        super().close()
        self.lease.release()
