"""``manage.py serve``, the embedded default a newcomer runs first: SQLite, the
folder broker, a worker, an analysis worker and beat - all supervised. Driven over HTTP only, as a
user would; the worker is killed the way a crash kills it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.serve import Serve, assert_played_exactly, game_seq, is_finished, open_bot_table
from tests.integration.web import free_port
from tests.integration.workers import ROOT, wait_for

pytestmark = [pytest.mark.slow]

LINUX = Path("/proc").is_dir()


@pytest.fixture
def serve(tmp_path):
    server = Serve(tmp_path / "serve")
    yield server
    server.stop()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    if LINUX:  # a zombie (exited, not yet reaped by init) is not alive
        stat = Path(f"/proc/{pid}/stat")
        return stat.exists() and stat.read_text().split(") ")[-1][:1] != "Z"
    return True


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_a_killed_worker_is_restarted_and_the_matches_finish_exactly(serve):
    games = [open_bot_table(serve, rounds=2, bot_delay_ms=20) for _ in range(3)]
    wait_for(
        lambda: all(game_seq(serve, g) > 40 for g in games),
        60,
        interval=0.5,
        what="the bots to be playing",
        explain=serve.log,
    )
    worker = serve.supervised("worker")
    assert worker["running"] and worker["restarts"] == 0

    os.kill(worker["pid"], signal.SIGKILL)
    wait_for(lambda: "was killed by SIGKILL" in serve.log(), 10, what="serve to notice", explain=serve.log)
    assert not all(is_finished(serve, g) for g in games)  # killed mid-match

    wait_for(
        lambda: serve.supervised("worker")["restarts"] == 1 and serve.supervised("worker")["running"],
        20,
        interval=0.5,
        what="the worker to be restarted",
        explain=serve.log,
    )
    restarted = serve.supervised("worker")
    assert restarted["pid"] != worker["pid"] and restarted["last_exit"] == "was killed by SIGKILL"
    wait_for(
        lambda: all(is_finished(serve, g) for g in games),
        120,
        interval=0.5,
        what="the matches to finish",
        explain=serve.log,
    )
    for game in games:
        assert assert_played_exactly(serve, game) > 0
    status, health = serve.health()
    assert status == 200, health


def test_the_health_report_shows_a_dead_worker_while_it_is_down(tmp_path):
    # A long restart delay keeps the worker down long enough to look at it.
    server = Serve(tmp_path / "serve", args=("--restart-delay", "60"))
    try:
        worker = server.supervised("worker")
        os.kill(worker["pid"], signal.SIGKILL)
        _status, report = wait_for(
            lambda: (r := server.health())[0] == 503 and r, 10, interval=0.5, what="a 503", explain=server.log
        )
        assert report["status"] == "degraded"
        assert any("worker process is not running (was killed by SIGKILL)" in p for p in report["problems"])
    finally:
        server.stop()


def test_serve_says_what_it_runs(serve):
    """Its first line names every process it supervises, as the health report does (it
    said "web, worker and beat" while it ran the analysis worker too)."""
    names = [child["name"] for child in serve.health()[1]["supervised"]]
    assert names == ["web", "worker", "analysis", "beat"]
    assert f"serve (pid {serve.serve_pid()}): web, worker, analysis and beat; broker " in serve.log()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_everything_it_started(serve, signum):
    children = [serve.supervised(name)["pid"] for name in ("web", "worker", "analysis", "beat")]
    assert all(alive(pid) for pid in children)
    serve.signal(signum)
    assert serve.process.wait(30) == 0
    wait_for(lambda: not any(alive(pid) for pid in children), 10, what="every child to be gone")
    assert port_free(serve.port)
    assert "serve: stopped" in serve.log()


@pytest.mark.skipif(not LINUX, reason="children learn of their parent's death through Linux's PR_SET_PDEATHSIG")
def test_killing_serve_itself_leaves_no_child_behind(serve):
    children = [serve.supervised(name)["pid"] for name in ("web", "worker", "analysis", "beat")]
    serve.signal(signal.SIGKILL)
    wait_for(lambda: not any(alive(pid) for pid in children), 20, what="every child to be gone")
    wait_for(lambda: port_free(serve.port), 10, what="the port to be free")


def test_serve_refuses_a_port_in_use(tmp_path):
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        result = subprocess.run(
            [sys.executable, "manage.py", "serve", "--port", str(port)],
            cwd=ROOT,
            env={**os.environ, "RUN_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    assert f"Cannot serve on 127.0.0.1:{port}" in result.stderr and "--port" in result.stderr


def test_soak_bots_keep_playing_for_minutes_without_a_worker_death(tmp_path):
    """The soak run: ``make serve`` itself, several bot tables at once, new ones as
    they finish. Half a minute in ``make test``; ``make soak`` runs it for
    SOAK_MINUTES (default 5)."""
    minutes = float(os.environ.get("SOAK_MINUTES", "0.5"))
    server = Serve(tmp_path / "serve", via_make=True)
    try:
        tables = [open_bot_table(server, rounds=3) for _ in range(3)]
        finished = 0
        deadline = time.monotonic() + minutes * 60
        while time.monotonic() < deadline:
            for i, game in enumerate(tables):
                if is_finished(server, game):
                    assert_played_exactly(server, game)
                    finished += 1
                    tables[i] = open_bot_table(server, rounds=3)
            time.sleep(0.5)
        for child in ("web", "worker", "beat"):
            assert server.supervised(child)["restarts"] == 0, server.log()
        assert "was killed" not in server.log() and "exited with" not in server.log()
        assert "Unrecoverable error" not in server.log()
        assert finished >= minutes * 10, f"only {finished} matches finished in {minutes} min"
        wait_for(lambda: all(is_finished(server, g) for g in tables), 120, interval=0.5, what="the last matches")
        for game in tables:
            assert_played_exactly(server, game)
        status, health = server.health()
        assert status == 200, health
        print(f"soak: {minutes} min, {finished + len(tables)} matches, 0 worker deaths")
    finally:
        server.stop()
