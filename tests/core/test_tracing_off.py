"""Tracing off (the default: no OTEL_EXPORTER_OTLP_ENDPOINT, no TRACING_FILE) adds
nothing: no instrumentation is imported, no middleware added, no library wrapped,
no tracer made. (redis-py 8 imports OpenTelemetry's metrics SDK by itself when it is
installed, for its own metrics, which stay off unless a program turns them on.)"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.integration.workers import ROOT

PROBE = """
import sys, django
django.setup()
from django.conf import settings
from django.urls import get_resolver
get_resolver().url_patterns  # every view imported, as a web process does
import config.celery
import psycopg, redis
loaded = sorted(
    name for name in sys.modules
    if name.startswith(("opentelemetry.instrumentation", "opentelemetry.sdk.trace", "core.tracing_"))
)
wrapped = [
    f for f in (psycopg.connect, psycopg.Connection.connect, redis.Redis.execute_command)
    if hasattr(f, "__wrapped__")
]
print(loaded, [m for m in settings.MIDDLEWARE if "opentelemetry" in m], wrapped)
"""


def test_tracing_off_imports_and_wraps_nothing():
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "TRACING_FILE"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[] [] []"
