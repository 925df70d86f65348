from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "API plumbing"

    def ready(self) -> None:
        # Registers the OpenAPI extensions (the ErrorCode schema).
        from core import schema  # noqa: F401
