"""Thin views of the players' side of moderation: reporting, and one's warnings."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import CoreCode
from core.inputs import validated
from core.schema import problem_responses
from core.throttling import ScopedRateThrottle
from moderation import selectors, services
from moderation.errors import ModerationError
from moderation.serializers import (
    AppealCreateInput,
    AppealOutput,
    AppealTokenInput,
    ReportCreateInput,
    ReportOutput,
    SanctionOutput,
    WarningOutput,
)
from players import selectors as player_selectors
from players import services as player_services
from players.authentication import request_account
from players.models import User

TAG = ["moderation"]


class ReportCollectionApi(GenericAPIView):
    throttle_scope = "reports"

    def get_throttles(self) -> list[Any]:
        throttles = super().get_throttles()
        return [*throttles, ScopedRateThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        operation_id="reports_list",
        summary="My reports, newest first",
        description="Only the caller's own reports: their status and, once resolved, the outcome.",
        tags=TAG,
        responses={200: ReportOutput(many=True), **problem_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.report_list_mine(reporter=request_account(request)))
        return self.get_paginated_response(ReportOutput(page, many=True).data)

    @extend_schema(
        operation_id="reports_create",
        summary="Report an account, a game or a chat message to the moderators",
        description=(
            "Exactly one target: `account` (a username), `game` (an id) or `message` (the id of a chat "
            "message you can read: `not_found` otherwise; reporting one's own is `report_self`; the report "
            "then also names the message's game and author). One open report per reporter "
            "and target (`report_exists`, with `report_id`); reports per account are limited "
            "(`THROTTLE_REPORTS`, 20 an hour by default). The reported player is never told who reported."
        ),
        tags=TAG,
        request=ReportCreateInput,
        responses={
            201: ReportOutput,
            **problem_responses(
                "validation_error", "not_authenticated", "not_found", "report_self", "report_exists", "rate_limited"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(ReportCreateInput, request.data)
        account = None
        if "account" in data:
            account = player_selectors.player_get(username=data["account"])
            if account is None:
                raise ModerationError(
                    CoreCode.NOT_FOUND, gettext("There is no player '%(account)s'.") % {"account": data["account"]}
                )
        report = services.report_create(
            reporter=request_account(request),
            reason=data["reason"],
            text=data["text"],
            account=account,
            game_id=data.get("game"),
            message_id=data.get("message"),
        )
        return Response(ReportOutput(report).data, status=status.HTTP_201_CREATED)


class WarningCollectionApi(GenericAPIView):
    @extend_schema(
        operation_id="me_warnings_list",
        summary="The warnings moderators gave me, newest first",
        tags=TAG,
        responses={200: WarningOutput(many=True), **problem_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.warning_list(player=request_account(request)))
        return self.get_paginated_response(WarningOutput(page, many=True).data)


class WarningAcknowledgeApi(APIView):
    @extend_schema(
        operation_id="me_warnings_acknowledge",
        summary="Say I have read a warning",
        description="Acknowledging again changes nothing (the first time stays).",
        tags=TAG,
        request=None,
        responses={200: WarningOutput, **problem_responses("not_authenticated", "not_found")},
    )
    def post(self, request: Request, warning_id: int) -> Response:
        warning = services.warning_acknowledge(player=request_account(request), warning_id=warning_id)
        return Response(WarningOutput(warning).data)


class SanctionCollectionApi(GenericAPIView):
    @extend_schema(
        operation_id="me_sanctions_list",
        summary="My mutes and suspensions, newest first",
        description=(
            "Each with the moderator's reason and its end (`ends_at`; none: until lifted); `lifted_at` once "
            "it was lifted or ended. A muted account cannot write in the chat (`muted`, with `until` and `reason`)."
        ),
        tags=TAG,
        responses={200: SanctionOutput(many=True), **problem_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.sanction_list(player=request_account(request)))
        return self.get_paginated_response(SanctionOutput(page, many=True).data)


class SanctionAppealApi(APIView):
    @extend_schema(
        operation_id="me_sanctions_appeal",
        summary="Appeal against one of my sanctions",
        description=(
            "One appeal per sanction in force; another moderator than the one who imposed it answers "
            "(the answer shows on the sanction, `GET /me/sanctions/`). A suspended account, which cannot "
            "sign in, appeals with `POST /api/v1/appeals/` and the token of its log-in refusal."
        ),
        tags=TAG,
        request=AppealCreateInput,
        responses={
            201: AppealOutput,
            **problem_responses("validation_error", "not_authenticated", "not_found", "appeal_exists"),
        },
    )
    def post(self, request: Request, sanction_id: int) -> Response:
        data = validated(AppealCreateInput, request.data)
        appeal = services.appeal_create(player=request_account(request), sanction_id=sanction_id, text=data["text"])
        return Response(AppealOutput(appeal).data, status=status.HTTP_201_CREATED)


class AppealTokenApi(APIView):
    schema_anonymous_methods = ("post",)
    throttle_scope = "login"

    def get_permissions(self) -> list[Any]:
        return [AllowAny()]

    @extend_schema(
        operation_id="appeals_create",
        summary="Appeal against a suspension (no sign-in)",
        description=(
            "A suspended account cannot sign in: its log-in refusal (`suspended`, given only for the "
            "right password) carries an `appeal_token` for this. One appeal per sanction."
        ),
        tags=TAG,
        request=AppealTokenInput,
        responses={
            201: AppealOutput,
            **problem_responses("validation_error", "not_found", "appeal_exists", "rate_limited"),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(AppealTokenInput, request.data)
        ids = player_services.appeal_token_read(data["appeal_token"])
        player = User.objects.filter(pk=ids[0]).first() if ids else None
        if ids is None or player is None:
            raise ModerationError(CoreCode.NOT_FOUND, gettext("This appeal token is not valid (or too old)."))
        appeal = services.appeal_create(player=player, sanction_id=ids[1], text=data["text"])
        return Response(AppealOutput(appeal).data, status=status.HTTP_201_CREATED)
