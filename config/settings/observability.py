"""Observability (docs/observability.md): Prometheus metrics and who may scrape them,
OpenTelemetry traces. (The log format is in ``logging``.)

| variable           | default                                             |
| ------------------ | --------------------------------------------------- |
| METRICS_ENABLED    | true (false: every metric call is a no-op)          |
| METRICS_DIR        | <RUN_DIR>/metrics (prometheus-client's multiprocess folder) |
| METRICS_ALLOW      | 127.0.0.1/32,::1/128 (addresses that may GET /metrics) |
| METRICS_TOKEN      | (none; set: ``Authorization: Bearer <it>`` also lets a scraper in) |
| OTEL_EXPORTER_OTLP_ENDPOINT | (none: no traces; set: traces go there over OTLP/HTTP) |
| TRACING_FILE       | (none; set: traces as JSON lines appended to this file) |
| OTEL_SERVICE_NAME  | chickenfoot                                         |
"""

import os
from pathlib import Path

from config.settings.celery import RUN_DIR
from config.settings.env import env

METRICS_ENABLED = env.bool("METRICS_ENABLED", default=True)
# Not PROMETHEUS_MULTIPROC_DIR: a process inherits that from whichever process started
# it (set below), and a server started by another one (a test's) must keep its own folder.
METRICS_DIR = Path(env.str("METRICS_DIR", default=str(RUN_DIR / "metrics")))
METRICS_ALLOW = env.list("METRICS_ALLOW", default=["127.0.0.1/32", "::1/128"])
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
if METRICS_ENABLED:
    # prometheus-client chooses its multiprocess mode from this variable when its first
    # metric is made (core.metrics, after the settings); children inherit it.
    METRICS_DIR.mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(METRICS_DIR)

# Traces (core.tracing): on when OTEL_EXPORTER_OTLP_ENDPOINT (the OpenTelemetry variables
# then say where and how) or TRACING_FILE (spans as JSON lines in that file) is set.
TRACING_FILE = env.str("TRACING_FILE", default="")
TRACING_SERVICE_NAME = env.str("OTEL_SERVICE_NAME", default="chickenfoot")
