from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # The games layer's error codes (and the engine's) join the registry the
        # contract lists, whether or not a view has been imported yet; the games'
        # part of an account's data (players.account_data) registers as
        # games.account_data is imported.
        from games import account_data, errors  # noqa: F401
