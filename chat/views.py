"""Thin views of the table chat: validate -> one selector or service -> output."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from chat import selectors, services
from chat.models import MessageState
from chat.serializers import ChatHeldOutput, ChatMessageInput, ChatMessageOutput, ChatPageOutput, ChatQueryInput
from chat.services import WRITE_AFTER_END
from core.errors import ApiError, CoreCode
from core.inputs import validated
from core.schema import problem_responses
from core.throttling import ScopedRateThrottle
from players.authentication import request_account

TAG = ["chat"]


class ChatApi(APIView):
    permission_classes = [AllowAny]  # reading the spectators' channel needs no account
    throttle_scope = "chat"

    def get_throttles(self) -> list[Any]:
        throttles = super().get_throttles()
        return [*throttles, ScopedRateThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        operation_id="games_chat_list",
        summary="The table chat: one channel's messages, oldest first",
        description=(
            "The players' channel is for the accounts seated at the game; the spectators' channel for "
            "everyone else, signed in or not (seated players may not read it: `chat_channel_closed`). "
            "Without `after`: the last `limit` messages; with `after`: the first `limit` after that id "
            "(`has_more` says whether more follow). New ones come on the game's stream as `chat_message` "
            "frames. A message a moderator removed reads `removed by a moderator` (`removed: true`)."
        ),
        tags=TAG,
        parameters=[ChatQueryInput],
        responses={
            200: ChatPageOutput,
            **problem_responses("validation_error", "not_found", "not_seated", "chat_channel_closed"),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = validated(ChatQueryInput, request.query_params)
        page = selectors.message_list(
            game_id=game_id, user=request.user, channel=query["channel"], after=query.get("after"), limit=query["limit"]
        )
        return Response(
            {
                "messages": [ChatMessageOutput(selectors.message_output(m)).data for m in page["messages"]],
                "has_more": page["has_more"],
            }
        )

    @extend_schema(
        operation_id="games_chat_create",
        summary="Write in the table chat",
        description=(
            "Seated players write in `players`, anyone else signed in in `spectators`. Open and running "
            f"games, and for {int(WRITE_AFTER_END.total_seconds() // 60)} minutes after the game finished or "
            "was aborted (`chat_closed` after that; reading stays open). A muted account is refused "
            "(`muted`, with `until`). Messages per account are limited (`THROTTLE_CHAT`, 20 a minute by default). "
            "The moderators' filter refuses a message with a blocked word or link (`chat_blocked`) and a new "
            "account's links past its limit (`chat_links_limited`, with `allowed` and `hours`); a message it "
            "holds for review is answered 202 (`held`): nobody else reads it unless a moderator approves it."
        ),
        tags=TAG,
        request=ChatMessageInput,
        responses={
            201: ChatMessageOutput,
            202: ChatHeldOutput,
            **problem_responses(
                "validation_error",
                "not_authenticated",
                "not_found",
                "not_seated",
                "chat_channel_closed",
                "chat_closed",
                "muted",
                "chat_blocked",
                "chat_links_limited",
                "rate_limited",
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        if not request.user.is_authenticated:
            raise ApiError(gettext("Sign in to write in the chat."), code=CoreCode.NOT_AUTHENTICATED)
        data = validated(ChatMessageInput, request.data)
        message = services.chat_message_create(
            game_id=game_id, author=request_account(request), channel=data["channel"], text=data["text"]
        )
        if message.state == MessageState.HELD:
            held = {"held": True, "detail": gettext("Your message awaits a moderator's review before others read it.")}
            return Response(ChatHeldOutput(held).data, status=status.HTTP_202_ACCEPTED)
        # A shadow-muted author is answered as if it posted (and reads it; nobody else does).
        return Response(ChatMessageOutput(selectors.message_output(message)).data, status=status.HTTP_201_CREATED)
