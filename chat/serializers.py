from __future__ import annotations

from rest_framework import serializers

from chat.models import MAX_LENGTH, REMOVED_TEXT, ChatChannel
from chat.selectors import PAGE_MAX

CHANNEL_HELP = "`players`: the accounts seated at the game; `spectators`: everyone else (seated players neither read nor write it)."


class ChatMessageOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.IntegerField(help_text="The game's id.")
    channel = serializers.ChoiceField(choices=ChatChannel.choices, help_text=CHANNEL_HELP)
    author = serializers.CharField(help_text="The author's username.")
    text = serializers.CharField(help_text=f"The message; {REMOVED_TEXT!r} once a moderator removed it.")
    created_at = serializers.DateTimeField()
    removed = serializers.BooleanField(help_text="A moderator removed the message.")


class ChatHeldOutput(serializers.Serializer):
    held = serializers.BooleanField(help_text="Always true: the message awaits a moderator's review.")
    detail = serializers.CharField(help_text="What to tell the author, in their language.")


class ChatPageOutput(serializers.Serializer):
    messages = ChatMessageOutput(many=True, help_text="Oldest first.")
    has_more = serializers.BooleanField(help_text="With `after`: more messages follow the last one given.")


class ChatMessageInput(serializers.Serializer):
    channel = serializers.ChoiceField(choices=ChatChannel.choices, help_text=CHANNEL_HELP)
    text = serializers.CharField(
        max_length=MAX_LENGTH, help_text=f"1 to {MAX_LENGTH} characters; leading and trailing blanks are dropped."
    )


class ChatQueryInput(serializers.Serializer):
    channel = serializers.ChoiceField(choices=ChatChannel.choices, help_text=CHANNEL_HELP)
    after = serializers.IntegerField(
        required=False, min_value=0, help_text="Only messages after this id (the first `limit` of them)."
    )
    limit = serializers.IntegerField(
        required=False, default=50, min_value=1, max_value=PAGE_MAX, help_text="At most this many messages."
    )
