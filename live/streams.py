"""Waiting for games to change: the long-poll's wait, and what both event streams send when.

A waiter subscribes to its channels (``live.hub``) before it reads, reads the
database each time a notice wakes it (or the poll interval passes), and sends
what it has not sent yet: a notice says "look again", so a resumed stream or
a repeated long-poll never skips or repeats an event. A game's stream may skip
the read: when every notice that woke it carries the game's last events
(``live.GameNotice``) and they follow on from the last event it sent, it sends
them as they are; a gap, a bare notice or the poll interval sends it to the
database as before. Everything here is a
coroutine: a waiting client holds neither a thread nor a database connection
(``core.async_views.db_call`` borrows one for each read). How the events are
written on the wire is ``core.sse``'s business.

Events are public by construction (the engine's events name no hidden tile), so
every viewer gets the same event payloads; the snapshot is the viewer's own view.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.request import Request

from core import metrics
from core.async_views import db_call
from core.notify import Notice, auth_channel, spread
from core.sse import KEEP_ALIVE, retry_hint, sse
from games import selectors
from games.models import GameStatus
from games.serializers import AccountGameOutput
from live import account_feeds, game_feeds
from live.hub import (
    HUB,
    GameNotice,
    database_tag,
    event_frame,
    game_channel,
    lobby_channel,
    poll_seconds,
    user_channel,
)
from players import selectors as player_selectors

OVER = (GameStatus.FINISHED, GameStatus.ABORTED)

# What a stream's reader says after each read: read again at once, wait for a wake, or close.
MORE, WAIT, END = "more", "wait", "end"
# A check of the stream's credentials (run in a database thread): are they still good?
Check = Callable[[], bool]
# A reader gets the notices that woke the stream since its last read (none: the poll
# interval passed, or it reads again at once) and, when the credentials are due for a
# check, that check: if it reads the database it runs the check first, in the same
# borrowing of a thread and a connection (``db_call``), and reads nothing more if it
# fails. It returns its messages, what to do next, and the check's answer (None: not run).
Reader = Callable[[list[Notice], Check | None], Awaitable[tuple[list[str], str, bool | None]]]


async def _wait(wake: asyncio.Event, seconds: float) -> None:
    """Until ``wake`` is set or ``seconds`` have passed. (A timeout on the waiting
    task itself: ``wait_for`` would run the wait as a task of its own, one more
    task, future and context per open stream, and per wake.)"""
    with suppress(TimeoutError):
        async with asyncio.timeout(max(0.0, seconds)):
            await wake.wait()


# -- the long-poll ----------------------------------------------------------------


async def events_after(game_id: int, after: int, wait: float) -> dict[str, Any]:
    """The first page of the game's events after ``after``: at once if there is one (or
    the game is over), else as soon as one comes, or empty after ``wait`` seconds."""
    page = await db_call(selectors.event_page, game_id=game_id, after=after)
    if page["events"] or wait <= 0 or page["status"] in OVER:
        return page
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    async with HUB.subscription([game_channel(game_id)]) as wake, _counting(metrics.STREAMS_OPEN.labels("longpoll")):
        while True:
            wake.clear()  # before reading: a notice during the read is not lost
            page = await db_call(selectors.event_page, game_id=game_id, after=after)
            remaining = deadline - loop.time()
            if page["events"] or page["status"] in OVER or remaining <= 0:
                return page
            await _wait(wake, min(remaining, poll_seconds()))


@asynccontextmanager
async def _counting(gauge: Any) -> AsyncIterator[None]:
    """One more in ``gauge`` while the block runs (a waiting long-poll)."""
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


async def _counted(frames: AsyncIterator[str], kind: str) -> AsyncIterator[str]:
    """``frames``, counted in the open streams gauge (``kind``: game or account) while open."""
    open_streams = metrics.STREAMS_OPEN.labels(kind)
    open_streams.inc()
    try:
        async for frame in frames:
            yield frame
    finally:
        open_streams.dec()
        await frames.aclose()  # type: ignore[attr-defined]


# -- the frame of both streams ---------------------------------------------------


@dataclass(frozen=True)
class Credentials:
    """Who opened a stream, and with which token (None: a browser session)."""

    user_id: int
    token_id: int | None

    @classmethod
    def of(cls, request: Request) -> Credentials | None:
        if not request.user.is_authenticated:
            return None  # anyone may watch a game's public stream: nothing to lose
        token = request.auth
        return cls(request.user.pk, getattr(token, "pk", None))

    def valid(self) -> bool:
        """Still good? (Reads the database: call it in a database thread.)"""
        return player_selectors.credentials_valid(user_id=self.user_id, token_id=self.token_id)


async def event_stream(
    snapshot: Any, channel: str, read: Reader, credentials: Credentials | None, *, also: Sequence[str] = ()
) -> AsyncIterator[str]:
    """The frame of every stream: the reconnect hint and the snapshot first; then,
    each time ``channel`` wakes (or the poll interval, ``core.notify.poll_seconds``,
    passes without a read), the messages ``read``
    returns - at once again while it says ``more``, until it says ``end`` - with a
    keep-alive comment at least every ``LIVE_KEEPALIVE_SECONDS``. A stream opened
    with credentials closes as soon as they are no good any more (a revoked token,
    a suspended account): a client that reconnects then gets 401. With
    ``LIVE_STREAM_MAX_SECONDS`` set, the stream closes after that long (between reads)."""
    # The snapshot as text at once: an open stream keeps one string, not the game's
    # view (hundreds of objects that every full collection of the heap would walk).
    opening = retry_hint() + sse(snapshot, event="snapshot")
    del snapshot
    loop = asyncio.get_running_loop()
    keepalive = settings.LIVE_KEEPALIVE_SECONDS
    closes_at = loop.time() + settings.LIVE_STREAM_MAX_SECONDS if settings.LIVE_STREAM_MAX_SECONDS else None

    # Credentials are re-checked when a notice says they changed (core.notify.auth_channel)
    # and, in case that notice was lost (Redis away), every LIVE_CREDENTIALS_RECHECK_SECONDS -
    # and once right after subscribing, for a change between the request's authentication
    # and then. Subscribed before the snapshot goes out: a client that has it misses nothing.
    # A check due when the stream reads the database goes with that read (one borrowing
    # of a thread and a connection); with notices flowing it is a safety net, as rare as
    # the poll and due at the same instant, so an idle stream wakes once per interval.
    # (A stream without credentials has nothing to re-check: never due - else its waits
    # would all be 0 s and it would read the database in a loop.)
    share = spread(1.0)  # this stream's share of the intervals: streams opened together do not read together

    def recheck() -> float:
        seconds = float(settings.LIVE_CREDENTIALS_RECHECK_SECONDS)
        return (max(seconds, poll_seconds()) if HUB.listening else seconds) * share

    check = credentials.valid if credentials is not None else None
    next_check = loop.time() if credentials is not None else math.inf
    watched = [auth_channel(credentials.user_id)] if credentials else []
    async with (
        HUB.subscription([channel, *also, *watched], messages=True) as wake,
        HUB.subscription(watched) as changed,
    ):
        yield opening
        del opening
        next_ping = loop.time() + keepalive
        # Read when a notice came, when the last read said there is more, and else
        # every poll interval (this stream's share of it) - not on a keep-alive.
        read_at, state = -math.inf, MORE
        while True:
            wake.clear()  # before reading: a notice during the read is not lost
            notices = wake.take()  # those that came since the last read (none: a timeout)
            now = loop.time()
            checking = check is not None and (changed.is_set() or now >= next_check)
            if checking:
                changed.clear()
                next_check = now + recheck()
            if notices or state == MORE or now >= read_at + poll_seconds() * share:
                read_at = now
                messages, state, valid = await read(notices, check if checking else None)
                if checking and valid is None and check is not None:  # the read did not go to the database
                    valid = await db_call(check)
                if checking and not valid:
                    # What the read found is not theirs any more; only a reader's
                    # farewell frames come with a failed check (why: a suspension).
                    if messages:
                        yield "".join(messages)
                    return
                if messages:  # one write for all of them: a socket write costs more than the bytes
                    yield "".join(messages)
                if state == END:
                    return
                if state == MORE:
                    continue
            elif checking and check is not None and not await db_call(check):
                return
            now = loop.time()
            if closes_at is not None and now >= closes_at:
                return  # the client reconnects and resumes after the last id it got
            if now >= next_ping:
                yield KEEP_ALIVE
                next_ping = now + keepalive
            await _wait(
                wake,
                min(
                    next_ping - now,
                    next_check - now,
                    read_at + poll_seconds() * share - now,
                    closes_at - now if closes_at is not None else keepalive,
                ),
            )


# -- one game's stream -----------------------------------------------------------


class _GameReader:
    """A game's events after ``after``, page by page; ``end`` once the game is over.

    The first read, a read after a page that said ``more``, and a read woken by
    anything but usable game notices (``live.GameNotice``) read the database. Else
    each notice in turn: one whose events all were sent already is ignored; one
    that goes on from ``after`` sends its frames from ``after + 1`` (and ``end``
    when the game is over at its seq); one that starts past ``after + 1`` (a gap)
    sends the reader to the database for the rest. Each database read also asks
    the other apps' feeds (``live.game_feeds``, e.g. the table chat) for the
    viewer's frames (sent without ``id:``)."""

    def __init__(self, game_id: int, after: int, viewer: Any = None, feeds: dict[str, Any] | None = None) -> None:
        self.game_id = game_id
        self.after = after
        self.viewer = viewer
        self.feeds = feeds
        self.channel = game_channel(game_id)
        self.db = database_tag()
        self._read_db = True  # the next read goes to the database whatever woke it
        self.reads = 0  # database reads (for the tests)

    async def read(self, notices: list[Notice], check: Check | None = None) -> tuple[list[str], str, bool | None]:
        messages: list[str] = []
        if not self._read_db:
            mine = [GameNotice.of(self.game_id, m, db=self.db) for channel, m in notices if channel == self.channel]
            if mine and all(notice is not None for notice in mine):
                for notice in mine:
                    assert notice is not None
                    if notice.first > self.after + 1:
                        break  # a gap: the database has the events in between
                    messages += notice.frames[self.after + 1 - notice.first :]
                    self.after = max(self.after, notice.seq)
                    if notice.seq == self.after and notice.status in OVER:
                        return [*messages, self._end(notice.status)], END, None
                else:
                    return messages, WAIT, None
        more, state, valid = await self._from_database(check)
        return messages + more, state, valid

    def _read(self, check: Check | None) -> tuple[bool | None, list[str], dict[str, Any] | None]:
        """The credentials' check (if due), the feeds' frames and the page of events:
        one borrowing of a thread and a connection for all (``db_call``)."""
        valid = check() if check is not None else None
        if valid is False:
            return valid, [], None
        feed_frames = []
        if self.feeds is not None and game_feeds.feeds():
            feed_frames = game_feeds.frames(self.game_id, self.viewer, self.feeds)
        return valid, feed_frames, selectors.event_page(game_id=self.game_id, after=self.after)

    async def _from_database(self, check: Check | None) -> tuple[list[str], str, bool | None]:
        self.reads += 1
        valid, messages, page = await db_call(self._read, check)
        if page is None:
            return [], END, valid
        for event in page["events"]:
            messages.append(event_frame(event))
            self.after = event.seq
        self._read_db = page["has_more"]
        if page["has_more"]:
            return messages, MORE, valid
        if page["status"] in OVER:
            return [*messages, self._end(page["status"])], END, valid
        return messages, WAIT, valid

    def _end(self, status: str) -> str:
        # With the last seq as its id: a browser's EventSource reconnects with it and gets 204.
        return sse({"seq": self.after, "status": status}, event="end", event_id=self.after)


