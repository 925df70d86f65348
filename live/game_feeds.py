"""The parts of a game's stream (``GET /games/{id}/stream/``) that other apps
bring - the table chat - which games may not import. Such an app registers a
feed when it starts (``AppConfig.ready``)::

    game_feeds.register(GameFeed(
        name="chat",
        start=chat_start,            # (game_id, viewer) -> the feed's state for one stream
        items=chat_items,            # (game_id, viewer, state) -> [(event, data)]; updates state
        serializer=ChatMessageOutput,  # what a frame's data is ...
        component="ChatMessage",       # ... and its component's name in openapi.yaml
        events={"chat_message": "...", "chat_message_removed": "..."},
    ))

and, after each commit that changes something it shows, publishes a notice on
the game's channel (``live.hub.game_channel``) that is not a game notice. The
stream starts each feed when it opens ("from now": what came before is the
feed's own API's business), and asks every feed for its frames whenever it
reads the database - on such a notice and on its poll - sending them without an
``id:`` line (Last-Event-ID stays the game's seq). ``viewer`` is the account
watching, or None. A feed's frames stop with the game's ``end`` frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers

from core.sse import sse


@dataclass(frozen=True)
class GameFeed:
    name: str
    start: Callable[[int, Any], Any]
    items: Callable[[int, Any, Any], list[tuple[str, dict[str, Any]]]]
    serializer: type[serializers.Serializer]
    component: str
    events: dict[str, str]  # event name -> what it means


_FEEDS: dict[str, GameFeed] = {}
#: The names the game's own frames use (and every event type of the log: see register).
RESERVED = frozenset({"snapshot", "end"})


def register(feed: GameFeed) -> None:
    """Add ``feed`` to every game stream (registering a name again replaces it)."""
    clash = set(feed.events) & RESERVED
    if clash:
        raise ValueError(f"game feed {feed.name!r} uses names the stream keeps: {sorted(clash)}")
    for other in _FEEDS.values():
        if other.name != feed.name and set(other.events) & set(feed.events):
            raise ValueError(f"game feeds {other.name!r} and {feed.name!r} share event names")
    _FEEDS[feed.name] = feed


def feeds() -> list[GameFeed]:
    return sorted(_FEEDS.values(), key=lambda f: f.name)


def start(game_id: int, viewer: Any) -> dict[str, Any]:
    """Every feed's state for a stream opening now (reads the database)."""
    return {feed.name: feed.start(game_id, viewer) for feed in feeds()}


def frames(game_id: int, viewer: Any, states: dict[str, Any]) -> list[str]:
    """The frames every feed has for this stream since its last read (reads the database)."""
    out = []
    for feed in feeds():
        if feed.name not in states:
            states[feed.name] = feed.start(game_id, viewer)
        for event, data in feed.items(game_id, viewer, states[feed.name]):
            out.append(sse(data, event=event))
    return out
