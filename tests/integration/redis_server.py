"""A Redis server of a test's own, which the test may stop and start again.

Tests of Redis outages must not stop the Redis every other test uses, so they run
``redis-server`` on a free port (nothing kept on disk: a restarted Redis is empty,
like one that lost its data)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import redis

from core.processes import free_port, kill_group, spawn, wait_until
from tests.services import in_ci

REDIS_SERVER = shutil.which("redis-server")


class RedisServer:
    def __init__(self, folder: Path) -> None:
        if REDIS_SERVER is None:
            reason = "needs the redis-server program to start and stop a Redis of its own"
            if in_ci():
                pytest.fail(f"CI=true: {reason}")
            pytest.skip(reason)
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def answers(self) -> bool:
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def start(self) -> None:
        assert self.process is None and REDIS_SERVER is not None
        self.process = spawn(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            log=self.folder / "redis.log",
        )
        wait_until(self.answers, process=self.process, timeout=10, what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        """Gone at once, as a crash or a restart would take it (its data with it)."""
        if self.process is not None:
            kill_group(self.process)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()
