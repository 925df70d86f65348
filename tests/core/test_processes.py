"""``core.processes``, with real child processes (small Python programs): a stop
takes down the whole group, even a child that ignores SIGTERM; a wait gives up
as soon as the child is dead; the web command is the Procfile's."""

from __future__ import annotations

import os
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest

from core.processes import ChildExited, NotReady, gunicorn_command, spawn, stop_group, wait_until

ROOT = Path(__file__).resolve().parents[2]
DEAF = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('deaf', flush=True)\ntime.sleep(60)"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(") ")[-1][:1] != "Z"


def test_the_web_command_is_the_procfiles_run_with_this_python():
    web = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    procfile = shlex.split(web.removeprefix("web:"))
    command = gunicorn_command("127.0.0.1:8123", workers=3)
    assert command[:3] == [sys.executable, "-m", procfile[0]]
    assert command[3 : 3 + len(procfile) - 1] == procfile[1:]
    assert command[3 + len(procfile) - 1 :] == ["--bind", "127.0.0.1:8123", "--workers", "3", "--log-level", "warning"]


def test_a_stop_takes_down_the_group_even_a_child_that_ignores_sigterm(tmp_path):
    pids = tmp_path / "grandchild.pid"
    log = tmp_path / "child.log"
    parent = spawn(
        [
            sys.executable,
            "-c",
            (
                "import subprocess, sys, time\n"
                f"p = subprocess.Popen([sys.executable, '-c', {DEAF!r}])\n"
                f"open({str(pids)!r}, 'w').write(str(p.pid))\n"
                "time.sleep(60)"
            ),
        ],
        log=log,
    )
    wait_until(lambda: "deaf" in log.read_text(), process=parent, timeout=20, interval=0.05)
    grandchild = int(pids.read_text())
    started = time.monotonic()
    assert stop_group(parent, timeout=0.5)  # the leader ends on SIGTERM; its deaf child only on SIGKILL
    assert time.monotonic() - started < 5
    assert parent.returncode == -signal.SIGTERM
    time.sleep(0.2)  # the grandchild is reaped by init
    assert not alive(grandchild)


def test_a_child_that_ignores_sigterm_is_late_and_killed(tmp_path):
    log = tmp_path / "deaf.log"
    deaf = spawn([sys.executable, "-c", DEAF], log=log)
    wait_until(lambda: "deaf" in log.read_text(), process=deaf, timeout=20, interval=0.05)
    assert not stop_group(deaf, timeout=0.3)
    assert deaf.returncode == -signal.SIGKILL


def test_a_wait_gives_up_as_soon_as_the_child_is_dead_or_the_time_is_up():
    quitter = spawn([sys.executable, "-c", "import sys; sys.exit(3)"])
    with pytest.raises(ChildExited) as exited:
        wait_until(lambda: False, process=quitter, timeout=30)
    assert exited.value.returncode == 3 and "exited with code 3" in str(exited.value)
    with pytest.raises(NotReady, match=r"the thing was not ready within 0\.1 s"):
        wait_until(lambda: False, process=None, timeout=0.1, interval=0.02, what="the thing")
