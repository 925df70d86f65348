"""Waiting for events over HTTP: the long-poll and the Server-Sent Events streams.

These views are coroutines: a waiting client holds neither a thread nor a
database connection, so hundreds of them do not slow the views that serve moves.
Every read comes from the database (``games.live`` only wakes waiters), so a
resumed stream or a repeated long-poll never skips or repeats an event.
Events are public by construction (the engine's events name no hidden tile), so
every viewer gets the same event payloads; the snapshot is the viewer's own view.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from core.async_views import AsyncAPIView, db_call
from core.inputs import validated
from core.schema import problem_responses
from games import output, selectors
from games.errors import GameError
from core.notify import auth_channel
from games.live import HUB, game_channel, poll_seconds, user_channel
from games.models import GameStatus
from games.serializers import EVENT_TYPE_CHOICES, AccountGameOutput, EventPageOutput, EventsQueryInput
from games.views import game_body
from players import selectors as player_selectors

RETRY_MS = 2000
OVER = (GameStatus.FINISHED, GameStatus.ABORTED)


class EventStreamRenderer(BaseRenderer):
    """``text/event-stream``: the stream itself is written by the view; only error
    bodies (problem documents) are ever rendered through this."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return json.dumps(data, cls=DjangoJSONEncoder).encode()


GAME_STREAM_DATA = (
    "JSON: for `snapshot`, the game as you may see it (`Game` schema); for an event type, the event "
    "(`EventOutput` schema, its `data` one of `EventData`); for `end`, `{\"seq\": N, \"status\": ...}`."
)
ACCOUNT_STREAM_DATA = (
    "JSON: for `snapshot`, `{\"games\": [AccountGameOutput, ...]}`; otherwise one `AccountGameOutput`."
)


def sse_event_schema(events: list[str], data: str) -> dict[str, Any]:
    """The OpenAPI schema of one Server-Sent Event of a stream (the text/event-stream
    response's schema describes each event, as OpenAPI 3.2's itemSchema does):
    its `event` name, its `id` and its `data` (a JSON document, as a string)."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "enum": events, "description": "The event's name (`event:` line)."},
            "id": {"type": "string", "description": "Its id (`id:` line): send the last one as Last-Event-ID."},
            "data": {"type": "string", "description": data},
            "retry": {"type": "integer", "description": "Reconnection delay in ms (`retry:` line)."},
        },
    }


def sse(data: Any, *, event: str | None = None, event_id: str | int | None = None) -> str:
    """One Server-Sent Event."""
    head = "" if event_id is None else f"id: {event_id}\n"
    if event:
        head += f"event: {event}\n"
    return f"{head}data: {json.dumps(data, separators=(',', ':'), cls=DjangoJSONEncoder)}\n\n"


async def _wait(wake: asyncio.Event, seconds: float) -> None:
    with suppress(TimeoutError):
        await asyncio.wait_for(wake.wait(), max(0.0, seconds))


async def wait_for_events(game_id: int, after: int, seconds: float) -> dict[str, Any]:
    """The first page of events after ``after``, waiting up to ``seconds`` for one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    async with HUB.subscription([game_channel(game_id)]) as wake:
        while True:
            wake.clear()  # before reading: a notice during the read is not lost
            page = await db_call(selectors.event_page, game_id=game_id, after=after)
            remaining = deadline - loop.time()
            if page["events"] or page["status"] in OVER or remaining <= 0:
                return page
            await _wait(wake, min(remaining, poll_seconds()))


def _viewer(request: Request) -> Any:
    return request.user if request.user.is_authenticated else None


class GameEventsApi(AsyncAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="games_events_list", summary="The public event log after seq `after`; long-poll with `wait`",
        parameters=[EventsQueryInput], responses={200: EventPageOutput, **problem_responses("validation_error", "not_found")},
    )
    async def get(self, request: Request, game_id: int) -> Response:
        query = validated(EventsQueryInput, request.query_params)
        after, wait = query["after"], query["wait"]
        page = await db_call(selectors.event_page, game_id=game_id, after=after)
        if not page["events"] and wait > 0 and page["status"] not in OVER:
            page = await wait_for_events(game_id, after, wait)
        return Response(output.event_page_output(page))


LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID", int, OpenApiParameter.HEADER, required=False,
    description="Resume: the id (seq) of the last event you received; the stream sends the snapshot, then "
    "every event after it. Browsers' EventSource sends it by itself on reconnect.",
)
STREAM_DESCRIPTION = (
    "A `text/event-stream`. First, on every (re)connect, `event: snapshot` (no id) with the game as you "
    "may see it (`Game` schema). Then every event of the game's log after `Last-Event-ID` (or after the "
    "snapshot's seq) as `id: <seq>`, `event: <type>`, `data: <GameEvent JSON>`. A comment line "
    "`: keep-alive` at least every 15 seconds. When the game is over: `event: end` "
    "(`{\"seq\": N, \"status\": \"finished\"}`) and the stream closes. A stream opened with a token or "
    "session closes (with no last event) within a second or two of that token being revoked or the account "
    "suspended; reconnecting then answers 401."
)


MAX_SEQ = 2**31 - 1  # seq is a 32-bit column: anything larger is no event of any game


def _last_event_id(request: Request) -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.query_params.get("last_event_id")
    if raw in (None, ""):
        return None
    # ASCII digits only: str.isdigit() also accepts "²" or "١٢", which int() refuses.
    if not re.fullmatch(r"[0-9]{1,10}", str(raw)) or int(raw) > MAX_SEQ:
        raise GameError("validation_error", "Last-Event-ID must be an event seq (a whole number).",
                        errors={"Last-Event-ID": ["not an event seq"]})
    return int(raw)


def _stream_response(events: AsyncIterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(events, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies: do not buffer the stream
    return response


class GameStreamApi(AsyncAPIView):
    permission_classes = [AllowAny]
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @extend_schema(
        operation_id="games_stream", summary="Server-Sent Events of one game (resumable)",
        parameters=[LAST_EVENT_ID],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response=sse_event_schema(["snapshot", *EVENT_TYPE_CHOICES, "end"], GAME_STREAM_DATA),
                description=STREAM_DESCRIPTION,
            ),
            **problem_responses("validation_error", "not_found"),
        },
    )
    async def get(self, request: Request, game_id: int) -> StreamingHttpResponse:
        last_id = _last_event_id(request)
        viewer = _viewer(request)
        snapshot = await db_call(game_body, game_id, viewer)
        seq = snapshot["game"]["seq"]
        if last_id is not None and last_id > seq:
            raise GameError("validation_error", f"Last-Event-ID {last_id} is beyond this game's seq {seq}.",
                            errors={"Last-Event-ID": ["beyond the game's seq"]})
        reader = _GameReader(game_id, seq if last_id is None else last_id)
        return _stream_response(_sse_stream(snapshot, game_channel(game_id), reader.read, Credentials.of(request)))


# What a stream's reader says after each read.
MORE, WAIT, END = "more", "wait", "end"
Reader = Callable[[], Awaitable[tuple[list[str], str]]]


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

    async def still_valid(self) -> bool:
        return await db_call(player_selectors.credentials_valid, user_id=self.user_id, token_id=self.token_id)


async def _sse_stream(snapshot: Any, channel: str, read: Reader, credentials: Credentials | None) -> AsyncIterator[str]:
    """The frame of every stream: the reconnect hint and the snapshot first; then,
    each time ``channel`` wakes (or the poll interval passes), the messages ``read``
    returns - at once again while it says ``more``, until it says ``end`` - with a
    keep-alive comment at least every ``LIVE_KEEPALIVE_SECONDS``. A stream opened
    with credentials closes as soon as they are no good any more (a revoked token,
    a suspended account): a client that reconnects then gets 401."""
    loop = asyncio.get_running_loop()
    keepalive = settings.LIVE_KEEPALIVE_SECONDS
    closes_at = loop.time() + settings.LIVE_STREAM_MAX_SECONDS if settings.LIVE_STREAM_MAX_SECONDS else None
    # Credentials are re-checked when a notice says they changed (core.notify.auth_channel)
    # and, in case that notice was lost (Redis away), every LIVE_CREDENTIALS_RECHECK_SECONDS -
    # and once right after subscribing, for a change between the request's authentication
    # and then. Subscribed before the snapshot goes out: a client that has it misses nothing.
    recheck = settings.LIVE_CREDENTIALS_RECHECK_SECONDS
    next_check = loop.time()
    watched = [auth_channel(credentials.user_id)] if credentials else []
    async with HUB.subscription([channel, *watched]) as wake, HUB.subscription(watched) as changed:
        yield f"retry: {RETRY_MS}\n\n" + sse(snapshot, event="snapshot")
        next_ping = loop.time() + keepalive
        while True:
            wake.clear()  # before reading: a notice during the read is not lost
            if credentials is not None and (changed.is_set() or loop.time() >= next_check):
                changed.clear()
                next_check = loop.time() + recheck
                if not await credentials.still_valid():
                    return
            messages, state = await read()
            for message in messages:
                yield message
            if state == END:
                return
            if state == MORE:
                continue
            now = loop.time()
            if closes_at is not None and now >= closes_at:
                return  # the client reconnects and resumes after the last id it got
            if now >= next_ping:
                yield ": keep-alive\n\n"
                next_ping = now + keepalive
            await _wait(wake, min(next_ping - now, next_check - now, poll_seconds(),
                                  closes_at - now if closes_at is not None else keepalive))


