from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"

    def ready(self) -> None:
        # Registers the OpenAPI security scheme of ApiTokenAuthentication.
        from players import schema  # noqa: F401
