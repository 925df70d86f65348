"""The lobby on the account stream (``GET /me/stream/``, ``live.account_feeds``):
the open tables, so that a signed-in client's lobby follows new tables, seats
taken and left, and tables that start or are aborted without re-reading the list.

* The snapshot's ``tables``: the newest ``LOBBY_FEED_TABLES`` open tables.
* ``table_open``: a table is open and new or changed (its ``seq`` moved: a seat was
  taken or left, a bot added) - the whole ``GameSummary``.
* ``table_closed``: a table the stream showed left the lobby (started or aborted).

Every change of an open table (and its start or abort) publishes a notice on the
lobby channel (``live.hub.lobby_channel``, from ``live.dispatch``), which every
account stream listens to besides its own."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from games import output, selectors
from games.models import GameStatus
from games.serializers import GameSummaryOutput
from live import account_feeds
from live.account_feeds import AccountFeed, FeedItem
from live.hub import LOBBY_NOTICE

#: How many open tables the snapshot and each read hold (the newest).
LOBBY_FEED_TABLES = 50
#: Without a lobby notice, a stream re-reads the open tables at most this often.
LOBBY_FEED_POLL_SECONDS = 5.0

EVENTS = {
    "table_open": "an open table is new or changed (a seat taken or left): the table as it is now",
    "table_closed": "a table you were shown left the lobby: it started or was aborted",
}


def table_items(user: Any, keys: Sequence[str], since: datetime | None) -> list[FeedItem]:
    games = list(selectors.game_list(status=GameStatus.OPEN)[:LOBBY_FEED_TABLES])
    items = [
        FeedItem(key=str(game.pk), version=str(game.seq), event="table_open", data=output.game_summary_output(game))
        for game in games
    ]
    shown = {game.pk for game in games}
    gone = [int(k) for k in keys if k.isdigit() and int(k) not in shown]
    if gone:
        for game in selectors.game_list().filter(pk__in=gone).exclude(status=GameStatus.OPEN):
            items.append(
                FeedItem(
                    key=str(game.pk),
                    version=f"{game.status}.{game.seq}",
                    event="table_closed",
                    data=output.game_summary_output(game),
                    done=True,
                )
            )
    return items


FEED = AccountFeed(
    name="tables",
    items=table_items,
    serializer=GameSummaryOutput,
    component="GameSummary",
    events=EVENTS,
    description="The lobby's open tables (the newest 50).",
    order=-10,
    # Every account stream shows the same tables: read on a lobby notice
    # (live.LOBBY_NOTICE), and else every LOBBY_FEED_POLL_SECONDS in case one was lost.
    notice_key=next(iter(LOBBY_NOTICE)),
    min_interval=LOBBY_FEED_POLL_SECONDS,
)

account_feeds.register(FEED)
