"""Thin HTTP views of the live updates: the long-poll and the Server-Sent Events streams.

A waiting client holds neither a thread nor a database connection, so hundreds
of them do not slow the views that serve moves. The long-poll is a coroutine
(``core.async_views``). A stream view is a plain view: it validates its input,
reads the snapshot and answers with the stream's iterator (``live.streams``),
which the server then drives on its event loop (``core.wsgi_bridge``); the text
on the wire is ``core.sse``'s.
"""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.async_views import AsyncAPIView
from core.inputs import validated
from core.renderers import JSONRenderer
from core.schema import problem_responses
from core.sse import EventStreamRenderer, last_event_id, stream_response
from games import output, selectors
from games.serializers import AccountGameOutput, EventPageOutput, EventsQueryInput
from live import account_feeds, game_feeds, streams
from players.models import User

MAX_LAST_EVENT_ID = 10**10 - 1  # what the parameter's pattern allows (ten digits)

LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    {"type": "string", "pattern": r"^[0-9]{1,10}$"},
    OpenApiParameter.HEADER,
    required=False,
    description="Resume: the id (seq) of the last event you received; the stream sends the snapshot, then "
    "every event after it. Browsers' EventSource sends it by itself on reconnect. An id beyond the game's seq "
    "counts as the game's seq. (Clients that cannot set headers may send `?last_event_id=` instead.)",
)
LAST_EVENT_ID_QUERY = OpenApiParameter(
    "last_event_id",
    {"type": "string", "pattern": r"^[0-9]{1,10}$"},
    OpenApiParameter.QUERY,
    required=False,
    description="The same as the Last-Event-ID header, for clients that cannot set headers; the header wins.",
)
STREAM_DESCRIPTION = """\
Server-Sent Events (`text/event-stream`): the game as it happens, for anyone (players see their own hand \
in the snapshot; events never name a hidden tile). Each frame is one `GameStreamFrame`, told apart by its \
`event:` line:

* `snapshot` (no `id:`): first on every (re)connection, the game as you may see it (`GameView`).
* one frame per event of the game's log, in order and each once: `event:` is the event's type, `id:` its \
seq, `data:` the `Event` (its `data` one of `EventData`).
* the table chat of your channel (seated players: `players`; anyone else: `spectators`), from the moment \
the stream opened (earlier messages: `GET /games/{game_id}/chat/`), **without `id:`** (they do not move \
Last-Event-ID): `chat_message` (a new message) and `chat_message_removed` (a moderator removed one: show \
its `text`), `data:` a `ChatMessage`.
* `end` (`id:` the last seq), when the game is over (`{"seq": N, "status": "finished"}`); the server then \
closes the stream.

The stream starts with `retry: 2000` (reconnect after 2 s) and sends a `: keep-alive` comment at least \
every 15 seconds while nothing happens. **Resume**: reconnect with `Last-Event-ID: <the last id you got>` \
(browsers' EventSource does it by itself): you get the snapshot again, then every event after that id, so \
nothing is missed or repeated. A reconnection with the id of the last event of a game that is over gets \
`204 No Content`, which tells an EventSource to stop reconnecting. A stream opened with a token or session \
closes within a second or two of that token being revoked or the account suspended (reconnecting then \
answers 401); a server may also close a stream after a while (`LIVE_STREAM_MAX_SECONDS`): just resume."""
ACCOUNT_STREAM_DESCRIPTION = """\
Server-Sent Events (`text/event-stream`) about all your games. Each frame is one `AccountStreamFrame`, \
told apart by its `event:` line:

* `snapshot`: first on every (re)connection, `{"games": [AccountGame, ...]}` (your open and running games).
* `game_started`, `your_turn` (the game's `your_turn` is true) and `game_over` (with its `result`), each \
with `id: <game>.<seq>` and the game's `AccountGame` as `data`.

The stream starts with `retry: 2000` and sends a `: keep-alive` comment at least every 15 seconds. It does \
not resume: a reconnection gets a fresh snapshot, which is all you need, so `Last-Event-ID` is ignored. \
It closes when the token it was opened with is revoked or the account suspended (reconnecting then \
answers 401)."""


class GameEventsApi(AsyncAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="games_events_list",
        summary="The public event log after seq `after`; long-poll with `wait`",
        parameters=[EventsQueryInput],
        responses={200: EventPageOutput, **problem_responses("validation_error", "not_found")},
    )
    async def get(self, request: Request, game_id: int) -> Response:
        query = validated(EventsQueryInput, request.query_params)
        wait = min(query["wait"], settings.LONG_POLL_MAX_SECONDS)
        page = await streams.events_after(game_id, query["after"], wait)
        return Response(output.event_page_output(page))


class GameStreamApi(APIView):
    permission_classes = [AllowAny]
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @property
    def schema_components(self) -> list[type]:  # the feeds' frames' data (live.schema)
        return [feed.serializer for feed in game_feeds.feeds()]

    @extend_schema(
        operation_id="games_stream",
        summary="Server-Sent Events of one game (resumable)",
        description=STREAM_DESCRIPTION,
        parameters=[LAST_EVENT_ID, LAST_EVENT_ID_QUERY],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response={"$ref": "#/components/schemas/GameStreamFrame"},
                description="The stream: each event (frame) is one `GameStreamFrame`.",
            ),
            204: OpenApiResponse(
                description="The game is over and Last-Event-ID is its last event: nothing more will come, "
                "stop reconnecting."
            ),
            **problem_responses("validation_error", "not_found"),
        },
    )
    def get(self, request: Request, game_id: int) -> HttpResponse | StreamingHttpResponse:
        last_id = last_event_id(request, maximum=MAX_LAST_EVENT_ID)
        viewer = request.user if request.user.is_authenticated else None
        snapshot = output.game_body(game_id, viewer)
        seq = snapshot["game"]["seq"]
        if last_id is not None and last_id > seq:
            # An id the game has not reached (another server's, another game's): the
            # snapshot is the whole truth, and every event after it follows.
            last_id = seq
        if last_id == seq and snapshot["game"]["status"] in streams.OVER:
            # The client has the whole log of a game that is over: 204 is how Server-Sent
            # Events tell it (a browser's EventSource included) to stop reconnecting.
            return HttpResponse(status=204)
        feeds = game_feeds.start(game_id, viewer)
        events = streams.game_stream(
            game_id,
            snapshot,
            after=seq if last_id is None else last_id,
            credentials=streams.Credentials.of(request),
            viewer=viewer,
            feeds=feeds,
        )
        return stream_response(events)


class AccountStreamApi(APIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @property
    def schema_components(self) -> list[type]:  # the frames' data (live.schema), the feeds' too
        return [AccountGameOutput, *(feed.serializer for feed in account_feeds.feeds())]

    @extend_schema(
        operation_id="me_stream",
        summary="Server-Sent Events about all your games (your turn, start, end)",
        description=ACCOUNT_STREAM_DESCRIPTION,
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response={"$ref": "#/components/schemas/AccountStreamFrame"},
                description="The stream: each event (frame) is one `AccountStreamFrame`.",
            ),
            **problem_responses("not_authenticated"),
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        user = cast(User, request.user)  # IsAuthenticated
        games = selectors.account_game_list(user=user)
        feed_items, feed_state = account_feeds.snapshot(user)
        snapshot = {"games": AccountGameOutput(games, many=True).data, **feed_items}
        events = streams.account_stream(
            user, games, snapshot, credentials=streams.Credentials.of(request), feeds=feed_state
        )
        return stream_response(events)
