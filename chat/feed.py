"""The chat on the game's stream (``live.game_feeds``): each viewer gets its own
channel's new messages (``chat_message``) and removals (``chat_message_removed``)
from the moment the stream opened."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from chat import selectors
from chat.serializers import ChatMessageOutput
from live import game_feeds

#: How far before its last read a stream asks for removals: more than two servers'
#: clocks (or a commit's delay) may disagree by. Removals already sent are not sent again.
OVERLAP = timedelta(seconds=60)


@dataclass
class ChatFeedState:
    after: int  # the last message id sent (or there when the stream opened)
    read_at: datetime
    removed: set[int] = field(default_factory=set)  # removals sent
    shown: set[int] = field(default_factory=set)  # restored or approved messages sent (ids up to ``after``)


def chat_start(game_id: int, viewer: Any) -> ChatFeedState:
    return ChatFeedState(after=selectors.last_message_id(game_id=game_id), read_at=timezone.now())


def chat_items(game_id: int, viewer: Any, state: ChatFeedState) -> list[tuple[str, dict[str, Any]]]:
    now = timezone.now()
    out: list[tuple[str, dict[str, Any]]] = []
    sent_upto = state.after
    page = selectors.feed_page(game_id=game_id, user=viewer, after=sent_upto, removed_since=state.read_at - OVERLAP)
    for message in page:
        if message.pk <= sent_upto:  # there before: removed, restored or approved since
            if message.removed and message.pk not in state.removed:
                state.removed.add(message.pk)
                state.shown.discard(message.pk)
                out.append(("chat_message_removed", dict(ChatMessageOutput(selectors.message_output(message)).data)))
            elif not message.removed and message.pk not in state.shown:
                state.shown.add(message.pk)
                state.removed.discard(message.pk)
                out.append(("chat_message", dict(ChatMessageOutput(selectors.message_output(message)).data)))
            continue
        out.append(("chat_message", dict(ChatMessageOutput(selectors.message_output(message)).data)))
        state.after = message.pk
        if message.removed:
            state.removed.add(message.pk)
    state.read_at = now
    return out


game_feeds.register(
    game_feeds.GameFeed(
        name="chat",
        start=chat_start,
        items=chat_items,
        serializer=ChatMessageOutput,
        component="ChatMessage",
        events={
            "chat_message": "a new message in your channel of the table chat (seated players: `players`; "
            "anyone else: `spectators`), or an older one a moderator restored or approved (put it in its place "
            "by `id`).",
            "chat_message_removed": "a moderator removed a message of your channel: show `text` instead.",
        },
    )
)