def game_stream(
    game_id: int,
    snapshot: dict[str, Any],
    *,
    after: int,
    credentials: Credentials | None,
    viewer: Any = None,
    feeds: dict[str, Any] | None = None,
) -> AsyncIterator[str]:
    """The game's stream: ``snapshot`` (the ``GameView`` as the viewer sees it), then every
    event after seq ``after`` as ``id: <seq>``, and ``end`` when the game is over; with
    ``feeds`` (``game_feeds.start``), the feeds' frames for ``viewer`` (None: anonymous)."""
    reader = _GameReader(game_id, after, viewer, feeds)
    return _counted(event_stream(snapshot, game_channel(game_id), reader.read, credentials), "game")


# -- an account's stream ---------------------------------------------------------


class _AccountReader:
    """What changed in the account's games since the last read: game_over,
    game_started, your_turn; and in the other apps' feeds (``live.account_feeds``).
    The stream never ends by itself."""

    def __init__(self, user: Any, games: list[dict[str, Any]], feeds: account_feeds.FeedState | None) -> None:
        self.user = user
        self.known = {g["game"]: g for g in games}
        self.feeds = feeds

    def _rows(self, check: Check | None) -> tuple[bool | None, list[dict[str, Any]]]:
        """The credentials' check (if due) and the account's games, in one borrowing."""
        valid = check() if check is not None else None
        if valid is False:
            return valid, []
        return valid, selectors.account_game_list(user=self.user, also=list(self.known))

    async def read(self, notices: list[Notice], check: Check | None = None) -> tuple[list[str], str, bool | None]:
        messages = []
        valid, rows = await db_call(self._rows, check)
        if valid is False:
            return await self._farewell(), END, valid
        for row in rows:
            before = self.known.get(row["game"])
            if before is not None and before["seq"] == row["seq"]:
                continue  # nothing happened in this game
            data, event_id = AccountGameOutput(row).data, f"{row['game']}.{row['seq']}"
            if row["status"] in OVER:
                messages.append(sse(data, event="game_over", event_id=event_id))
                self.known.pop(row["game"], None)
                continue
            # Started since the last read: seen open before, or new and already running (a
            # table created and started in one transaction, e.g. an accepted challenge's).
            if row["status"] == GameStatus.RUNNING and (before is None or before["status"] == GameStatus.OPEN):
                messages.append(sse(data, event="game_started", event_id=event_id))
            if row["your_turn"]:
                messages.append(sse(data, event="your_turn", event_id=event_id))
            self.known[row["game"]] = row
        # The feeds change only with a notice of their own (account_feeds.notify_accounts):
        # a wake by game notices alone (every move of every game the account sits at)
        # does not read them; any other wake, the first read and the poll do.
        game_notices_only = bool(notices) and all(isinstance(m, dict) and "game" in m for _, m in notices)
        if self.feeds is not None and account_feeds.feeds() and not game_notices_only:
            woken_by = frozenset(k for _, m in notices if isinstance(m, dict) for k in m)
            for event, payload, feed_id in await db_call(account_feeds.changes, self.user, self.feeds, woken_by):
                messages.append(sse(payload, event=event, event_id=feed_id))
        return messages, WAIT, valid

    async def _farewell(self) -> list[str]:
        """The credentials failed: the changes of the feeds marked ``farewell`` (the
        account's own sanctions: a suspension says why the stream closes), nothing else."""
        if self.feeds is None or not any(feed.farewell for feed in account_feeds.feeds()):
            return []
        changed = await db_call(account_feeds.changes, self.user, self.feeds, farewell=True)
        return [sse(payload, event=event, event_id=feed_id) for event, payload, feed_id in changed]


def account_stream(
    user: Any,
    games: list[dict[str, Any]],
    snapshot: dict[str, Any],
    *,
    credentials: Credentials | None,
    feeds: account_feeds.FeedState | None = None,
) -> AsyncIterator[str]:
    """The account's stream: ``snapshot`` (its ``games``, ``account_game_list`` rows,
    and the feeds' items, ``feeds`` saying which), then what happens from there on."""
    return _counted(
        event_stream(
            snapshot,
            user_channel(user.pk),
            _AccountReader(user, games, feeds).read,
            credentials,
            also=[lobby_channel()],
        ),
        "account",
    )
