from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # The games layer's error codes (and the engine's) join the registry the
        # contract lists, whether or not a view has been imported yet.
        # The lobby's open tables on the account stream (games.lobby_feed) register as it is imported,
        # and the games' part of an account's data (players.account_data) as games.account_data is.
        # The follow-up tasks' log lines name their game (core.request_context).
        from core.request_context import GAME_TASKS
        from games import account_data, errors, lobby_feed  # noqa: F401
        from games.dispatch import BOT_TURN_TASK, TURN_CLOCK_TASK

        GAME_TASKS.update((BOT_TURN_TASK, TURN_CLOCK_TASK))
