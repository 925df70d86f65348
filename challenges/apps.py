from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "challenges"

    def ready(self) -> None:
        # The account stream's "challenges" feed (live.account_feeds) and the error codes.
        from challenges import errors, feed  # noqa: F401
