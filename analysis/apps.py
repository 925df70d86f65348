from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analysis"

    def ready(self) -> None:
        # The account stream's "analyses" feed (live.account_feeds) and the error codes.
        from analysis import errors, feed  # noqa: F401
