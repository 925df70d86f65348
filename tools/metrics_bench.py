"""What the metrics cost a move: the calls of ``core.metrics`` one move makes, with
metrics on (prometheus-client's multiprocess mode, values in a folder of memory-
mapped files, as the servers run) against off (``METRICS_ENABLED=false``: every
call a no-op), in processes of their own, alternated.

    python tools/metrics_bench.py [moves]      # default 200000

A player's move in the web process: the request's counter and latency histogram
(``core.request_context``), its acceptance (``live.dispatch``), the notices it publishes (three channels),
the request id (a uuid and a context variable); a bot's move in the worker: the
task's start and end (context, counter, run-time histogram), the bot's decision
time, the move's acceptance and notices. Prints the process's CPU microseconds
per move of each, median of five alternating runs (compare only within one run: the machine's
speed drifts).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUTE = "api/v1/games/<int:game_id>/moves/"


def child(moves: int) -> None:
    """Run in a process whose METRICS_ENABLED is set: print seconds per player move and per bot move."""
    sys.path.insert(0, ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from core import metrics, request_context

    def player_move() -> None:
        token = request_context.CONTEXT.set({"request_id": request_context.new_id()})
        started = time.perf_counter()
        metrics.labelled(metrics.MOVES_ACCEPTED, "player").inc()
        metrics.NOTICES_PUBLISHED.inc(3)
        metrics.labelled(metrics.HTTP_REQUESTS, ROUTE, "POST", "201").inc()
        metrics.labelled(metrics.HTTP_DURATION, ROUTE, "POST").observe(time.perf_counter() - started)
        request_context.CONTEXT.reset(token)

    def bot_move() -> None:
        started = time.perf_counter()
        request_context.CONTEXT.set({"request_id": request_context.new_id(), "task": "bots.play_bot_turn"})
        metrics.labelled(metrics.BOT_DECISION, "greedy").observe(time.perf_counter() - started)
        metrics.labelled(metrics.MOVES_ACCEPTED, "bot").inc()
        metrics.NOTICES_PUBLISHED.inc(3)
        metrics.labelled(metrics.CELERY_TASK_DURATION, "bots.play_bot_turn").observe(time.perf_counter() - started)
        metrics.labelled(metrics.CELERY_TASKS, "bots.play_bot_turn", "succeeded").inc()
        request_context.CONTEXT.set(None)

    results = []
    for one in (player_move, bot_move):
        for _ in range(1000):  # warm up
            one()
        started = time.process_time()  # CPU, not wall time: the machine may be busy with other work
        for _ in range(moves):
            one()
        results.append((time.process_time() - started) / moves)
    print(*results)


def main() -> None:
    moves = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    runs: dict[str, list[tuple[float, float]]] = {"on": [], "off": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(5):
            for mode in ("on", "off"):
                env = {
                    **os.environ,
                    "METRICS_ENABLED": "true" if mode == "on" else "false",
                    "METRICS_DIR": folder,
                    "DATABASE_URL": "sqlite:///:memory:",
                }
                env.pop("PROMETHEUS_MULTIPROC_DIR", None)
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(moves)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                player, bot = (float(x) for x in done.stdout.split()[-2:])
                runs[mode].append((player, bot))
    print(f"metrics cost per move (process CPU), median of 5 alternating runs of {moves} moves each")
    for index, what in enumerate(("a player's move (web)", "a bot's move (worker)")):
        on = statistics.median(r[index] for r in runs["on"]) * 1e6
        off = statistics.median(r[index] for r in runs["off"]) * 1e6
        print(f"  {what:24} on {on:6.2f} us   off {off:6.2f} us   metrics' own cost {on - off:6.2f} us")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
    else:
        main()
