"""Where the CPU went during the measurement (Linux ``/proc``; nothing elsewhere):
the whole machine (other work on it skews every figure), this load generator and
the server's processes, whose CPU time per accepted move depends least on what
else runs on the machine; ``ServerCpu`` splits the server's by process group
(web, worker, PostgreSQL, Redis)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import psycopg
import redis


def machine_cpu() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine since boot, summed over cores."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(v) for v in stat.readline().split()[1:8]]
    except OSError:
        return None
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / hz, sum(ticks) / hz


def process_times() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, user + system CPU seconds) of every live process."""
    table: dict[int, tuple[int, float]] = {}
    hz = os.sysconf("SC_CLK_TCK")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / hz)
    return table


def descendants(root: int, table: dict[int, tuple[int, float]]) -> set[int]:
    """``root`` and its live descendants."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in table and pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def process_tree_cpu(root: int) -> float:
    """User + system CPU seconds of ``root`` and its live descendants."""
    table = process_times()
    return sum(table[pid][1] for pid in descendants(root, table))


def tree_rss_bytes(roots: list[int]) -> int | None:
    """Resident memory of ``roots`` and their live descendants (None without ``/proc``)."""
    if not roots or not os.path.isdir("/proc"):
        return None
    table = process_times()
    total = 0
    for pid in set().union(*(descendants(root, table) for root in roots)):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


@dataclass
class CpuSnapshot:
    machine: tuple[float, float] | None
    loadgen: float
    server: float | None

    @classmethod
    def take(cls, server_pids: list[int]) -> CpuSnapshot:
        times = os.times()
        server = sum(process_tree_cpu(pid) for pid in server_pids) if server_pids and os.path.isdir("/proc") else None
        return cls(machine_cpu(), times.user + times.system, server)


def cpu_line(a: CpuSnapshot, b: CpuSnapshot, moves: int) -> str | None:
    """Where the CPU went during the measurement: the whole machine (other work
    on it skews every number), this load generator, the spawned server."""
    if a.machine is None or b.machine is None:
        return None
    busy, total = b.machine[0] - a.machine[0], b.machine[1] - a.machine[1]
    cores = os.cpu_count() or 1
    wall = total / cores if total else 0.0
    line = f"cpu: machine {busy / wall if wall else 0:.2f} of {cores} cores busy; load generator {(b.loadgen - a.loadgen) / wall if wall else 0:.2f}"
    if a.server is not None and b.server is not None and moves:
        server = b.server - a.server
        line += (
            f"; server processes {server / wall if wall else 0:.2f} ({server * 1000 / moves:.1f} ms per accepted move)"
        )
    return line


# -- the server's CPU by process group (``--compare-bare``) ------------------------

#: PostgreSQL's own processes, shared by every database of the server (``pg_stat_activity.backend_type``).
PG_BACKGROUND = ("checkpointer", "walwriter", "background writer", "autovacuum launcher", "autovacuum worker")


@dataclass
class GroupSample:
    """CPU seconds so far per group and process, and of the Redis server."""

    processes: dict[str, dict[int, float]]
    redis: float | None


class ServerCpu:
    """Where the server's CPU goes, by group of processes:

    * one group per process tree given (``{"web": gunicorn's pid, "worker": Celery's}``);
    * ``pg``: the PostgreSQL backends serving ``database_url``'s database (found in
      ``pg_stat_activity``, this process's own session left out);
    * ``pg-bg``: PostgreSQL's background writers (WAL writer, checkpointer,
      autovacuum ...): they work for every database of that server;
    * ``redis``: the Redis server's own count (``INFO cpu``), for every client of it.

    A process's CPU is counted from the first sample it is in (or from its
    start, when it started in between) to the last: one that ends in between
    is lost. Linux only (``/proc``); a group that cannot be read (no ``/proc``,
    PostgreSQL or Redis not answering) stays out."""

    def __init__(self, trees: dict[str, int], database_url: str | None = None, redis_url: str | None = None) -> None:
        proc = os.path.isdir("/proc")
        self.trees = trees if proc else {}
        self.database = urlsplit(database_url).path.lstrip("/") if database_url else None
        self._pg: psycopg.Connection[Any] | None = None
        self._redis: redis.Redis | None = None
        if database_url and proc:
            with contextlib.suppress(psycopg.Error):
                self._pg = psycopg.connect(database_url, autocommit=True, connect_timeout=5)
        if redis_url:
            try:
                self._redis = redis.Redis.from_url(redis_url, socket_timeout=5)
                self._redis.ping()
            except redis.RedisError:
                self._redis = None

    def close(self) -> None:
        if self._pg is not None:
            self._pg.close()
        if self._redis is not None:
            self._redis.close()

    def groups(self) -> list[str]:
        return [*self.trees, *(["pg", "pg-bg"] if self._pg else []), *(["redis"] if self._redis else [])]

    def take(self) -> GroupSample:
        table = process_times() if self.trees or self._pg else {}
        processes = {
            name: {pid: table[pid][1] for pid in descendants(root, table)} for name, root in self.trees.items()
        }
        if self._pg is not None:
            rows = self._pg.execute(
                "SELECT pid, backend_type, datname FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
            ).fetchall()
            backends = {pid for pid, kind, db in rows if kind == "client backend" and db == self.database}
            background = {pid for pid, kind, _ in rows if kind in PG_BACKGROUND}
            processes["pg"] = {pid: table[pid][1] for pid in backends if pid in table}
            processes["pg-bg"] = {pid: table[pid][1] for pid in background if pid in table}
        used = None
        if self._redis is not None:
            info: dict[str, Any] = self._redis.info("cpu")
            used = float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
        return GroupSample(processes, used)

    @staticmethod
    def spent(a: GroupSample, b: GroupSample) -> dict[str, float]:
        """CPU seconds per group between two samples."""
        spent = {
            name: sum(seconds - a.processes.get(name, {}).get(pid, 0.0) for pid, seconds in pids.items())
            for name, pids in b.processes.items()
        }
        if a.redis is not None and b.redis is not None:
            spent["redis"] = b.redis - a.redis
        return spent
