"""Thin HTTP views of the live updates: the long-poll and the Server-Sent Events streams.

They are coroutines (``core.async_views``): a waiting client holds neither a
thread nor a database connection, so hundreds of them do not slow the views that
serve moves. Each one validates its input, reads the snapshot, and hands the
waiting to ``games.streams``; the text on the wire is ``core.sse``'s.
"""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from core.async_views import AsyncAPIView, db_call
from core.errors import CoreCode
from core.inputs import validated
from core.schema import problem_responses
from core.sse import EventStreamRenderer, last_event_id, sse_event_schema, stream_response
from games import output, selectors, streams
from games.errors import GameError
from games.serializers import EVENT_TYPE_CHOICES, AccountGameOutput, EventPageOutput, EventsQueryInput

MAX_SEQ = 2**31 - 1  # seq is a 32-bit column: anything larger is no event of any game

GAME_STREAM_DATA = (
    "JSON: for `snapshot`, the game as you may see it (`Game` schema); for an event type, the event "
    '(`EventOutput` schema, its `data` one of `EventData`); for `end`, `{"seq": N, "status": ...}`.'
)
ACCOUNT_STREAM_DATA = 'JSON: for `snapshot`, `{"games": [AccountGameOutput, ...]}`; otherwise one `AccountGameOutput`.'
LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    int,
    OpenApiParameter.HEADER,
    required=False,
    description="Resume: the id (seq) of the last event you received; the stream sends the snapshot, then "
    "every event after it. Browsers' EventSource sends it by itself on reconnect.",
)
STREAM_DESCRIPTION = (
    "A `text/event-stream`. First, on every (re)connect, `event: snapshot` (no id) with the game as you "
    "may see it (`Game` schema). Then every event of the game's log after `Last-Event-ID` (or after the "
    "snapshot's seq) as `id: <seq>`, `event: <type>`, `data: <GameEvent JSON>`. A comment line "
    "`: keep-alive` at least every 15 seconds. When the game is over: `event: end` "
    '(`{"seq": N, "status": "finished"}`) and the stream closes. A stream opened with a token or '
    "session closes (with no last event) within a second or two of that token being revoked or the account "
    "suspended; reconnecting then answers 401."
)
ACCOUNT_STREAM_DESCRIPTION = (
    "A `text/event-stream` about all your games. On every (re)connect, `event: snapshot` with "
    '`{"games": [AccountGame ...]}` (your open and running games). Then, as they happen: '
    "`your_turn` (an `AccountGame` whose `your_turn` is true), `game_started`, `game_over` (with the "
    "result), each with `id: <game>.<seq>`; `: keep-alive` comments at least every 15 seconds. "
    "Reconnecting gives a fresh snapshot, so nothing needs resuming. The stream closes when the token "
    "it was opened with is revoked or the account suspended (reconnecting then answers 401)."
)


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
        page = await streams.events_after(game_id, query["after"], query["wait"])
        return Response(output.event_page_output(page))


class GameStreamApi(AsyncAPIView):
    permission_classes = [AllowAny]
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @extend_schema(
        operation_id="games_stream",
        summary="Server-Sent Events of one game (resumable)",
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
        last_id = last_event_id(request, maximum=MAX_SEQ)
        viewer = request.user if request.user.is_authenticated else None
        snapshot = await db_call(output.game_body, game_id, viewer)
        seq = snapshot["game"]["seq"]
        if last_id is not None and last_id > seq:
            raise GameError(
                CoreCode.VALIDATION_ERROR,
                f"Last-Event-ID {last_id} is beyond this game's seq {seq}.",
                errors={"Last-Event-ID": ["beyond the game's seq"]},
            )
        events = streams.game_stream(
            game_id, snapshot, after=seq if last_id is None else last_id, credentials=streams.Credentials.of(request)
        )
        return stream_response(events)


class AccountStreamApi(AsyncAPIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    @extend_schema(
        operation_id="me_stream",
        summary="Server-Sent Events about all your games (your turn, start, end)",
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response=sse_event_schema(["snapshot", "your_turn", "game_started", "game_over"], ACCOUNT_STREAM_DATA),
                description=ACCOUNT_STREAM_DESCRIPTION,
            ),
            **problem_responses("not_authenticated"),
        },
    )
    async def get(self, request: Request) -> StreamingHttpResponse:
        games = await db_call(selectors.account_game_list, user=request.user)
        snapshot = {"games": AccountGameOutput(games, many=True).data}
        events = streams.account_stream(request.user, games, snapshot, credentials=streams.Credentials.of(request))
        return stream_response(events)
