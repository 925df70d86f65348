"""Thin HTTP views: validate the shape -> one service or selector -> serialize."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from challenges import selectors, services
from challenges.models import Challenge
from challenges.serializers import (
    ChallengeCreateInput,
    ChallengeListQueryInput,
    ChallengeOutput,
    ChallengePolicyInput,
    ChallengePolicyOutput,
)
from core.inputs import validated
from core.schema import PAGE_PARAMETERS, problem_responses
from players.authentication import request_account
from players.models import User

#: Why an answer or a cancel can be refused by the challenge's state.
NOT_PENDING = ("challenge_expired", "challenge_started", "challenge_closed")


def _body(challenge: Challenge, viewer: User) -> dict[str, Any]:
    challenge = selectors.challenge_get(challenge_id=challenge.pk, user=viewer)
    return dict(ChallengeOutput(selectors.challenge_output(challenge, challenge.invites.all(), viewer)).data)


class ChallengeListCreateApi(GenericAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="challenges_list",
        summary="Your challenges, sent and received",
        parameters=[ChallengeListQueryInput, *PAGE_PARAMETERS],
        responses={200: ChallengeOutput(many=True), **problem_responses("validation_error", "not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        query = validated(ChallengeListQueryInput, request.query_params)
        user = request_account(request)
        services.challenges_expire(user=user)  # what ran out meanwhile reads as expired
        challenges = selectors.challenge_list(user=user, role=query.get("role"), status=query.get("status"))
        page = self.paginate_queryset(challenges) or []
        return self.get_paginated_response(
            [ChallengeOutput(selectors.challenge_output(c, c.invites.all(), user)).data for c in page]
        )

    @extend_schema(
        operation_id="challenges_create",
        summary="Challenge named accounts to a table",
        description="You take seat 0, invitee n seat n. Bot accounts whose challenge policy accepts it answer at "
        "once; when everyone has accepted, the table is created and started (`status: started`, `game`). "
        "Invitees answer with POST .../accept/ or .../decline/, told on their account stream "
        "(`challenge_received`).",
        request=ChallengeCreateInput,
        responses={
            201: ChallengeOutput,
            **problem_responses(
                "validation_error",
                "not_authenticated",
                "not_found",
                "challenge_yourself",
                "duplicate_invitee",
                "account_suspended",
                "players_mismatch",
                "invalid_ruleset",
                "unknown_strategy",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(ChallengeCreateInput, request.data)
        user = request_account(request)
        challenge = services.challenge_create(
            creator=user,
            invitees=data["invitees"],
            ruleset=data.get("ruleset"),
            rated=data["rated"],
            turn_time_limit=data.get(
                "turn_time_limit", settings.DEFAULT_TURN_SECONDS
            ),  # omitted: the default; null: none
            bot_delay_ms=data["bot_delay_ms"],
            bot_strategy=data["bot_strategy"],
            expires_in=data.get("expires_in"),
        )
        return Response(_body(challenge, user), status=status.HTTP_201_CREATED)


class ChallengeDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="challenges_retrieve",
        summary="One of your challenges",
        responses={200: ChallengeOutput, **problem_responses("not_authenticated", "not_found")},
    )
    def get(self, request: Request, challenge_id: int) -> Response:
        user = request_account(request)
        services.challenges_expire(user=user)
        challenge = selectors.challenge_get(challenge_id=challenge_id, user=user)
        return Response(ChallengeOutput(selectors.challenge_output(challenge, challenge.invites.all(), user)).data)

    @extend_schema(
        operation_id="challenges_cancel",
        summary="Cancel your challenge (creator)",
        responses={
            200: ChallengeOutput,
            **problem_responses("not_authenticated", "not_found", "not_challenge_creator", *NOT_PENDING),
        },
    )
    def delete(self, request: Request, challenge_id: int) -> Response:
        user = request_account(request)
        challenge = services.challenge_cancel(challenge_id=challenge_id, by=user)
        return Response(_body(challenge, user))


ANSWER_CODES = ("not_authenticated", "not_found", "not_invited", "already_answered", *NOT_PENDING)


class ChallengeAcceptApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="challenges_accept",
        summary="Accept a challenge you are invited to",
        description="The last acceptance creates and starts the table: the answer then has `status: started` and "
        "`game`.",
        request=None,
        responses={
            200: ChallengeOutput,
            **problem_responses(*ANSWER_CODES, "unknown_strategy"),
        },
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        user = request_account(request)
        challenge = services.challenge_accept(challenge_id=challenge_id, player=user)
        return Response(_body(challenge, user))


class ChallengeDeclineApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="challenges_decline",
        summary="Decline a challenge you are invited to (it is then over)",
        request=None,
        responses={200: ChallengeOutput, **problem_responses(*ANSWER_CODES)},
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        user = request_account(request)
        challenge = services.challenge_decline(challenge_id=challenge_id, player=user)
        return Response(_body(challenge, user))


class ChallengePolicyApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_challenge_policy_retrieve",
        summary="Your bot account's challenge policy",
        responses={200: ChallengePolicyOutput, **problem_responses("not_authenticated", "not_a_bot")},
    )
    def get(self, request: Request) -> Response:
        policy = services.policy_get(user=request_account(request))
        return Response(ChallengePolicyOutput(policy).data)

    @extend_schema(
        operation_id="me_challenge_policy_update",
        summary="Set your bot account's challenge policy",
        description="Within these limits the account accepts challenges at once, without its program.",
        request=ChallengePolicyInput,
        responses={
            200: ChallengePolicyOutput,
            **problem_responses("validation_error", "not_authenticated", "not_a_bot"),
        },
    )
    def put(self, request: Request) -> Response:
        user = request_account(request)
        services.policy_get(user=user)  # not_a_bot before the body is judged
        data = validated(ChallengePolicyInput, request.data)
        policy = services.policy_update(user=user, **data)
        return Response(ChallengePolicyOutput(policy).data)
