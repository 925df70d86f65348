from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # The games layer's error codes (and the engine's) join the registry the
        # contract lists, whether or not a view has been imported yet.
        # The lobby's open tables on the account stream (games.lobby_feed) register as it is imported.
        from games import errors, lobby_feed  # noqa: F401
