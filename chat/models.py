from django.conf import settings
from django.db import models

from games.models import Game

#: The longest message, in characters (after stripping).
MAX_LENGTH = 500
#: What everyone sees of a message a moderator removed.
REMOVED_TEXT = "removed by a moderator"


class ChatChannel(models.TextChoices):
    PLAYERS = "players", "players"
    SPECTATORS = "spectators", "spectators"


class MessageState(models.TextChoices):
    """Who reads a message besides the moderators (docs/moderation.md, "Chat: clean-up and filters")."""

    SHOWN = "shown", "shown"  # everyone of its channel
    HELD = "held", "held for review"  # nobody until a moderator approves it (the author was told)
    SHADOW = "shadow", "shadow-muted"  # its author only, who believes it posted
    REJECTED = "rejected", "rejected"  # nobody: a moderator rejected the held message


class ChatMessage(models.Model):
    """One message of a game's table chat, kept with the game. A removed message
    keeps its text for the moderators; everyone else reads ``REMOVED_TEXT``.
    Only a ``shown`` message reaches other readers (``state``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    channel = models.CharField(max_length=16, choices=ChatChannel.choices)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # db_default too: rows written by COPY (tools/seed_site.py) or raw SQL are shown.
    state = models.CharField(
        max_length=16,
        choices=MessageState.choices,
        default=MessageState.SHOWN,
        db_default=MessageState.SHOWN,
        db_index=True,
    )
    held_reason = models.CharField(
        max_length=200,
        blank=True,
        default="",
        db_default="",
        help_text="Why the filter held it, or why it was shadow-muted (moderators only).",
    )
    shown_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When a held message was approved or a removed one restored: the streams show it then.",
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["game", "channel", "id"], name="chat_game_channel_id")]

    def __str__(self) -> str:
        return f"message {self.pk} in game {self.game_id} ({self.channel})"

    @property
    def removed(self) -> bool:
        return self.removed_at is not None


class HeldChatMessage(ChatMessage):
    """The moderators' queue of held messages (beside the report queue)."""

    class Meta:
        proxy = True
        verbose_name = "held chat message"
        verbose_name_plural = "held chat messages"


class FilterKind(models.TextChoices):
    WORD = "word", "word or phrase (whole words, any case)"
    LINK = "link", "link to a domain (and its subdomains)"


class FilterAction(models.TextChoices):
    BLOCK = "block", "block (the author is refused)"
    HOLD = "hold", "hold for review"


class ChatFilterRule(models.Model):
    """One rule of the chat filter, set by moderators in the admin (audited there).
    ``pattern`` is plain text, never a regular expression: a word or phrase matched
    as whole words in any case, or a domain (``example.com``) matched in links."""

    pattern = models.CharField(max_length=100)
    kind = models.CharField(max_length=8, choices=FilterKind.choices, default=FilterKind.WORD)
    action = models.CharField(max_length=8, choices=FilterAction.choices, default=FilterAction.HOLD)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "pattern"]
        verbose_name = "chat filter rule"
        constraints = [models.UniqueConstraint(fields=["kind", "pattern"], name="chat_filter_rule_unique")]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.kind} {self.pattern!r}"


class ChatShadowMute(models.Model):
    """While in force (not lifted, not ended), the account's new messages are read
    by it alone (``MessageState.SHADOW``). Made and lifted by moderation (audited)."""

    account = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_shadow_mutes")
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    starts_at = models.DateTimeField(auto_now_add=True)
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Empty: until lifted.")
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        default_permissions = ("view",)
        verbose_name = "chat shadow-mute"

    def __str__(self) -> str:
        return f"shadow-mute of {self.account}"