class _GameReader:
    """A game's events after ``after``, page by page; ``end`` once the game is over."""

    def __init__(self, game_id: int, after: int) -> None:
        self.game_id = game_id
        self.after = after

    async def read(self) -> tuple[list[str], str]:
        page = await db_call(selectors.event_page, game_id=self.game_id, after=self.after)
        messages = []
        for event in page["events"]:
            messages.append(sse(output.event_output(event), event=event.type, event_id=event.seq))
            self.after = event.seq
        if page["has_more"]:
            return messages, MORE
        if page["status"] in OVER:
            messages.append(sse({"seq": self.after, "status": page["status"]}, event="end"))
            return messages, END
        return messages, WAIT


# -- the account stream -------------------------------------------------------

ACCOUNT_STREAM_DESCRIPTION = (
    "A `text/event-stream` about all your games. On every (re)connect, `event: snapshot` with "
    "`{\"games\": [AccountGame ...]}` (your open and running games). Then, as they happen: "
    "`your_turn` (an `AccountGame` whose `your_turn` is true), `game_started`, `game_over` (with the "
    "result), each with `id: <game>.<seq>`; `: keep-alive` comments at least every 15 seconds. "
    "Reconnecting gives a fresh snapshot, so nothing needs resuming. The stream closes when the token "
    "it was opened with is revoked or the account suspended (reconnecting then answers 401)."
)


class AccountStreamApi(AsyncAPIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @extend_schema(
        operation_id="me_stream", summary="Server-Sent Events about all your games (your turn, start, end)",
        responses={(200, "text/event-stream"): OpenApiResponse(
                       response=sse_event_schema(["snapshot", "your_turn", "game_started", "game_over"], ACCOUNT_STREAM_DATA),
                       description=ACCOUNT_STREAM_DESCRIPTION),
                   **problem_responses("not_authenticated")},
    )
    async def get(self, request: Request) -> StreamingHttpResponse:
        user = request.user
        games = await db_call(selectors.account_game_list, user=user)
        snapshot = {"games": AccountGameOutput(games, many=True).data}
        reader = _AccountReader(user, games)
        return _stream_response(_sse_stream(snapshot, user_channel(user.pk), reader.read, Credentials.of(request)))


class _AccountReader:
    """What changed in the account's games since the last read: game_over,
    game_started, your_turn. The stream never ends by itself."""

    def __init__(self, user: Any, games: list[dict[str, Any]]) -> None:
        self.user = user
        self.known = {g["game"]: g for g in games}

    async def read(self) -> tuple[list[str], str]:
        messages = []
        for row in await db_call(selectors.account_game_list, user=self.user, also=list(self.known)):
            before = self.known.get(row["game"])
            if before is not None and before["seq"] == row["seq"]:
                continue  # nothing happened in this game
            data, event_id = AccountGameOutput(row).data, f"{row['game']}.{row['seq']}"
            if row["status"] in OVER:
                messages.append(sse(data, event="game_over", event_id=event_id))
                self.known.pop(row["game"], None)
                continue
            if before is not None and before["status"] == GameStatus.OPEN and row["status"] == GameStatus.RUNNING:
                messages.append(sse(data, event="game_started", event_id=event_id))
            if row["your_turn"]:
                messages.append(sse(data, event="your_turn", event_id=event_id))
            self.known[row["game"]] = row
        return messages, WAIT
