"""The server's Prometheus metrics: every counter, histogram and gauge the
processes record, defined once, here (``docs/observability.md`` lists them).

Web processes, Celery workers and their pool's children each write their values
to files in one folder (prometheus-client's multiprocess mode,
``PROMETHEUS_MULTIPROC_DIR``, set from ``METRICS_DIR`` by the settings before any
metric exists); ``GET /metrics`` (``ops.metrics_view``) adds up the files of
every process on the host. Recording is an increment in shared memory: no I/O on
the move path. With ``METRICS_ENABLED=false`` every metric here is a no-op.

Conventions (Prometheus's): one ``chickenfoot_`` prefix, the unit in the name
(``_seconds``), ``_total`` on counters, and label values from small fixed sets
(route templates, methods, statuses, error codes, task names, strategy names,
scopes): never an id.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

PREFIX = "chickenfoot_"

#: Buckets for request-sized durations (seconds): 1 ms to 10 s.
FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Buckets for waits measured in seconds to minutes (time to match, a clock's lateness).
SLOW_BUCKETS = (0.05, 0.25, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)


class _Null:
    """What a metric is with metrics off: every call does nothing."""

    def labels(self, *args: Any, **kwargs: Any) -> _Null:
        return self

    def inc(self, amount: float = 1) -> None:
        return None

    def dec(self, amount: float = 1) -> None:
        return None

    def set(self, value: float) -> None:
        return None

    def observe(self, amount: float) -> None:
        return None


NULL = _Null()


def enabled() -> bool:
    return bool(getattr(settings, "METRICS_ENABLED", True))


def _counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Any:
    if not enabled():
        return NULL
    from prometheus_client import Counter

    return Counter(PREFIX + name, doc, labels)


def _histogram(name: str, doc: str, labels: tuple[str, ...] = (), buckets: tuple[float, ...] = FAST_BUCKETS) -> Any:
    if not enabled():
        return NULL
    from prometheus_client import Histogram

    return Histogram(PREFIX + name, doc, labels, buckets=buckets)


def _gauge(name: str, doc: str, labels: tuple[str, ...] = (), mode: Any = "livesum") -> Any:
    if not enabled():
        return NULL
    from prometheus_client import Gauge

    return Gauge(PREFIX + name, doc, labels, multiprocess_mode=mode)


# --- HTTP (core.request_context.RequestContext) ---------------------------------------
HTTP_REQUESTS = _counter(
    "http_requests_total",
    "HTTP requests answered, by route template, method and status.",
    ("route", "method", "status"),
)
HTTP_DURATION = _histogram(
    "http_request_duration_seconds",
    "Time to the answer's first byte, by route template and method.",
    ("route", "method"),
)
# --- Moves (games) -------------------------------------------------------------------
MOVES_ACCEPTED = _counter(
    "moves_accepted_total", "Moves committed, by who made them (player, bot, timeout).", ("source",)
)
MOVES_REFUSED = _counter("moves_refused_total", "Players' moves refused, by error code.", ("code",))
# A move's latency is not a metric of its own (it would cost the move two more writes):
# a player's is http_request_duration_seconds{route="api/v1/games/<int:game_id>/moves/"},
# a bot's or a turn clock's celery_task_duration_seconds{task="bots.play_bot_turn"|"games.turn_timeout"}.
BOT_DECISION = _histogram(
    "bot_decision_seconds", "A bot strategy's time to choose a move, by strategy (level).", ("strategy",)
)
TURN_CLOCKS_FIRED = _counter("turn_clocks_fired_total", "Turn clocks that ran out and moved for the player.")
TURN_CLOCK_LATENESS = _histogram(
    "turn_clock_lateness_seconds",
    "How long after its deadline a turn clock moved for the player.",
    buckets=SLOW_BUCKETS,
)
TURN_CLOCK_RUNS = _counter("turn_clock_runs_total", "Runs of the turn clock (ops.clock, every CLOCK_INTERVAL_SECONDS).")
TURN_CLOCK_FAILURES = _counter("turn_clock_failures_total", "Timeouts the turn clock could not play (logged with why).")
# --- Live updates (core.notify, games streams and long-polls) ------------------------
STREAMS_OPEN = _gauge("streams_open", "Open event streams and long-polls, per web process.", ("kind",), "liveall")
NOTICES_PUBLISHED = _counter("notices_published_total", "Live notices published (one per channel).")
NOTICE_FANOUT_LAG = _histogram(
    "notice_fanout_lag_seconds", "From a notice's publication in one process to its arrival in another (Redis)."
)
# --- Celery (ops.celery_metrics) ----------------------------------------------------
CELERY_TASKS = _counter(
    "celery_tasks_total", "Celery tasks run, by task name and outcome (succeeded, failed, retried).", ("task", "state")
)
CELERY_TASK_DURATION = _histogram("celery_task_duration_seconds", "Celery tasks' run time, by task name.", ("task",))
# --- Matching, ratings, accounts, limits ----------------------------------------------
SEEK_WAIT = _histogram(
    "seek_wait_seconds", "Quick play: from a seek to the table it was matched to.", buckets=SLOW_BUCKETS
)
RATING_UPDATES = _counter("rating_updates_total", "Ratings changed by a finished rated match (one per player).")
LOGIN_FAILURES = _counter("login_failures_total", "Wrong passwords at password log-in.")
LOGIN_LOCKS = _counter("login_locks_total", "Password log-ins locked after repeated wrong passwords.")
THROTTLE_REFUSALS = _counter("throttle_refusals_total", "Requests refused by a rate limit, by scope.", ("scope",))
# --- Helpers that may vanish (core.breaker) ----------------------------------------
BREAKER_OPEN = _gauge(
    "breaker_open", "1 while a helper (Redis, the broker) is considered down by a process.", ("breaker",), "livemax"
)


_CHILDREN: dict[tuple[int, tuple[str, ...]], Any] = {}


def labelled(metric: Any, *values: str) -> Any:
    """``metric.labels(*values)``, kept: on the move path a dictionary look-up instead
    of prometheus-client's checks and lock (label values are bounded, so is this)."""
    key = (id(metric), values)
    child = _CHILDREN.get(key)
    if child is None:
        child = _CHILDREN[key] = metric.labels(*values)
    return child


