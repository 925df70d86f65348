"""Keep child processes running: the supervisor behind ``manage.py serve``.

Every child runs in a session (process group) of its own, so a Ctrl-C in the
terminal reaches only the supervisor, which then stops the children in order,
and whatever a child started (a pool process, a forked helper) is stopped with
it. On Linux each child also gets SIGTERM if the supervisor itself dies
(``PR_SET_PDEATHSIG``), so not even ``kill -9`` of the supervisor leaves a web
server holding the port. How a child is started and stopped is
``core.processes``; this module decides when.

A child that exits is logged with its reason (exit code or signal), whatever is
left of its process group is killed, and it is started again after a back-off:
``backoff`` seconds, doubling while it keeps dying within ``stable_after``
seconds of its start, at most ``max_backoff``. No child dies silently and none
stays dead.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core import metrics
from core.processes import describe_exit, signal_group, spawn, stop_groups

log = logging.getLogger(__name__)


@dataclass
class Child:
    """One supervised program, and what became of it."""

    name: str
    argv: list[str]
    env: dict[str, str] | None = None
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0  # monotonic
    restarts: int = 0
    quick_deaths: int = 0  # in a row, each within stable_after of its start
    restart_at: float | None = None  # monotonic; set while it waits to be started again
    last_exit: str = ""
    last_exit_at: datetime | None = None
    history: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


class Supervisor:
    def __init__(
        self,
        children: list[Child],
        *,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        stable_after: float = 30.0,
        stop_grace: float = 10.0,
        on_change: Callable[[Supervisor], None] | None = None,
    ) -> None:
        self.children = children
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.stable_after = stable_after
        self.stop_grace = stop_grace
        self.on_change = on_change

    def start(self, child: Child) -> None:
        # PR_SET_PDEATHSIG fires when the thread that started the child ends: serve starts and restarts every
        # child from its main thread.
        child.process = spawn(child.argv, env=child.env, die_with_parent=True)
        child.started = time.monotonic()
        child.restart_at = None
        log.info("%s started (pid %s)", child.name, child.pid)
        self._changed()

    def start_all(self) -> None:
        for child in self.children:
            self.start(child)

    def check(self) -> None:
        """Notice children that exited (log, clean up, schedule the restart) and
        start those whose back-off is over."""
        now = time.monotonic()
        for child in self.children:
            process = child.process
            if process is not None and process.poll() is not None:
                self._reap(child, process.returncode, now)
            if child.restart_at is not None and now >= child.restart_at:
                child.restarts += 1
                self.start(child)

    def _reap(self, child: Child, returncode: int, now: float) -> None:
        assert child.process is not None
        pid = child.process.pid
        signal_group(child.process, signal.SIGKILL)  # whatever it left behind
        metrics.process_gone(pid)  # its open streams no longer count
        lived = now - child.started
        child.quick_deaths = child.quick_deaths + 1 if lived < self.stable_after else 1
        delay = min(self.max_backoff, self.backoff * 2 ** (child.quick_deaths - 1))
        child.last_exit = describe_exit(returncode)
        child.last_exit_at = datetime.now(UTC)
        child.history.append(child.last_exit)
        child.process = None
        child.restart_at = now + delay
        log.error(
            "%s (pid %s) %s after %.1f s; restarting it in %.0f s", child.name, pid, child.last_exit, lived, delay
        )
        self._changed()

    def run(self, stop: threading.Event, *, tick: float = 0.2, every: Callable[[], None] | None = None) -> None:
        """Supervise until ``stop`` is set; ``every`` is called once a tick."""
        while not stop.is_set():
            self.check()
            if every is not None:
                every()
            stop.wait(tick)

    def stop_all(self) -> None:
        """SIGTERM every child's process group; SIGKILL what is left after ``stop_grace`` seconds."""
        running = [c for c in self.children if c.process is not None]
        late = stop_groups([c.process for c in running], timeout=self.stop_grace)  # type: ignore[misc]
        for child in running:
            if child.process in late:
                log.warning(
                    "%s (pid %s) did not stop within %.0f s: killing it", child.name, child.pid, self.stop_grace
                )
        for child in self.children:
            child.process = None
            child.restart_at = None
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception:  # reporting must never stop supervising
                log.exception("could not report the supervised processes")
