"""``GET /metrics``: the Prometheus page of every process on this host (``core.metrics``),
for a scraper only: off the public API (not in ``openapi.yaml``), answered to the
addresses in ``METRICS_ALLOW`` (default: the loopback only) and to a request with
``Authorization: Bearer <METRICS_TOKEN>`` when that is set; anyone else gets 403.

Also the gauges read when scraped: the health report's checks
(``chickenfoot_health_check_ok``), the broker's queue depth
(``chickenfoot_celery_queue_length``).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from core import metrics
from ops import health


@lru_cache(maxsize=4)
def _networks(allowed: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in allowed if entry.strip())


def scrape_allowed(request: HttpRequest) -> bool:
    """Is the request from an allowed address, or does it bear the metrics token?"""
    token = settings.METRICS_TOKEN
    if token:
        given = request.META.get("HTTP_AUTHORIZATION", "")
        scheme, _, secret = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(secret.strip().encode(), token.encode()):
            return True
    try:
        address = ipaddress.ip_address(str(request.META.get("REMOTE_ADDR") or "").split("%")[0])
    except ValueError:
        return False
    return any(address in network for network in _networks(tuple(settings.METRICS_ALLOW)))


@require_GET
def metrics_page(request: HttpRequest) -> HttpResponse:
    if not metrics.enabled():
        return HttpResponse("Metrics are off (METRICS_ENABLED=false).\n", status=404, content_type="text/plain")
    if not scrape_allowed(request):
        return HttpResponse(
            "Not allowed: scrape from an address in METRICS_ALLOW, or send Authorization: Bearer <METRICS_TOKEN>.\n",
            status=403,
            content_type="text/plain",
        )
    body, content_type = metrics.exposition()
    response = HttpResponse(body, content_type=content_type)
    response["Cache-Control"] = "no-store"
    return response


def health_gauges() -> Iterator[Any]:
    """The health report's checks: 1 each that is ok, 0 each that is not."""
    from prometheus_client.core import GaugeMetricFamily

    report = health.report()
    checks = GaugeMetricFamily(
        f"{metrics.PREFIX}health_check_ok", "1 if the health report's check is ok, else 0.", labels=["check"]
    )
    for name, check in report["checks"].items():
        checks.add_metric([name], 1.0 if check["ok"] else 0.0)
    yield checks
    late = report["checks"]["turns"].get("late")
    yield GaugeMetricFamily(
        f"{metrics.PREFIX}turns_late",
        "Bot turns and turn clocks overdue (the health report's turns check).",
        value=float(late or 0),
    )


def queue_gauges() -> Iterator[Any]:
    """How many tasks wait on each of the broker's queues (not yet taken by a worker)."""
    from prometheus_client.core import GaugeMetricFamily

    family = GaugeMetricFamily(
        f"{metrics.PREFIX}celery_queue_length", "Tasks waiting on the broker, by queue.", labels=["queue"]
    )
    queues = {settings.CELERY_TASK_DEFAULT_QUEUE}
    url = settings.CELERY_BROKER_URL
    if url.startswith(("redis://", "rediss://")):
        import redis

        client = redis.Redis.from_url(url, socket_timeout=health.PING_TIMEOUT_SECONDS)
        try:
            for queue in sorted(queues):
                family.add_metric([queue], float(client.llen(queue)))
        finally:
            client.close()
    elif url.startswith("filesystem://"):
        names = [path.name for path in settings.BROKER_DIR.glob("*.msg")]
        for queue in sorted(queues):
            family.add_metric([queue], float(sum(name.endswith(f".{queue}.msg") for name in names)))
    yield family
