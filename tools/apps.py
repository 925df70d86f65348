from django.apps import AppConfig


class ToolsConfig(AppConfig):
    """Registers ``tools/management/commands`` (``manage.py loadtest``); nothing the server runs."""

    name = "tools"
    verbose_name = "Developer tools"
