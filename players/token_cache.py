"""API tokens that authenticated, remembered per process, so that a request with
a token does not read the token and its account from the database every time.

What keeps it right is invalidation, pushed through Redis:

* every change to an account's credentials or standing (a token revoked, an
  account suspended or reinstated, any save of an account or a token) calls
  ``players.services.credentials_changed``: it forgets the account here at once
  and, once committed, publishes ``cf:auth`` (``core.notify.AUTH``, the account's
  id as message) for every other process;
* each web process keeps one thread subscribed to ``cf:auth`` and to
  ``cf:resync`` (some process's notices were lost: forget everything);
* the cache answers only while that subscription is live, confirmed and
  answering pings. Before it is, after it drops (until it is back, when the
  cache starts empty again) and without Redis at all (the embedded default),
  every request reads the database as before;
* a lookup that ran while something was forgotten is not kept (a generation
  count), so a read that began before a revocation committed cannot linger;
* an entry also lapses after ``TOKEN_CACHE_SECONDS`` (30; 0 turns the cache off),
  a bound on a notice lost in a way the subscription did not see.

So a revocation reaches another web process in the time Redis takes to deliver a
notice (about a millisecond); a request that reaches that process within that
time may still pass, as one already running would have. The process that made
the change forgets at once.

Each request gets its own copies of the token and account (a view may change
them, or cache related rows on them).
"""

from __future__ import annotations

import copy
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from core import notify
from core.redisconn import redis_client
from players.models import ApiToken, User

log = logging.getLogger(__name__)

#: How often the listener pings Redis, and how long a ping may go unanswered
#: before the subscription counts as lost.
PING_SECONDS = 5.0
PONG_SECONDS = 10.0


@dataclass
class _Entry:
    token: ApiToken  # with .user; never handed out, only copies of it
    expires: float  # time.monotonic()


