"""Thin views: validate -> one selector -> answer. The selectors' answers are in
the API's shape already (cached as such); the serializers describe them."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import CoreCode
from core.inputs import validated
from core.pagination import cursor_links
from core.schema import PAGE_PARAMETERS, problem_responses
from players import selectors as player_selectors
from ratings import selectors
from ratings.errors import RatingCode, RatingError
from ratings.serializers import LeaderboardEntryOutput, LeaderboardQueryInput, PlayerRatingsOutput

TAG = ["ratings"]


# A GenericAPIView for its paginator: the page answers {count, next, previous, results}.
class LeaderboardApi(GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="leaderboard_list",
        summary="A pool's leaderboard",
        description="Rated accounts of a pool, best rating (ordinal, mu - 3 sigma) first. Pages are cached "
        "until the pool's next rating update. A page's `next` link carries a `cursor` (where the page ended), "
        "so following `next` reads every page as fast as the first; `offset` is still accepted (it skips "
        "entries: the deeper, the slower). `previous` is an offset link.",
        tags=TAG,
        parameters=[LeaderboardQueryInput, *PAGE_PARAMETERS],
        responses={
            200: LeaderboardEntryOutput(many=True),
            **problem_responses("validation_error", "invalid_cursor"),
        },
    )
    def get(self, request: Request) -> Response:
        query = validated(LeaderboardQueryInput, request.query_params)
        paginator: Any = self.paginator
        limit, offset = paginator.get_limit(request), paginator.get_offset(request)
        after = None
        if "cursor" in query:
            after = selectors.BoardCursor.parse(query["cursor"])
            if after is None or paginator.offset_query_param in request.query_params:
                raise RatingError(
                    RatingCode.INVALID_CURSOR,
                    gettext("That cursor is not one a leaderboard page gave (or came with an offset)."),
                )
        page = selectors.leaderboard_page(
            pool=query["pool"], kind=query["kind"], limit=limit, offset=offset, after=after
        )
        position = after.position if after is not None else offset
        following, previous = cursor_links(request, limit=limit, position=position, cursor=page["next_cursor"])
        # The page's shape ({count, next, previous, results}) for a page the selector read (and cached) itself.
        return Response({"count": page["count"], "next": following, "previous": previous, "results": page["results"]})


class PlayerRatingsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_ratings_retrieve",
        summary="A player's ratings",
        description="For each pool the player has played rated matches in: the rating, its rank in the pool, "
        "whether it is still provisional, the recent history and the recent rated matches.",
        tags=TAG,
        responses={200: PlayerRatingsOutput, **problem_responses("not_found")},
    )
    def get(self, request: Request, username: str) -> Response:
        player = player_selectors.player_get(username=username)
        if player is None:
            raise RatingError(
                CoreCode.NOT_FOUND, gettext("There is no player '%(username)s'.") % {"username": username}
            )
        return Response(selectors.player_ratings(user=player))  # already PlayerRatings' shape
