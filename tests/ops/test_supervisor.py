"""The supervisor behind ``manage.py serve``, with real child processes (small
Python programs): a child that dies is reported and started again after a
back-off; stopping takes down whole process groups."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from ops.supervisor import Child, Supervisor, describe_exit
from tests.integration.workers import wait_for

LIVES = "import time\nwhile True: time.sleep(1)"


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(") ")[-1][:1] != "Z"


@pytest.fixture
def supervise():
    """``supervise(children, **options)`` -> a Supervisor running in a thread, stopped at the end."""
    running: list[tuple[Supervisor, threading.Event, threading.Thread]] = []

    def start(children: list[Child], **options: Any) -> Supervisor:
        supervisor = Supervisor(children, **options)
        stop = threading.Event()
        supervisor.start_all()
        thread = threading.Thread(target=supervisor.run, args=(stop,), kwargs={"tick": 0.02})
        thread.start()
        running.append((supervisor, stop, thread))
        return supervisor

    yield start
    for supervisor, stop, thread in running:
        stop.set()
        thread.join(10)
        supervisor.stop_all()


def test_exits_are_described_by_code_or_signal():
    assert describe_exit(0) == "exited with code 0"
    assert describe_exit(3) == "exited with code 3"
    assert describe_exit(-signal.SIGKILL) == "was killed by SIGKILL"
    assert describe_exit(-signal.SIGTERM) == "was killed by SIGTERM"


def test_a_child_that_exits_is_logged_and_started_again(supervise, caplog):
    child = Child("quitter", python("import sys; sys.exit(3)"))
    with caplog.at_level(logging.INFO, logger="ops.supervisor"):
        supervise([child], backoff=0.05, max_backoff=0.05)
        wait_for(lambda: child.restarts >= 2, 20, what="two restarts")
    assert child.last_exit == "exited with code 3" and child.last_exit_at is not None
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors and all("quitter" in e and "exited with code 3" in e and "restarting it in" in e for e in errors)


def test_a_killed_child_is_restarted_with_a_new_pid(supervise):
    child = Child("sleeper", python(LIVES))
    supervise([child], backoff=0.05)
    first = child.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: child.restarts == 1 and child.running, 20, what="the restart")
    assert child.pid != first and child.last_exit == "was killed by SIGKILL"


def test_the_back_off_doubles_while_a_child_keeps_dying_quickly_and_resets_once_it_lived():
    supervisor = Supervisor([], backoff=1, max_backoff=8, stable_after=30)
    child = Child("flaky", python(LIVES))
    delays = []
    for lived in (1, 2, 1, 1, 1, 40, 1):  # seconds it ran before dying each time
        child.process = type("Exited", (), {"pid": 2**22 + 1})()  # a pid no process has: nothing to clean up
        child.started = 1000.0
        supervisor._reap(child, 1, now=1000.0 + lived)
        assert child.restart_at is not None
        delays.append(child.restart_at - (1000.0 + lived))
    assert delays == [1, 2, 4, 8, 8, 1, 2]


def test_stopping_takes_down_the_whole_process_group_even_a_child_that_ignores_sigterm(supervise, tmp_path):
    pids = tmp_path / "grandchild.pid"
    parent = Child(
        "parent",
        python(
            "import subprocess, sys, time\n"
            f"p = subprocess.Popen([sys.executable, '-c', {LIVES!r}])\n"
            f"open({str(pids)!r}, 'w').write(str(p.pid))\n"
            "while True: time.sleep(1)"
        ),
    )
    deaf = tmp_path / "deaf"
    stubborn = Child(
        "stubborn",
        python(
            "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            f"open({str(deaf)!r}, 'w').close()\nwhile True: time.sleep(1)"
        ),
    )
    supervisor = Supervisor([parent, stubborn], stop_grace=1)
    supervisor.start_all()
    grandchild = int(wait_for(lambda: pids.exists() and pids.read_text(), 20, what="the grandchild"))
    wait_for(deaf.exists, 20, what="the stubborn child to ignore SIGTERM")
    assert parent.pid is not None and stubborn.pid is not None
    started = [parent.pid, stubborn.pid, grandchild]
    supervisor.stop_all()
    assert not any(alive(pid) for pid in started)
