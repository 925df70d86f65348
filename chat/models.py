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


class ChatMessage(models.Model):
    """One message of a game's table chat, kept with the game. A removed message
    keeps its text for the moderators; everyone else reads ``REMOVED_TEXT``."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    channel = models.CharField(max_length=16, choices=ChatChannel.choices)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["game", "channel", "id"], name="chat_game_channel_id")]

    def __str__(self) -> str:
        return f"message {self.pk} in game {self.game_id} ({self.channel})"

    @property
    def removed(self) -> bool:
        return self.removed_at is not None
