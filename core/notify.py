"""Notices between processes: wake the clients waiting on something that changed.

A notice is a channel name and carries no data ("game 7 changed", "account 3's
credentials changed"): the database stays the source of truth, and a waiter that
wakes (or times out) reads what it needs from there. A missed notice therefore
delays a client, never misleads one.

* ``publish(channels)`` wakes the waiters on those channels in this process and,
  when Redis is configured, publishes them so that every other process wakes its
  waiters too. Redis may be away: publishing then skips it (``core.cache.REDIS``).
* ``HUB.subscription(channels)`` is what an async view waits on. With Redis, one
  pattern subscription per process (started with the first waiter) feeds the hub.
  Without Redis (the embedded default) notices from other processes never come,
  so waiters also re-read the database every ``poll_seconds()`` (short without
  Redis or while its subscription is down; a long safety net with it). When the
  subscription is back every waiter re-reads once, so nothing is missed.

Channels: ``games.live`` names those of games; accounts have two here -
``user_channel`` (something happened in one of the account's games) and
``auth_channel`` (its tokens or its standing changed: streams re-check their
right to go on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

from django.conf import settings

from core.cache import REDIS

log = logging.getLogger(__name__)

PREFIX = "cf:"


def user_channel(user_id: int) -> str:
    return f"{PREFIX}user:{user_id}"


def auth_channel(user_id: int) -> str:
    return f"{PREFIX}auth:{user_id}"


def poll_seconds() -> float:
    """How long a waiter may wait without re-reading the database: long while
    notices arrive from Redis, short when they cannot."""
    if settings.REDIS_URL and HUB.listening:
        return float(settings.LIVE_POLL_SECONDS)
    return float(settings.LIVE_POLL_SECONDS_EMBEDDED)


class Hub:
    """Channel -> the asyncio events of the waiters in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)
        self._listeners: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
        self._subscribed: set[asyncio.AbstractEventLoop] = set()  # loops whose Redis subscription is live

    def notify(self, channels: Iterable[str]) -> None:
        """Wake every waiter on ``channels``; safe from any thread."""
        with self._lock:
            targets = [w for channel in channels for w in self._waiters.get(channel, ())]
        for loop, event in targets:
            if loop.is_closed():
                continue
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                loop.call_soon_threadsafe(event.set)

    @asynccontextmanager
    async def subscription(self, channels: list[str]) -> AsyncIterator[asyncio.Event]:
        loop = asyncio.get_running_loop()
        waiter = (loop, asyncio.Event())
        if settings.REDIS_URL:
            self._ensure_listener(loop)
        with self._lock:
            for channel in channels:
                self._waiters[channel].add(waiter)
        try:
            yield waiter[1]
        finally:
            with self._lock:
                for channel in channels:
                    self._waiters[channel].discard(waiter)
                    if not self._waiters[channel]:
                        del self._waiters[channel]

    @property
    def listening(self) -> bool:
        """Do notices from other processes reach this process (its Redis subscription is live)?"""
        return bool(self._subscribed)

    def notify_all(self) -> None:
        with self._lock:
            channels = list(self._waiters)
        self.notify(channels)

    @property
    def waiting(self) -> int:
        with self._lock:
            return len({w for ws in self._waiters.values() for w in ws})

    def _ensure_listener(self, loop: asyncio.AbstractEventLoop) -> None:
        task = self._listeners.get(loop)
        if task is None or task.done():
            self._listeners[loop] = loop.create_task(self._listen())

    async def _listen(self) -> None:
        """Feed notices published by other processes into this hub, for ever
        (reconnecting after a Redis hiccup; waiters re-read the database anyway)."""
        import redis.asyncio as aredis

        loop = asyncio.get_running_loop()
        while True:
            client = aredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, health_check_interval=10)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(f"{PREFIX}*")
                    async for message in pubsub.listen():
                        if message.get("type") == "psubscribe":
                            if loop not in self._subscribed:
                                self._subscribed.add(loop)
                                self.notify_all()  # notices sent while unsubscribed are lost: re-read once
                        elif message.get("type") == "pmessage":
                            channel = message["channel"]
                            self.notify([channel.decode() if isinstance(channel, bytes) else channel])
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: waiters poll the database meanwhile
                if loop in self._subscribed:
                    log.warning(
                        "notify: Redis subscription lost (%s); waiters re-read the database every %.2f s "
                        "until it is back",
                        error,
                        settings.LIVE_POLL_SECONDS_EMBEDDED,
                    )
                self._subscribed.discard(loop)
                await asyncio.sleep(1)
            finally:
                self._subscribed.discard(loop)
                await client.aclose()


HUB = Hub()


@lru_cache(maxsize=1)
def _redis() -> Any:
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)


def publish(channels: Iterable[str], message: str = "") -> None:
    """Wake every waiter on ``channels``, in this process and (with Redis) all others."""
    channels = list(channels)
    HUB.notify(channels)
    if settings.REDIS_URL and not REDIS.is_open:
        try:
            pipe = _redis().pipeline(transaction=False)
            for channel in channels:
                pipe.publish(channel, message)
            pipe.execute()
        except Exception as error:  # waiters elsewhere catch up by polling
            REDIS.failed(error)
        else:
            REDIS.succeeded()
