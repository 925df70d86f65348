from django.apps import AppConfig

from core import tracing


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "API plumbing"

    def ready(self) -> None:
        # Registers the OpenAPI extensions (the ErrorCode schema).
        from core import schema  # noqa: F401

        # Traces, when configured (before the request handlers load their middleware).
        tracing.setup()
