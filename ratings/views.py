"""Thin views: validate -> one selector -> answer. The selectors' answers are in
the API's shape already (cached as such); the serializers describe them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import CoreCode
from core.inputs import validated
from core.pagination import PageQueryInput
from core.schema import problem_responses
from players import selectors as player_selectors
from ratings import selectors
from ratings.errors import RatingError
from ratings.serializers import LeaderboardEntryOutput, LeaderboardQueryInput, PlayerRatingsOutput

TAG = ["ratings"]
PAGE_PARAMETERS = [PageQueryInput]  # limit and offset, with the bounds core.pagination enforces


# A GenericAPIView for its paginator: the page answers {count, next, previous, results}.
class LeaderboardApi(GenericAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="leaderboard_list",
        summary="A pool's leaderboard",
        description="Rated accounts of a pool, best rating (ordinal, mu - 3 sigma) first. Pages are cached "
        "until the pool's next rating update.",
        tags=TAG,
        parameters=[LeaderboardQueryInput, *PAGE_PARAMETERS],
        responses={200: LeaderboardEntryOutput(many=True), **problem_responses("validation_error")},
    )
    def get(self, request: Request) -> Response:
        query = validated(LeaderboardQueryInput, request.query_params)
        paginator: Any = self.paginator
        limit, offset = paginator.get_limit(request), paginator.get_offset(request)
        page = selectors.leaderboard_page(pool=query["pool"], kind=query["kind"], limit=limit, offset=offset)
        # The paginator's links, for a page the selector read (and cached) itself.
        paginator.request, paginator.limit, paginator.offset, paginator.count = request, limit, offset, page["count"]
        return paginator.get_paginated_response(page["results"])  # already LeaderboardEntry's shape


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
            raise RatingError(CoreCode.NOT_FOUND, f"There is no player {username!r}.")
        return Response(selectors.player_ratings(user=player))  # already PlayerRatings' shape
