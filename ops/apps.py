from django.apps import AppConfig


class OpsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        # The gauges read when /metrics is scraped (core.metrics).
        from core import metrics
        from ops.metrics import health_gauges, queue_gauges

        metrics.scrape_register(health_gauges)
        metrics.scrape_register(queue_gauges)
