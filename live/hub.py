"""The fan-out hub of games: which channels a game's changes wake, what a game's
notice carries, and the waiting side.

``publish`` is called after every commit (``live.dispatch.after_commit``), by web
processes and workers alike, on ``cf:game:<id>`` and on the ``cf:user:<id>``
channel of every account seated at the game; ``core.notify`` does the waking,
across processes through Redis when it is configured. ``live.streams`` waits on
the same channels with ``HUB.subscription`` and re-reads the database at least
every ``poll_seconds()``.

Every notice says "game G is at seq S" (``bench_bots`` reads it). On the game's
channel it may also carry the game's last events, already written as the stream
sends them (``event_frame``), and the game's status at seq S (``game_notice``):
a stream that has sent every event before the first of them sends the rest as
they are, without reading the database - one rendering per change, one Redis
message per process, and each follower costs its bytes only. Anything else (a
notice without events, a gap, a notice of another database) means "look again":
the database stays the source of truth. Events are public by construction, so
the frames are the same for every viewer.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings

from core import notify
from core.notify import HUB, poll_seconds, user_channel
from core.sse import sse
from games import output
from games.models import Event

__all__ = [
    "HUB",
    "GameNotice",
    "database_tag",
    "event_frame",
    "game_channel",
    "game_notice",
    "poll_seconds",
    "publish",
    "user_channel",
]

#: The most bytes of event frames a game's notice carries: when the last events
#: are larger, the oldest are left out (a stream that needs them reads them).
NOTICE_FRAMES_MAX_BYTES = 4096


def game_channel(game_id: int) -> str:
    return f"{notify.PREFIX}game:{game_id}"


def lobby_channel() -> str:
    """Where a change of the lobby's open tables is told (``live.lobby_feed``):
    every account stream listens to it."""
    return f"{notify.PREFIX}lobby"


#: The lobby channel's message: not a game notice, so account streams read their feeds.
LOBBY_NOTICE = {"lobby": True}


def event_frame(event: Event) -> str:
    """The event as a game's stream sends it (``id: <seq>``, ``event: <type>``)."""
    return sse(output.event_output(event), event=event.type, event_id=event.seq)


def database_tag() -> str:
    """Which database a notice's events come from: Redis channels are shared by every
    database number and every deployment using that Redis, so a stream only takes
    events from a notice of its own database."""
    db = settings.DATABASES["default"]
    return _tag(str(db.get("ENGINE")), str(db.get("HOST")), str(db.get("PORT")), str(db.get("NAME")))


@lru_cache(maxsize=8)
def _tag(*parts: str) -> str:
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=8).hexdigest()


def game_notice(*, game_id: int, seq: int, status: str, events: Sequence[Event]) -> dict[str, Any]:
    """The message of a game's notice: the game is at ``seq`` with ``status``, and
    ``events`` (ascending and contiguous, the last one at ``seq``; possibly none)
    are its last events, as frames ``first``, ``first + 1``, ... - at most
    ``NOTICE_FRAMES_MAX_BYTES`` of them, the newest kept."""
    frames: list[str] = []
    size = 0
    if events and events[-1].seq == seq and all(b.seq == a.seq + 1 for a, b in itertools.pairwise(events)):
        for event in reversed(events):
            frame = event_frame(event)
            size += len(frame)
            if size > NOTICE_FRAMES_MAX_BYTES:
                break
            frames.append(frame)
        frames.reverse()
    return {
        "game": game_id,
        "seq": seq,
        "status": str(status),
        "db": database_tag(),
        "first": seq - len(frames) + 1,
        "frames": frames,
    }


@dataclass(frozen=True)
class GameNotice:
    """A game's notice as a stream reads it: frames ``first`` .. ``seq``, and the
    game's ``status`` at ``seq``."""

    seq: int
    status: str
    first: int
    frames: list[str]

    @classmethod
    def of(cls, game_id: int, message: Any, *, db: str) -> GameNotice | None:
        """The notice, if ``message`` is a usable notice of game ``game_id`` in the
        database ``db`` (``database_tag()``); None: "look again" (a bare notice,
        another format, another database)."""
        if not isinstance(message, dict) or message.get("game") != game_id or message.get("db") != db:
            return None
        seq, status, first, frames = (message.get(k) for k in ("seq", "status", "first", "frames"))
        if not (isinstance(seq, int) and isinstance(status, str) and isinstance(first, int)):
            return None
        if not isinstance(frames, list) or first + len(frames) - 1 != seq or first < 1:
            return None
        if not all(isinstance(frame, str) for frame in frames):
            return None
        return cls(seq, status, first, frames)


def publish(
    *,
    game_id: int,
    seq: int,
    user_ids: Iterable[int] = (),
    status: str | None = None,
    events: Sequence[Event] = (),
    lobby: bool = False,
) -> None:
    """Tell every waiter, in this process and (with Redis) all others, that the
    game is at ``seq``; ``user_ids``: the accounts seated at it. With ``status`` (the
    game's at ``seq``), the game's channel also gets ``events`` (its last ones).
    ``lobby``: the change concerns the lobby's open tables (``lobby_channel``)."""
    bare = {"game": game_id, "seq": seq}
    channels = [game_channel(game_id), *(user_channel(u) for u in user_ids)]
    messages: dict[str, Any] = {}
    if status is not None:
        messages[channels[0]] = game_notice(game_id=game_id, seq=seq, status=status, events=events)
    if lobby:
        channels.append(lobby_channel())
        messages[lobby_channel()] = LOBBY_NOTICE
    notify.publish(channels, bare, messages=messages)