class TokenCache:
    """Secret digest -> the active token and its account, while the listener is live."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Empty, not live, no listener: at start, and in a forked child (a gunicorn
        worker), where the parent's listener thread is not, and what it heard is no
        guarantee."""
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._generation = 0  # counts forgets: a lookup that spans one is not kept
        self.live = False  # the listener's subscription is confirmed and answering
        self.reason = "not started"  # why it is not live
        self._listener: threading.Thread | None = None
        self._url = ""  # the Redis the listener subscribes on (settings.REDIS_URL when it started)

    # -- for ApiTokenAuthentication ---------------------------------------

    def enabled(self) -> bool:
        """Can this process cache (Redis configured, a lifetime set)? Starts the
        listener if it is not running (the first call in a process, or after a fork)."""
        url = settings.REDIS_URL
        if not url or settings.TOKEN_CACHE_SECONDS <= 0:
            return False
        self._ensure_listener(url)
        return True

    def get(self, digest: str) -> ApiToken | None:
        """A copy of the cached token (with a copy of its account), or None."""
        if not self.live:
            return None
        entry = self._entries.get(digest)
        if entry is None:
            return None
        if entry.expires <= time.monotonic():
            with self._lock:
                if self._entries.get(digest) is entry:
                    del self._entries[digest]
            return None
        return _copy(entry.token)

    def generation(self) -> int:
        return self._generation

    def put(self, digest: str, token: ApiToken, *, generation: int) -> None:
        """Keep ``token`` (as read from the database), unless something was forgotten
        since ``generation`` was read or the listener is not live."""
        with self._lock:
            if not self.live or generation != self._generation:
                return
            self._entries[digest] = _Entry(_copy(token), time.monotonic() + settings.TOKEN_CACHE_SECONDS)

    def touch(self, digest: str, last_used_at: Any) -> None:
        """The token's use was recorded: the cached copy learns it (or it would be recorded again every request)."""
        entry = self._entries.get(digest)
        if entry is not None:
            entry.token.last_used_at = last_used_at

    # -- invalidation -------------------------------------------------------

    def forget(self, user_id: int) -> None:
        """Drop every token of the account ``user_id``."""
        with self._lock:
            self._generation += 1
            for digest in [d for d, e in self._entries.items() if e.token.user_id == user_id]:
                del self._entries[digest]

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()

    def _set_live(self, live: bool, reason: str, url: str) -> None:
        with self._lock:
            if url != self._url:  # an old listener's last word
                return
            self._generation += 1
            self._entries.clear()  # whatever was missed while not live (or before) is gone
            self.live = live
            self.reason = reason

    # -- the listener -------------------------------------------------------

    def _ensure_listener(self, url: str) -> None:
        listener = self._listener
        if listener is not None and self._url == url and listener.is_alive():
            return
        with self._lock:
            listener = self._listener
            if listener is not None and listener.is_alive() and self._url == url:
                return
            if listener is not None and self._url == url:
                log.error("token cache: its listener thread ended (%s); starting it again", self.reason)
            # Another Redis (only tests change it): the old listener stops at its next look.
            self._url, self.live, self.reason = url, False, "subscribing"
            self._generation += 1
            self._entries.clear()
            self._listener = threading.Thread(target=self._listen, args=(url,), name="token-cache", daemon=True)
            self._listener.start()

    def _listen(self, url: str) -> None:
        while self._url == url:
            try:
                self._subscribe_and_hear(url)
            except Exception as error:  # Redis went away: requests read the database meanwhile
                if self.live and self._url == url:
                    log.warning("token cache: Redis subscription lost (%s); tokens are read from the database", error)
                self._set_live(False, f"subscription lost: {error}", url)
            else:  # another Redis now (only tests change it): this listener's part is over
                return
            time.sleep(1)

    def _subscribe_and_hear(self, url: str) -> None:
        client = redis_client(url, socket_connect_timeout=2, socket_timeout=PONG_SECONDS)
        pubsub = client.pubsub()
        try:
            pubsub.subscribe(notify.AUTH, notify.RESYNC)
            waiting = {notify.AUTH, notify.RESYNC}
            pinged = answered = time.monotonic()
            while self._url == url:
                message = pubsub.get_message(timeout=1.0)
                now = time.monotonic()
                if message is None:
                    if now - answered > PONG_SECONDS:
                        raise ConnectionError(f"Redis did not answer a ping in {PONG_SECONDS:.0f} s")
                    if now - pinged >= PING_SECONDS:
                        pubsub.ping()
                        pinged = now
                    continue
                kind, channel = message["type"], _text(message["channel"])
                answered = now
                if kind == "subscribe":
                    # The first confirmation, or one after redis-py reconnected by
                    # itself: notices may have been missed, so start empty.
                    waiting.discard(channel)
                    if not waiting:
                        self._set_live(True, "", url)
                        log.info("token cache: live (revocations pushed through Redis)")
                elif kind == "message":
                    if channel == notify.RESYNC:
                        self.clear()
                    else:
                        user_id = notify.message_of(message["data"])
                        if isinstance(user_id, int):
                            self.forget(user_id)
                        else:
                            self.clear()
        finally:
            pubsub.close()
            client.close()


def _copy(token: ApiToken) -> ApiToken:
    user: User = token.user
    token = _shallow(token)
    # The relation's cache set as ``token.user = ...`` sets it, without that
    # assignment's checks (the account's model, the database routers): it is the
    # same account, copied.
    _TOKEN_USER.set_cached_value(token, _shallow(user))
    return token


_TOKEN_USER = ApiToken._meta.get_field("user")


def _shallow(instance: Any) -> Any:
    """What ``copy.copy`` makes of a model instance (``Model.__getstate__``): its
    fields, and its ``_state`` copied with its cache of related objects - without
    the pickle protocol's round trip around it (``__reduce__``, the model looked up
    by name, ``__setstate__``'s version check, ``copy.copy`` of the state): most
    of a cached token's lookup (docs/performance.md, "Measurements behind the
    code"). A field held as a ``memoryview`` (none of these models has one) takes
    ``copy.copy``."""
    if any(isinstance(value, memoryview) for value in instance.__dict__.values()):
        return copy.copy(instance)
    clone = object.__new__(type(instance))
    clone.__dict__.update(instance.__dict__)
    state = object.__new__(type(instance._state))
    state.__dict__.update(instance._state.__dict__)
    state.fields_cache = instance._state.fields_cache.copy()
    clone._state = state
    return clone


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


CACHE = TokenCache()
os.register_at_fork(after_in_child=CACHE._reset)
