from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "matchmaking"
    verbose_name = "quick play"

    def ready(self) -> None:
        # The error codes join the registry; the seeks join the account stream.
        from live import account_feeds
        from matchmaking import errors  # noqa: F401
        from matchmaking.feeds import SEEK_FEED

        account_feeds.register(SEEK_FEED)
        # Seeks waiting, read when /metrics is scraped.
        from core import metrics
        from matchmaking.selectors import seeks_waiting_gauge

        metrics.scrape_register(seeks_waiting_gauge)
