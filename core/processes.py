"""Starting and stopping the processes we run: one set of rules for the server's
supervisor (``ops.supervisor``), the load tool's ``--spawn`` and the integration
tests' servers and workers.

* Each child leads a process group (session) of its own, so a Ctrl-C in the
  terminal reaches only us, and stopping a child stops whatever it started too
  (gunicorn's workers, a Celery pool process).
* Stopping is SIGTERM to the group, a deadline, then SIGKILL to the group.
* On Linux a child may ask to get SIGTERM when its parent dies
  (``PR_SET_PDEATHSIG``), so not even ``kill -9`` of the parent leaves it behind.

No Django imports: the tools and the tests use it before (or without) settings.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

PR_SET_PDEATHSIG = 1  # linux/prctl.h
GUNICORN_CONFIG = "config/gunicorn.conf.py"  # relative to the repository root, the children's cwd


class ChildExited(RuntimeError):
    """The child ended while we waited for it to get ready."""

    def __init__(self, returncode: int) -> None:
        super().__init__(f"the process {describe_exit(returncode)}")
        self.returncode = returncode


class NotReady(TimeoutError):
    """The child was still running but not ready when the time ran out."""


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """Linux: ask the kernel for SIGTERM when the parent dies (elsewhere: nothing)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def spawn(
    argv: list[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    log: Path | None = None,
    append: bool = True,
    die_with_parent: bool = False,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` as the leader of a new process group.

    ``log``: stdout and stderr both go to this file (appended to, or truncated
    with ``append=False``); without it the child shares ours. ``die_with_parent``
    sets ``PR_SET_PDEATHSIG``: the kernel sends it when the *thread* that started
    the child ends, so start such children from a thread that lives as long as
    they should (and before other threads exist: it runs code between fork and exec).
    """
    preexec = _die_with_parent if die_with_parent else None
    if log is None:
        return subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=True, preexec_fn=preexec)
    with open(log, "ab" if append else "wb") as output:  # the child has its own copy of the descriptor
        return subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=preexec
        )


def signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the process group ``process`` leads; a group that is gone already is no error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def stop_groups(
    processes: Iterable[subprocess.Popen[bytes]], *, timeout: float, kill_wait: float | None = None
) -> list[subprocess.Popen[bytes]]:
    """SIGTERM every process's group at once, give them ``timeout`` seconds in all,
    then SIGKILL what is left of each group (a leader that exited may have left
    children behind) and reap the leaders (``kill_wait`` seconds each at most, or
    for as long as it takes). Returns the processes that had not ended by the deadline."""
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    late = []
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            late.append(process)
        signal_group(process, signal.SIGKILL)
        process.wait(kill_wait)
    return late


def stop_group(process: subprocess.Popen[bytes], *, timeout: float, kill_wait: float | None = 10) -> bool:
    """``stop_groups`` for one process: True if it ended within ``timeout`` seconds of SIGTERM."""
    return not stop_groups([process], timeout=timeout, kill_wait=kill_wait)


def kill_group(process: subprocess.Popen[bytes], *, wait: float | None = 10) -> None:
    """SIGKILL the whole group at once, as a crash would, and reap the leader."""
    signal_group(process, signal.SIGKILL)
    process.wait(wait)


def describe_exit(returncode: int) -> str:
    """``exited with code 3`` / ``was killed by SIGKILL``: what a log line says of an exit."""
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def wait_until(
    ready: Callable[[], object],
    *,
    process: subprocess.Popen[bytes] | None,
    timeout: float,
    interval: float = 0.1,
    what: str = "the process",
) -> None:
    """Poll ``ready`` until it is truthy. Raises ``ChildExited`` as soon as ``process``
    has ended (no point waiting for a dead server), ``NotReady`` after ``timeout`` seconds
    (``what`` names the awaited in its message)."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise ChildExited(process.returncode)
        if ready():
            return
        if time.monotonic() >= deadline:
            raise NotReady(f"{what} was not ready within {timeout:g} s")
        time.sleep(interval)


def answers_http(host: str, port: int, path: str, *, status: int = 200, timeout: float = 2) -> bool:
    """Whether ``GET path`` on ``host:port`` answers ``status`` now (refused, reset or slow: False)."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", path)
        return connection.getresponse().status == status
    except OSError:
        return False
    finally:
        connection.close()


def wait_for_http(
    process: subprocess.Popen[bytes], host: str, port: int, path: str, *, timeout: float, interval: float = 0.1
) -> None:
    """Wait until the server ``process`` started answers 200 on ``path`` (see ``wait_until`` for the errors)."""
    wait_until(
        lambda: answers_http(host, port, path),
        process=process,
        timeout=timeout,
        interval=interval,
        what=f"the server on {host}:{port}",
    )


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def bind_error(host: str, port: int) -> OSError | None:
    """Why a server could not listen on ``host:port`` now (None: it could)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error
    return None


def gunicorn_command(bind: str, *, workers: int, log_level: str = "warning") -> list[str]:
    """The Procfile's ``web`` command (gunicorn with ``config/gunicorn.conf.py``) run
    with this Python, on ``bind`` with ``workers`` processes. Run it from the
    repository root; ``tests/core/test_processes.py`` checks it against the Procfile."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        GUNICORN_CONFIG,
        "--bind",
        bind,
        "--workers",
        str(workers),
        "--log-level",
        log_level,
    ]


def celery_command(
    program: str,
    *options: str,
    pool: str = "solo",
    concurrency: int = 1,
    log_level: str = "warning",
    quiet: bool = True,
) -> list[str]:
    """``celery -A config <program>`` with this Python: ``worker`` (in one process,
    ``-P solo``, unless given a ``pool`` and ``concurrency``) or ``beat``.
    ``quiet``: a worker without gossip, mingle and broker heartbeats (they only
    matter between many workers; the health report has heartbeats of its own).
    ``options`` go last."""
    argv = [sys.executable, "-m", "celery", "-A", "config", program, "-l", log_level]
    if program == "worker":
        argv += ["-P", "solo"] if pool == "solo" else ["-P", pool, "-c", str(concurrency)]
        if quiet:
            argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    return [*argv, *options]
