"""The fan-out hub of games: which channels a game's changes wake, and the waiting side.

``publish`` is called after every commit (``games.dispatch.after_commit``), by web
processes and workers alike, on ``cf:game:<id>`` and on the ``cf:user:<id>``
channel of every account seated at the game; ``core.notify`` does the waking,
across processes through Redis when it is configured. ``games.streams`` waits on
the same channels with ``HUB.subscription`` and re-reads the database at least
every ``poll_seconds()``.

A notice carries no game data, only "game G is at seq S" (``bench_bots`` reads
it; no waiter does): the database stays the source of truth, and a waiter that
wakes (or times out) reads the events it has not seen from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from core import notify
from core.notify import HUB, poll_seconds, user_channel

__all__ = ["HUB", "game_channel", "poll_seconds", "publish", "user_channel"]


def game_channel(game_id: int) -> str:
    return f"{notify.PREFIX}game:{game_id}"


def publish(*, game_id: int, seq: int, user_ids: Iterable[int] = ()) -> None:
    """Tell every waiter, in this process and (with Redis) all others, that the
    game is at ``seq``; ``user_ids``: the accounts seated at it."""
    channels = [game_channel(game_id), *(user_channel(u) for u in user_ids)]
    notify.publish(channels, json.dumps({"game": game_id, "seq": seq}))
