"""OpenTelemetry traces: off unless configured (``docs/observability.md``).

Configured means ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``..._TRACES_ENDPOINT``) is set
- the spans go there over OTLP/HTTP, in batches - or ``TRACING_FILE`` is (each
span a JSON line appended to that file, for a test or a quick look). Then every
process (web, worker, beat) traces, from ``CoreConfig.ready``:

* Django: a span per request (the route template as its name);
* psycopg: a span per SQL statement, under the request's or task's span;
* redis-py: a span per command (or pipeline);
* Celery: a span for sending a task (its context goes in the message's headers)
  and one for running it in the worker, a child of the sending span: a move's
  request and the bot turn it caused are one trace.

Off (the default), nothing of OpenTelemetry is imported and nothing is wrapped:
the move path runs exactly the code it runs without this module.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


class _State:
    provider: Any = None


_NO_SPAN = nullcontext()


def redis_span(commands: Sequence[Sequence[Any]]) -> AbstractContextManager[Any]:
    """A span for Redis commands sent without redis-py's client methods
    (``core.cache.send_all``: a move's rate limit and notices), which the redis-py
    instrumentation does not see; with tracing off, a shared no-op context."""
    if _State.provider is None:
        return _NO_SPAN
    from opentelemetry import trace

    names = " ".join(str(command[0]) for command in commands)
    return trace.get_tracer(__name__).start_as_current_span(
        names, kind=trace.SpanKind.CLIENT, attributes={"db.system": "redis", "db.statement": names}
    )


def configured() -> bool:
    return bool(getattr(settings, "TRACING_FILE", "")) or any(os.environ.get(name) for name in _ENDPOINT_VARIABLES)


def setup(*, exporter: Any = None) -> Any:
    """Start tracing in this process if it is configured (or with ``exporter``, a
    span exporter of the caller's: tests); returns the tracer provider, or None
    (tracing off). Calling it again does nothing."""
    if _State.provider is not None:
        return _State.provider
    if exporter is None and not configured():
        return None
    from opentelemetry import trace
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: settings.TRACING_SERVICE_NAME}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    elif settings.TRACING_FILE:
        provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(settings.TRACING_FILE)))  # type: ignore[arg-type]
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # the OTEL_EXPORTER_OTLP_* variables
    trace.set_tracer_provider(provider)
    DjangoInstrumentor().instrument(tracer_provider=provider)
    PsycopgInstrumentor().instrument(tracer_provider=provider, skip_dep_check=True)
    RedisInstrumentor().instrument(tracer_provider=provider)
    CeleryInstrumentor().instrument(tracer_provider=provider)
    _State.provider = provider
    log.info("tracing on (%s)", "a test's exporter" if exporter else settings.TRACING_FILE or "OTLP")
    return provider


class JsonLinesExporter:
    """A span exporter that appends each span as one JSON line to a file: every
    process may share the file (one ``write`` per batch, the file opened to append)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        data = "".join(span.to_json(indent=None) + "\n" for span in spans).encode()
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, data)
        finally:
            os.close(descriptor)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def teardown() -> None:
    """Undo ``setup`` in this process (tests: tracing must not outlive the test)."""
    if _State.provider is None:
        return
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    for instrumentor in (CeleryInstrumentor(), RedisInstrumentor(), PsycopgInstrumentor(), DjangoInstrumentor()):
        instrumentor.uninstrument()
    _State.provider.shutdown()
    _State.provider = None
