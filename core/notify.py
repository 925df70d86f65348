"""Notices between processes: wake the clients waiting on something that changed.

A notice is a channel name ("game 7 changed", "account 3's credentials changed"),
optionally with a message (any JSON value) that a waiter may use instead of reading:
the database stays the source of truth, and a waiter that wakes (or times out) with
nothing it can use reads what it needs from there. A missed notice therefore delays
a client, never misleads one.

* ``publish(channels, message)`` wakes the waiters on those channels in this process
  and, when Redis is configured, publishes them so that every other process wakes its
  waiters too. Redis may be away: publishing then skips it (``core.cache.REDIS``).
* ``HUB.subscription(channels)`` is what an async view waits on: an ``asyncio.Event``
  set by every notice; with ``messages=True`` it also keeps, until ``take()``, the
  (channel, message) of each notice (None: a notice without a message, or one whose
  message was dropped). A message from Redis is decoded once per process, and only
  when a waiter there keeps messages of its channel: a notice fans out in a process
  as references to one decoded value; a process drops the notices it published
  itself when Redis brings them back (it woke its own waiters when it published).
  With Redis, each loop's ``Listener`` (one
  connection, started with the first waiter) subscribes to the channels its
  waiters wait on, and to no other: a process hears the notices of the games and
  accounts its streams follow, not every move of the server.
  Without Redis (the embedded default) notices from other processes never come,
  so waiters also re-read the database every ``poll_seconds()`` (short without
  Redis or while its subscription is down; a long safety net with it). When the
  subscription is back every waiter re-reads once, so nothing is missed.

Channels: ``live.hub`` names those of games; accounts have two here -
``user_channel`` (something happened in one of the account's games) and
``auth_channel`` (its tokens or its standing changed: streams re-check their
right to go on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import threading
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

import orjson
from django.conf import settings

from core import metrics
from core.cache import REDIS, send_all
from core.redisconn import async_redis_client, redis_client

log = logging.getLogger(__name__)

#: Every channel's name starts so: the deployment's ``CACHE_KEY_PREFIX`` ("cf:game:7").
PREFIX = f"{settings.CACHE_KEY_PREFIX}:"
#: Notices a waiter keeps until it takes them; past that, they collapse into bare notices.
INBOX_MAX = 64


#: "Re-read everything": published by a process whose earlier notices did not
#: reach Redis, once it reaches Redis again (every process then wakes all its waiters).
RESYNC = f"{PREFIX}resync"


#: "An account's credentials changed" (its id as message), for every process's
#: token cache (``players.token_cache``), besides the account's own ``auth_channel``.
AUTH = f"{PREFIX}auth"


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


def spread(seconds: float) -> float:
    """``seconds``, give or take a quarter, at random: thousands of waiters that
    started together do not all re-read the database in the same instant."""
    return seconds * random.uniform(0.75, 1.25)


Notice = tuple[str, Any]  # (channel, message or None)


def _new_mark() -> bytes:
    return b"@%d.%s," % (os.getpid(), os.urandom(4).hex().encode())


class _Origin:
    """This process's mark on what it publishes to Redis (``@<mark>,<ms>;`` before the
    message, ``<ms>`` the time it was published, in milliseconds since the epoch, for
    the fan-out lag metric): ``publish`` has woken this process's own waiters already, so its
    listeners drop their own notices when Redis brings them back - a wake, a
    parse and a read of the frames already sent, per move and follower here.
    New in every process: a forked worker (gunicorn's, Celery's) makes its own."""

    mark = _new_mark()


os.register_at_fork(after_in_child=lambda: setattr(_Origin, "mark", _new_mark()))


def _untag(data: Any) -> tuple[bool, Any]:
    """(published by this process?, the message's JSON text) of what Redis brought."""
    if isinstance(data, bytes) and data[:1] == b"@":
        return data.startswith(_Origin.mark), data.partition(b";")[2]
    return False, data


def _lag(data: Any) -> None:
    """Observe how long ago another process published ``data`` (its ``,<ms>;`` stamp)."""
    if isinstance(data, bytes):
        stamp = data.partition(b";")[0].rpartition(b",")[2]
        if stamp.isdigit():
            metrics.NOTICE_FANOUT_LAG.observe(max(0.0, time.time() - int(stamp) / 1000))


def message_of(data: Any) -> Any:
    """The message of a notice as Redis carries it (the data of a pub/sub message on
    one of these channels), for a reader of its own (``bench_bots``); None: a bare notice."""
    text = _untag(data)[1]
    return orjson.loads(text) if text else None


class Waiter(asyncio.Event):
    """What a subscription yields: set by every notice on its channels; with an
    inbox (``messages=True``), it also keeps the notices until ``take()``."""

    def __init__(self, *, keep: bool) -> None:
        super().__init__()
        self._inbox: deque[Notice] | None = deque() if keep else None

    def deliver(self, channel: str, message: Any) -> None:
        """Called in the waiter's loop."""
        inbox = self._inbox
        if inbox is not None:
            if len(inbox) >= INBOX_MAX:  # a waiter that does not take: keep "look again" only
                channels = dict.fromkeys([*(c for c, _ in inbox), channel])
                inbox.clear()
                inbox.extend((c, None) for c in channels)
            else:
                inbox.append((channel, message))
        self.set()

    def take(self) -> list[Notice]:
        """The notices kept since the last ``take``, oldest first."""
        if not self._inbox:
            return []
        notices = list(self._inbox)
        self._inbox.clear()
        return notices


class Hub:
    """Channel -> the waiters of this process (each with its loop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, Waiter]]] = defaultdict(set)
        self._keepers: dict[str, int] = defaultdict(int)  # channel -> its waiters that keep messages
        self._listeners: dict[asyncio.AbstractEventLoop, Listener] = {}
        self._subscribed: set[asyncio.AbstractEventLoop] = set()  # loops whose Redis subscription is live

    def notify(self, channels: Iterable[str], message: Any = None) -> None:
        """Wake every waiter on ``channels`` (with ``message``, to those that keep
        messages; it is shared, not copied: waiters must not change it); safe from any thread."""
        for channel in channels:
            with self._lock:
                targets = list(self._waiters.get(channel, ()))
            self._deliver(targets, channel, message)

    @staticmethod
    def _deliver(targets: list[tuple[asyncio.AbstractEventLoop, Waiter]], channel: str, message: Any) -> None:
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:  # a thread without a loop (a request's, a worker's)
            here = None
        for loop, waiter in targets:
            if loop is here:  # this loop's own listener: no wake-up of the loop (a syscall) needed
                waiter.deliver(channel, message)
                continue
            if loop.is_closed():
                continue
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                loop.call_soon_threadsafe(waiter.deliver, channel, message)

    def _notify_raw(self, channel: str, data: Any, loop: asyncio.AbstractEventLoop) -> None:
        """A notice from Redis, heard by ``loop``'s subscription, for that loop's
        waiters: its message (JSON text) is decoded once, and only if a waiter here
        keeps messages of ``channel``. A notice this process published is dropped:
        ``publish`` delivered it here already."""
        raw = data
        own, data = _untag(data)
        if own:
            return
        _lag(raw)
        with self._lock:
            targets = [w for w in self._waiters.get(channel, ()) if w[0] is loop]
            keeps = self._keepers.get(channel, 0) > 0
        if not targets:
            return
        message = None
        if keeps and data:
            with contextlib.suppress(ValueError, TypeError):  # not JSON: a bare notice
                message = orjson.loads(data)
        self._deliver(targets, channel, message)

    @asynccontextmanager
    async def subscription(self, channels: list[str], *, messages: bool = False) -> AsyncIterator[Waiter]:
        """Wait on ``channels``: with Redis, the first waiter of a channel in this loop
        subscribes this process to it, and the subscription is confirmed before the
        waiter is handed over (a read after this misses no notice of another process);
        the last one to leave unsubscribes."""
        loop = asyncio.get_running_loop()
        waiter = (loop, Waiter(keep=messages))
        with self._lock:
            for channel in channels:
                self._waiters[channel].add(waiter)
                if messages:
                    self._keepers[channel] += 1
        listener = self._ensure_listener(loop) if settings.REDIS_URL else None
        try:
            if listener is not None:
                await listener.watch(channels)
            yield waiter[1]
        finally:
            with self._lock:
                for channel in channels:
                    self._waiters[channel].discard(waiter)
                    if not self._waiters[channel]:
                        del self._waiters[channel]
                    if messages:
                        self._keepers[channel] -= 1
                        if self._keepers[channel] <= 0:
                            del self._keepers[channel]
            if listener is not None:
                listener.unwatch(channels)

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

    def _ensure_listener(self, loop: asyncio.AbstractEventLoop) -> Listener:
        listener = self._listeners.get(loop)
        if listener is None or listener.task.done():
            listener = self._listeners[loop] = Listener(self, loop)
        return listener


#: How long a new waiter waits for Redis to confirm its channels before it goes on
#: without (it is woken once when the confirmation comes, and reads then).
CONFIRM_SECONDS = 2.0


class Listener:
    """A loop's Redis subscription: the channels its waiters wait on, one by one.

    Each web process hears the notices of the games and accounts its streams
    follow, not every notice of every game (a pattern subscription made every
    process decode every move of the server). ``cf:resync`` is always subscribed.
    Redis confirms each SUBSCRIBE in order; a waiter is handed over once its
    channels are confirmed (``watch``). The connection is kept for ever,
    reconnecting after a Redis hiccup: every channel is subscribed again and every
    waiter re-reads once (notices sent meanwhile are lost)."""

    def __init__(self, hub: Hub, loop: asyncio.AbstractEventLoop) -> None:
        self.hub = hub
        self.loop = loop
        self.counts: dict[str, int] = defaultdict(int)  # channel -> this loop's waiters on it
        self.pending: dict[str, deque[asyncio.Future[Any]]] = defaultdict(deque)  # SUBSCRIBEs not yet confirmed
        self.confirmed: set[str] = set()
        self.late: set[str] = set()  # channels whose waiters went on before the confirmation
        self.pubsub: Any = None  # while connected
        self.ready = asyncio.Event()  # set while connected with every channel confirmed
        self.failing = False  # the last connection attempt failed: new waiters do not wait for the next
        self.task = loop.create_task(self._listen())

    async def watch(self, channels: list[str]) -> None:
        """Count a waiter on ``channels``; until Redis has confirmed them (at most
        ``CONFIRM_SECONDS``: then the waiter goes on, and is woken once they are), wait."""
        waits: list[asyncio.Future[Any]] = []
        for channel in channels:
            self.counts[channel] += 1
            if channel in self.confirmed:
                continue
            queue = self.pending.get(channel)
            if queue:  # already on its way: its confirmation is this waiter's too
                waits.append(queue[-1])
            else:
                waits += self._subscribe(channel)
        if self.pubsub is None:  # connecting: it subscribes every channel in use, then wakes the late
            if self.failing:  # Redis is away: go on (polling), and be woken when it is back
                self.late.update(channels)
                return
            waits.append(asyncio.ensure_future(self.ready.wait()))
        if not waits:
            return
        try:
            await asyncio.wait_for(asyncio.gather(*(asyncio.shield(w) for w in waits)), CONFIRM_SECONDS)
        except TimeoutError:
            self.late.update(channels)

    def unwatch(self, channels: list[str]) -> None:
        for channel in channels:
            self.counts[channel] -= 1
            if self.counts[channel] <= 0:
                del self.counts[channel]
                self.confirmed.discard(channel)
                self._send("unsubscribe", channel)

    def _subscribe(self, channel: str) -> list[asyncio.Future[Any]]:
        """Send SUBSCRIBE for ``channel`` (if connected): the future its confirmation resolves."""
        if self.pubsub is None:
            return []  # subscribed with every other channel in use when the connection is made
        future: asyncio.Future[Any] = self.loop.create_future()
        self.pending[channel].append(future)
        self._send("subscribe", channel)
        return [future]

    def _send(self, command: str, channel: str) -> None:
        pubsub = self.pubsub
        if pubsub is None:
            return
        sending = self.loop.create_task(getattr(pubsub, command)(channel))
        sending.add_done_callback(_sent)

    def _confirm(self, channel: str) -> None:
        queue = self.pending.get(channel)
        if queue:
            future = queue.popleft()
            if not future.done():
                future.set_result(None)
            if not queue:
                del self.pending[channel]
        if channel in self.counts:
            self.confirmed.add(channel)
        if channel in self.late:
            self.late.discard(channel)
            self.hub.notify([channel])  # its waiters went on without the confirmation: re-read once

    async def _listen(self) -> None:
        hub, loop = self.hub, self.loop
        while True:
            client = async_redis_client(settings.REDIS_URL, socket_connect_timeout=2, health_check_interval=10)
            try:
                async with client.pubsub() as pubsub:
                    # Every channel in use, in one command; RESYNC keeps the subscription
                    # alive with no waiter (redis-py stops listening with no channel).
                    channels = sorted(self.counts)
                    await pubsub.subscribe(RESYNC, *channels)
                    expected = {RESYNC, *channels}
                    self.pubsub = pubsub
                    missed = set(self.counts) - expected  # watched while the first SUBSCRIBE went out
                    if missed:
                        expected |= missed
                        await pubsub.subscribe(*missed)
                    async for message in pubsub.listen():
                        kind = message.get("type")
                        channel = message.get("channel")
                        channel = channel.decode() if isinstance(channel, bytes) else channel
                        if kind == "message":
                            if channel == RESYNC:
                                hub.notify_all()  # another process's notices were lost: re-read once
                            else:
                                hub._notify_raw(channel, message.get("data"), loop)
                        elif kind == "subscribe":
                            # The connection's own SUBSCRIBE first; a waiter's, sent while
                            # that one's replies still come, is confirmed as usual.
                            if channel in expected:
                                expected.discard(channel)
                                if channel in self.counts:
                                    self.confirmed.add(channel)
                                if not expected:  # connected
                                    hub._subscribed.add(loop)
                                    self.failing = False
                                    # Waiters that went on without a confirmed subscription (Redis
                                    # away, or since a lost connection) re-read once: what was
                                    # published meanwhile did not reach them.
                                    late, self.late = self.late, set()
                                    hub.notify(sorted(late))
                                    self.ready.set()
                            else:
                                self._confirm(channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: waiters poll the database meanwhile
                if loop in hub._subscribed:
                    log.warning(
                        "notify: Redis subscription lost (%s); waiters re-read the database every %.2f s "
                        "until it is back",
                        error,
                        settings.LIVE_POLL_SECONDS_EMBEDDED,
                    )
                hub._subscribed.discard(loop)
                self.failing = True
                await asyncio.sleep(1)
            finally:
                self.pubsub = None
                self.ready.clear()
                self.confirmed.clear()
                hub._subscribed.discard(loop)
                for queue in self.pending.values():  # their waiters go on, polling until it is back
                    for future in queue:
                        if not future.done():
                            future.set_result(None)
                self.pending.clear()
                self.late.update(self.counts)
                await client.aclose()


def _sent(task: asyncio.Task[Any]) -> None:
    """A SUBSCRIBE or UNSUBSCRIBE that could not be sent: the connection is going,
    and the listener subscribes everything again when it is back."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("notify: could not send a subscription change (%s)", task.exception())


HUB = Hub()


@lru_cache(maxsize=1)
def _redis() -> Any:
    return redis_client(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)


class _Lost:
    """Did a notice of this process fail to reach Redis since the last that did?"""

    flag = False


class _Batch(threading.local):
    """The notices of ``batched`` blocks of this thread: Redis commands not yet sent."""

    commands: list[tuple[Any, ...]] | None = None


_BATCH = _Batch()


@contextlib.contextmanager
def batched() -> Iterator[None]:
    """Within the block, ``publish`` wakes this process's waiters at once but keeps
    the Redis commands; they go out in one write when the block ends (many tables'
    notices after one commit: one round trip, not one each). Nested blocks send at the
    outermost one's end."""
    if _BATCH.commands is not None:
        yield
        return
    _BATCH.commands = []
    try:
        yield
    finally:
        commands, _BATCH.commands = _BATCH.commands, None
        if commands:
            _publish_all(commands)


def publish(channels: Iterable[str], message: Any = None, *, messages: Mapping[str, Any] | None = None) -> None:
    """Wake every waiter on ``channels``, in this process and (with Redis) all others,
    with ``message`` (a JSON value; None: none) - or, for a channel ``messages`` names,
    with that one. Notices that could not reach Redis are made good by the first
    that does: it goes out with ``RESYNC``, and every process re-reads once."""
    notices = {channel: message for channel in channels} | dict(messages or {})
    metrics.NOTICES_PUBLISHED.inc(len(notices))
    for channel, value in notices.items():
        HUB.notify([channel], value)
    if not settings.REDIS_URL:
        return
    if REDIS.is_open:
        _Lost.flag = True
        return
    mark = b"%s%d;" % (_Origin.mark, time.time_ns() // 1_000_000)
    commands: list[tuple[Any, ...]] = [
        ("PUBLISH", channel, mark + (b"" if value is None else orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)))
        for channel, value in notices.items()
    ]
    if _BATCH.commands is not None:
        _BATCH.commands += commands
        return
    _publish_all(commands)


def _publish_all(commands: list[tuple[Any, ...]]) -> None:
    """Publish ``commands`` to Redis in one write (with ``RESYNC`` after a lost one)."""
    try:
        if _Lost.flag:
            commands = [*commands, ("PUBLISH", RESYNC, b"")]
        send_all(_redis(), commands)
    except Exception as error:  # made good by the next notice that gets through (and the poll)
        _Lost.flag = True
        REDIS.failed(error)
    else:
        _Lost.flag = False
        REDIS.succeeded()
