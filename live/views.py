"""Thin HTTP views: validate the shape -> one service or selector -> serialize."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import metrics
from core.errors import CoreCode
from core.inputs import validated
from core.pagination import LimitOffsetPagination
from core.schema import PAGE_PARAMETERS, problem_responses
from core.throttling import ScopedRateThrottle
from games import output, selectors, services
from games.errors import GameError
from games.models import Game, GameStatus
from games.serializers import (
    AfterQueryInput,
    BotAddInput,
    GameAbortInput,
    GameCreateInput,
    GameListQueryInput,
    GameOutput,
    GameRecordOutput,
    GameSummaryOutput,
    HandDetailOutput,
    HandOutput,
    MovePageOutput,
    MoveResultOutput,
    MoveSubmitInput,
    SeatChoiceInput,
    move_submit_input,
)
from players import selectors as player_selectors
from players.authentication import request_account, request_viewer
from players.models import User

PAGE = 500
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (e.g. a UUID). Retrying with the same key returns the first answer "
    "(status 200, header Idempotent-Replayed: true) instead of moving twice.",
)


# A GenericAPIView for its paginator: the list answers {count, next, previous, results}.
class GameListCreateApi(GenericAPIView):
    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        operation_id="games_list",
        summary="List games",
        # limit/offset are named here: drf-spectacular does not infer them when error responses are declared too.
        parameters=[GameListQueryInput, *PAGE_PARAMETERS],
        responses={
            200: GameSummaryOutput(many=True),
            **problem_responses("validation_error", "not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request) -> Response:
        query = validated(GameListQueryInput, request.query_params)
        viewer = request_viewer(request)
        if query["mine"] and viewer is None:
            raise GameError(CoreCode.NOT_AUTHENTICATED, gettext("Log in to list your own games."))
        player = None
        if "player" in query:
            player = player_selectors.player_get(username=query["player"])
            if player is None:
                raise GameError(CoreCode.NOT_FOUND, gettext("There is no player %(name)s.") % {"name": query["player"]})
        games = selectors.game_list(
            status=query.get("status"), mine_of=viewer if query["mine"] else None, player=player
        )
        paginator = self.paginator  # the project's (config.settings.api)
        pages = _game_pages(query, viewer, player)
        if pages is not None and isinstance(paginator, LimitOffsetPagination):
            # One account's games: the page's ids from the account's own index entries,
            # then those games by key (docs/performance.md, "Hot paths on a large database").
            paginator.counter, ids = pages
            paginator.pager = lambda limit, offset: selectors.games_by_ids(ids=ids(limit, offset))
        page = self.paginate_queryset(games) or []
        return self.get_paginated_response([output.game_summary_output(game) for game in page])

    @extend_schema(
        operation_id="games_create",
        summary="Open a table",
        request=GameCreateInput,
        responses={201: GameOutput, **problem_responses("validation_error", "invalid_ruleset", "invalid_setup")},
    )
    def post(self, request: Request) -> Response:
        data = validated(GameCreateInput, request.data)
        ruleset = data.get("ruleset") or {}
        game = services.game_create(
            creator=request_account(request),
            ruleset=ruleset,
            turn_time_limit=data.get(
                "turn_time_limit", settings.DEFAULT_TURN_SECONDS
            ),  # omitted: the default; null: none
            bot_delay_ms=data["bot_delay_ms"],
            bot_strategy=data["bot_strategy"],
            seed=data.get("seed"),
            setup=data.get("setup"),
            sit=data["sit"],
            rated=data["rated"],
        )
        return Response(output.game_body(game.pk, request_viewer(request)), status=status.HTTP_201_CREATED)


def _game_pages(
    query: dict[str, Any], viewer: User | None, player: User | None
) -> tuple[Callable[[], int], Callable[[int, int], list[int]]] | None:
    """For a list of one account's games (a player's finished games, or "mine"): its
    count and its page's ids (limit, offset), each costing the page and the account's
    index entries, not the site's games (docs/performance.md, "Hot paths on a large
    database"); None: any other list (``COUNT(*)`` and a slice of the list)."""
    status = query.get("status")
    if player is not None and not query["mine"] and status in (None, GameStatus.FINISHED):
        return (
            lambda: selectors.player_game_count(player=player),
            lambda limit, offset: selectors.player_game_page(player=player, limit=limit, offset=offset),
        )
    if query["mine"] and viewer is not None and player is None and not status:
        mine = viewer
        return (
            lambda: selectors.mine_game_count(user=mine),
            lambda limit, offset: selectors.mine_game_page(user=mine, limit=limit, offset=offset),
        )
    return None


class GameDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="games_retrieve",
        summary="A game as you may see it",
        responses={200: GameOutput, **problem_responses("not_found")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(output.game_body(game_id, request_viewer(request)))


class _GameActionApi(APIView):
    """POST /games/{id}/<action>/: one service call, answered with the game."""

    permission_classes = [IsAuthenticated]
    input_class: type | None = None

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        raise NotImplementedError

    def post(self, request: Request, game_id: int) -> Response:
        data = validated(self.input_class, request.data) if self.input_class else {}
        game = self.act(request, game_id, data)
        return Response(output.game_body(game.pk, request_viewer(request)))


#: The refusals of an action on a table that must be open (in the lobby) or running.
NOT_OPEN = ("not_found", "game_already_started", "game_finished", "game_aborted")
NOT_RUNNING = ("not_found", "game_not_started", "game_finished", "game_aborted")


def _action_schema(operation_id: str, summary: str, *codes: str) -> Callable[[type[_GameActionApi]], type]:
    """Class decorator: the OpenAPI operation of an action view's inherited ``post``
    (its request body is the view's ``input_class``)."""

    def decorate(view: type[_GameActionApi]) -> type:
        return extend_schema_view(
            post=extend_schema(
                operation_id=operation_id,
                summary=summary,
                request=view.input_class,
                responses={200: GameOutput, **problem_responses(*codes)},
            )
        )(view)

    return decorate


@_action_schema(
    "games_join",
    "Take a free seat",
    "validation_error",
    "no_such_seat",
    *NOT_OPEN,
    "game_full",
    "seat_taken",
    "already_seated",
)
class GameJoinApi(_GameActionApi):
    input_class = SeatChoiceInput

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.game_join(game_id=game_id, player=request_account(request), seat=data.get("seat"))


@_action_schema(
    "games_leave",
    "Leave your seat before the start",
    "not_seated",
    *NOT_OPEN,
)
class GameLeaveApi(_GameActionApi):
    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.game_leave(game_id=game_id, player=request_account(request))


@_action_schema(
    "games_bots_add",
    "Put a server bot in a seat (creator)",
    "validation_error",
    "unknown_strategy",
    "no_such_seat",
    "not_creator",
    *NOT_OPEN,
    "game_full",
    "seat_taken",
)
class GameBotAddApi(_GameActionApi):
    input_class = BotAddInput

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.game_add_bot(
            game_id=game_id, by=request_account(request), strategy=data["strategy"], seat=data.get("seat")
        )


@_action_schema(
    "games_start",
    "Start the game (creator, every seat taken)",
    "not_creator",
    *NOT_OPEN,
    "seats_not_filled",
)
class GameStartApi(_GameActionApi):
    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.game_start(game_id=game_id, by=request_account(request))


@_action_schema(
    "games_abort",
    "Abort the table (its creator, before the start; moderators use the admin)",
    "validation_error",
    "not_creator",
    *NOT_OPEN,
)
class GameAbortApi(_GameActionApi):
    input_class = GameAbortInput

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.game_abort(game_id=game_id, by=request_account(request), reason=data["reason"])


@_action_schema(
    "games_resign",
    "Resign: a server bot plays your seat to the end",
    "not_seated",
    *NOT_RUNNING,
    "seat_resigned",
)
class GameResignApi(_GameActionApi):
    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.game_resign(game_id=game_id, player=request_account(request))


@_action_schema(
    "games_return",
    "Take your seat back from the bot after repeated timeouts",
    "not_seated",
    *NOT_RUNNING,
    "seat_not_away",
)
class GameReturnApi(_GameActionApi):
    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return services.seat_return(game_id=game_id, player=request_account(request))


class GameMovesApi(APIView):
    throttle_scope = "moves"

    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    def get_throttles(self) -> list[Any]:
        return [ScopedRateThrottle()] if self.request.method == "POST" else super().get_throttles()

    @extend_schema(
        operation_id="games_moves_list",
        summary="The public move log, after move number `after`",
        parameters=[AfterQueryInput],
        responses={200: MovePageOutput, **problem_responses("validation_error", "not_found")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        after = validated(AfterQueryInput, request.query_params)["after"]
        game = selectors.game_get(game_id=game_id)
        moves = selectors.move_list(game=game, after=after, limit=PAGE + 1)
        return Response(MovePageOutput({"seq": game.seq, "moves": moves[:PAGE], "has_more": len(moves) > PAGE}).data)

    @extend_schema(
        operation_id="games_moves_create",
        summary="Play, draw or pass",
        parameters=[IDEMPOTENCY_KEY],
        request=MoveSubmitInput,
        responses={
            201: MoveResultOutput,
            200: MoveResultOutput,
            **problem_responses(
                "validation_error",
                "not_seated",
                "not_found",
                "stale_seq",
                "game_not_started",
                "game_finished",
                "game_aborted",
                "seat_resigned",
                "seat_away",
                "rate_limited",
                422,
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        try:
            return self._submit(request, game_id)
        except Exception as error:
            code = getattr(error, "code", None)
            metrics.labelled(metrics.MOVES_REFUSED, code if isinstance(code, str) else "server_error").inc()
            raise

    def _submit(self, request: Request, game_id: int) -> Response:
        data = move_submit_input(request.data)
        expected_seq = data.pop("expected_seq")
        key = request.headers.get("Idempotency-Key", "")
        if len(key) > 128:
            raise GameError(
                CoreCode.VALIDATION_ERROR,
                gettext("Idempotency-Key is at most 128 characters."),
                errors={"Idempotency-Key": [gettext("too long")]},
            )
        try:
            result = services.move_submit(
                game_id=game_id,
                player=request_account(request),
                move=data,
                expected_seq=expected_seq,
                idempotency_key=key,
            )
        except GameError as error:
            if error.code == "stale_seq":
                error.extra["game"] = output.game_body(game_id, request_account(request))
            raise
        if result.replayed:  # the first answer's move and events, the game as it is now
            view = selectors.game_view(game=selectors.game_get(game_id=game_id), viewer=request_account(request))
        else:  # the game as this move left it, from the rows the move locked
            view = selectors.game_view(
                game=result.game, viewer=request_account(request), seats=result.seats, match=result.match
            )
        body = {
            "move": output.move_output(result.move),
            "events": [output.event_output(e) for e in result.events],
            "game": output.game_output(view),
        }
        if result.replayed:
            return Response(body, status=status.HTTP_200_OK, headers={"Idempotent-Replayed": "true"})
        return Response(body, status=status.HTTP_201_CREATED)


class GameHandsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="games_hands_list",
        summary="The match's hands (rounds)",
        responses={200: HandOutput(many=True), **problem_responses("not_found")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get(game_id=game_id)
        return Response(HandOutput(selectors.hand_list(game=game), many=True).data)


class GameHandDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="games_hands_retrieve",
        summary="One hand with its moves (tiles revealed once it ended)",
        responses={200: HandDetailOutput, **problem_responses("not_found")},
    )
    def get(self, request: Request, game_id: int, number: int) -> Response:
        game = selectors.game_get(game_id=game_id)
        return Response(HandDetailOutput(selectors.hand_detail(game=game, number=number)).data)


class GameRecordApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="games_record",
        summary="The full record (ruleset, seed, every move) for an exact replay",
        responses={200: GameRecordOutput, **problem_responses("not_found", "game_not_finished")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get(game_id=game_id)
        return Response(GameRecordOutput(selectors.game_record(game=game, viewer=request_viewer(request))).data)
