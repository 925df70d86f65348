from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        # The receiver that rates a finished match (games.signals.match_finished),
        # and the ratings' error codes in the registry the contract lists.
        from ratings import errors, receivers  # noqa: F401
