from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        # The error codes, and the chat's frames on the game stream (live.game_feeds).
        from chat import (  # noqa: F401
            account_data,  # its part of the account's data (players.account_data)
            errors,
            feed,
        )
