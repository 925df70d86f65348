from django.apps import AppConfig


class LadderConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"
    verbose_name = "Bot ladder"