# --- The multiprocess folder ----------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prepare_dir(path: Path) -> int:
    """Create the multiprocess folder and remove the files of processes that are
    gone (a restart's leftovers); a live process's files stay, so a web server and
    a worker may share one folder and start in any order. Returns how many were removed."""
    path.mkdir(parents=True, exist_ok=True)
    removed = 0
    for file in path.glob("*.db"):
        pid_text = file.stem.rpartition("_")[2]
        if pid_text.isdigit() and not _pid_alive(int(pid_text)):
            file.unlink(missing_ok=True)
            removed += 1
    return removed


def process_gone(pid: int) -> None:
    """A process of ours ended: its live gauges (open streams) stop counting."""
    if not enabled() or not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)


# --- Read when scraped -----------------------------------------------------------

#: Functions called on every scrape, each yielding prometheus-client metric families
#: (``GaugeMetricFamily`` ...) of what is read then (the health checks, queue depth,
#: seeks waiting): registered by the apps that know them (``scrape_register``).
SCRAPE_COLLECTORS: list[Callable[[], Iterable[Any]]] = []


def scrape_register(collect: Callable[[], Iterable[Any]]) -> None:
    if collect not in SCRAPE_COLLECTORS:
        SCRAPE_COLLECTORS.append(collect)


class _ScrapeTime:
    """A prometheus-client collector over ``SCRAPE_COLLECTORS``: one that fails is
    logged and left out of this scrape, never the whole page."""

    def collect(self) -> Iterator[Any]:
        for collect in SCRAPE_COLLECTORS:
            try:
                families = list(collect())
            except Exception:
                log.exception("metrics: %s failed; its metrics are left out of this scrape", collect.__qualname__)
                continue
            yield from families


def exposition() -> tuple[bytes, str]:
    """The page ``GET /metrics`` answers (and its content type): every process's
    values from the multiprocess folder, then the scrape-time ones."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    registry.register(_ScrapeTime())
    return generate_latest(registry), CONTENT_TYPE_LATEST
