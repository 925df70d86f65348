"""Where the CPU went during the measurement (Linux ``/proc``; nothing elsewhere):
the whole machine (other work on it skews every figure), this load generator and
the server's processes, whose CPU time per accepted move depends least on what
else runs on the machine."""

from __future__ import annotations

import os
from dataclasses import dataclass


def machine_cpu() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine since boot, summed over cores."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(v) for v in stat.readline().split()[1:8]]
    except OSError:
        return None
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / hz, sum(ticks) / hz


def process_tree_cpu(root: int) -> float:
    """User + system CPU seconds of ``root`` and its live descendants."""
    stats: dict[int, tuple[int, float]] = {}  # pid -> (parent, seconds)
    hz = os.sysconf("SC_CLK_TCK")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / hz)
    wanted, total = {root}, 0.0
    changed = True
    while changed:
        changed = False
        for pid, (parent, _) in stats.items():
            if parent in wanted and pid not in wanted:
                wanted.add(pid)
                changed = True
    for pid in wanted:
        total += stats.get(pid, (0, 0.0))[1]
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
