"""What a request (or the task it sent) is about, for logs and metrics.

* ``RequestContext`` (the first middleware): gives every request an id - the
  client's ``X-Request-ID`` when it is a sensible one, else a new one - returned in
  the answer's ``X-Request-ID``; counts the request and its time to the answer
  (``core.metrics``: by route template, method and status).
* ``bind``: what is known of the request so far (the game id from its URL, the
  account once authenticated), in a context variable the log lines read.
* Celery: a task sent while a request is handled carries its request id in a
  message header; the worker binds it (and the task's game id) while the task runs,
  so a move's request and the bot turn it caused log the same id.
* ``ContextFilter`` puts them on every log record, ``JsonFormatter`` writes a
  record as one JSON object a line (``LOG_FORMAT=json``, config/settings/logging.py).
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from django.http import HttpRequest, HttpResponse

from core import metrics

log = logging.getLogger(__name__)

#: What this request or task is about: request_id, account_id, game_id, task.
CONTEXT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("cf_context", default=None)
HEADER = "X-Request-ID"
#: A client's id is taken if it is this (printable, short); anything else gets a new one.
_VALID_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "<unmatched>"
#: The message header a task carries its request id in.
TASK_HEADER = "cf_request_id"


def bind(**values: Any) -> None:
    """Add what is now known (``account_id=...``, ``game_id=...``) to the current context."""
    current = CONTEXT.get()
    if current is not None:
        current.update(values)


def current() -> dict[str, Any]:
    return CONTEXT.get() or {}


def new_id() -> str:
    return uuid.uuid4().hex


def request_id_from(header: str | None) -> str:
    return header if header and _VALID_ID.match(header) else new_id()


class RequestContext:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        request_id = request_id_from(request.META.get("HTTP_X_REQUEST_ID"))
        token = CONTEXT.set({"request_id": request_id})
        try:
            response = self.get_response(request)
            response[HEADER] = request_id
            match = request.resolver_match
            route = match.route if match is not None else UNMATCHED
            method = request.method if request.method in _METHODS else "OTHER"
            elapsed = time.perf_counter() - started
            metrics.labelled(metrics.HTTP_REQUESTS, route, method, str(response.status_code)).inc()
            metrics.labelled(metrics.HTTP_DURATION, route, method).observe(elapsed)
            if log.isEnabledFor(logging.DEBUG):  # the route's template, never the query (it may hold a secret)
                log.debug("%s %s -> %s in %.1f ms", method, route, response.status_code, elapsed * 1000)
        finally:
            CONTEXT.reset(token)
        return response

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> None:
        game_id = kwargs.get("game_id")
        if game_id is not None:
            bind(game_id=game_id)


class ContextFilter(logging.Filter):
    """Copies the current request's or task's context onto each record (as attributes)."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = CONTEXT.get()
        if context:
            for key, value in context.items():
                if not hasattr(record, key):
                    setattr(record, key, value)
        return True


#: A record's own attributes (not what a caller or the context put on it).
_RECORD_FIELDS = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}
_CONTEXT_FIELDS = ("request_id", "account_id", "game_id", "task", "task_id")


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the
    context's ids where known, and the exception's traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in _CONTEXT_FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


# --- Celery: the request id across the hop ------------------------------------------------


def task_published(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """``before_task_publish``: a task sent while handling a request carries its id."""
    request_id = current().get("request_id")
    if request_id and headers is not None:
        headers.setdefault(TASK_HEADER, request_id)


def task_started(task: Any = None, task_id: str = "", args: Any = None, **_: Any) -> None:
    """``task_prerun``: the task's context (its sender's request id, or a new one)."""
    request = getattr(task, "request", None)
    sent_by = getattr(request, TASK_HEADER, None) or (getattr(request, "headers", None) or {}).get(TASK_HEADER)
    context: dict[str, Any] = {
        "request_id": request_id_from(sent_by),
        "task": getattr(task, "name", ""),
        "task_id": task_id,
    }
    if args and isinstance(args[0], int) and getattr(task, "name", "") in GAME_TASKS:
        context["game_id"] = args[0]
    CONTEXT.set(context)
    _task_clock.set(time.perf_counter())
    log.debug("task %s started", context["task"])


def task_finished(task: Any = None, state: str | None = None, **_: Any) -> None:
    """``task_postrun``: count the task and its run time; forget its context."""
    name = getattr(task, "name", "") or "unknown"
    started = _task_clock.get()
    if started is not None:
        metrics.labelled(metrics.CELERY_TASK_DURATION, name).observe(time.perf_counter() - started)
    outcome = {"SUCCESS": "succeeded", "FAILURE": "failed", "RETRY": "retried"}.get(state or "", "other")
    metrics.labelled(metrics.CELERY_TASKS, name, outcome).inc()
    CONTEXT.set(None)
    _task_clock.set(None)


_task_clock: contextvars.ContextVar[float | None] = contextvars.ContextVar("cf_task_clock", default=None)
#: Tasks whose first argument is a game's id (their log lines name the game). Set by
#: the apps that define them (``GAME_TASKS.add(name)``).
GAME_TASKS: set[str] = set()


def connect_celery() -> None:
    """Connect the hooks above to Celery's signals (``config.celery``)."""
    from celery import signals

    signals.before_task_publish.connect(task_published, weak=False)
    signals.task_prerun.connect(task_started, weak=False)
    signals.task_postrun.connect(task_finished, weak=False)
    signals.worker_init.connect(_worker_init, weak=False)
    signals.worker_process_shutdown.connect(_pool_process_gone, weak=False)


def _worker_init(**_: Any) -> None:
    """A worker starts: the metrics folder exists, without a dead process's files."""
    from django.conf import settings

    if metrics.enabled():
        metrics.prepare_dir(settings.METRICS_DIR)


def _pool_process_gone(pid: int | None = None, **_: Any) -> None:
    metrics.process_gone(pid or os.getpid())
