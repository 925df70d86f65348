from django.apps import AppConfig


class ModerationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "moderation"

    def ready(self) -> None:
        from games import account_feeds  # apps ready: the feed reads models
        from moderation.feeds import WARNING_FEED

        account_feeds.register(WARNING_FEED)
