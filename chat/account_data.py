"""The chat's part of "download my data" and "delete my account"
(``players.account_data``): the messages the account wrote (a removed one with
its text: it is the author's own); they go with the account."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from chat.models import ChatChannel, ChatMessage
from players import account_data


class MyDataChatOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.IntegerField(source="game_id")
    channel = serializers.ChoiceField(choices=ChatChannel.choices)
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    removed = serializers.BooleanField(help_text="A moderator removed it (others read it as removed).")


def chat_export(user: Any) -> list[Any]:
    return list(ChatMessage.objects.filter(author_id=user.pk).order_by("id"))


def chat_erase(user: Any) -> None:
    ChatMessage.objects.filter(author_id=user.pk).delete()


account_data.register(
    account_data.AccountSection(
        name="chat",
        serializer=MyDataChatOutput,
        export=chat_export,
        erase=chat_erase,
        description="The messages you wrote in table chats, oldest first.",
        order=30,
    )
)
