"""Thin views of the ladder: validate -> one service or selector -> output."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.inputs import validated
from core.schema import problem_responses
from ladder import selectors, services
from ladder.errors import LadderCode, LadderError
from ladder.serializers import LadderEntryInput, LadderOutput, LadderParticipantOutput
from players.authentication import request_account

#: Who may not enter: a human account, a server level's account.
REFUSED = ("ladder_bots_only", "ladder_level_account")


class LadderApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="ladder_retrieve",
        summary="The bot ladder: its participants and schedule",
        description="Every bot on the ladder - the server's built-in levels and the outside bots that opted in - "
        "with its ladder games, and when rounds are played. A round opens rated matches among them "
        "(4 and 2 players in turn), those with the fewest ladder games seated first.",
        responses={200: LadderOutput},
    )
    def get(self, request: Request) -> Response:
        body = {"participants": selectors.participant_list(), "schedule": selectors.schedule()}
        return Response(LadderOutput(body).data)


class LadderEntryApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="ladder_entry_retrieve",
        summary="Your bot's ladder entry",
        responses={200: LadderParticipantOutput, **problem_responses("not_on_ladder")},
    )
    def get(self, request: Request) -> Response:
        row = selectors.entry_get(user_id=request_account(request).pk)
        if row is None:
            raise LadderError(LadderCode.NOT_ON_LADDER, gettext("This account has not entered the ladder."))
        return Response(LadderParticipantOutput(row).data)

    @extend_schema(
        operation_id="ladder_entry_update",
        summary="Enter your bot in the ladder (or change its terms)",
        description="The caller's bot account opts in: later rounds seat it in rated matches of the table sizes it "
        "accepts, in at most `max_games` at once. Its games have a turn clock (`schedule.turn_seconds` of "
        "GET /ladder/); they appear on the account's stream (GET /me/stream/) and in GET /games/?mine=true. "
        "Sending it again changes the terms and re-activates an entry that left.",
        request=LadderEntryInput,
        responses={200: LadderParticipantOutput, **problem_responses("validation_error", *REFUSED)},
    )
    def put(self, request: Request) -> Response:
        data = validated(LadderEntryInput, request.data)
        user = request_account(request)
        services.entry_join(user=user, table_sizes=data["table_sizes"], max_games=data["max_games"])
        return Response(LadderParticipantOutput(selectors.entry_get(user_id=user.pk)).data)

    @extend_schema(
        operation_id="ladder_entry_destroy",
        summary="Take your bot off the ladder",
        description="No new ladder games from now on; the games it is in go on (on their clock).",
        responses={204: None, **problem_responses("not_on_ladder", *REFUSED)},
    )
    def delete(self, request: Request) -> Response:
        services.entry_leave(user=request_account(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
