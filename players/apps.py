from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"

    def ready(self) -> None:
        # schema: the OpenAPI security scheme of ApiTokenAuthentication;
        # signals: saves of accounts and tokens tell token caches and streams.
        from players import schema, signals  # noqa: F401
