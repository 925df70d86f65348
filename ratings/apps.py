from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        # The receiver that rates a finished match (games.signals.match_finished),
        # and the ratings' error codes in the registry the contract lists.
        from ratings import (  # noqa: F401
            account_data,  # its part of the account's data (players.account_data)
            errors,
            receivers,
        )
