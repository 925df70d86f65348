from django.apps import AppConfig


class BareConfig(AppConfig):
    """The bare locked-write endpoint of the load test (benchmark server only)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "tools.loadtest.bare"
    label = "loadtest_bare"
    verbose_name = "Load test: bare locked write"
