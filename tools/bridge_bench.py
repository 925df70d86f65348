"""What the bridge between uvicorn's event loop and Django's WSGI handler costs a
request: ``core.wsgi_bridge`` (one hop to a worker thread and back) against
a2wsgi (a hop per message), in one process, alternating batches.

    .venv/bin/python tools/bridge_bench.py [--requests 4000] [--concurrency 16] [--body 2000]

Both serve ``config.asgi``'s Django application with the same two threads. The
request is a ``POST`` with a JSON body of ``--body`` bytes to a path under /api/
that no view serves: every middleware, URL resolution and a problem+json 404,
and no database or Redis, so what differs between the two is the bridge alone.
The ASGI server is played by this script (``receive`` hands out the body,
``send`` keeps the answer) on uvloop, as under uvicorn. Prints the CPU time
(``time.process_time``, all threads) per request of each, median over the
batches, and the difference. Run it with both cores otherwise quiet, or compare
only within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BATCHES = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4000, help="requests per bridge (default 4000)")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight (default 16)")
    parser.add_argument("--body", type=int, default=2000, help="request body bytes (default 2000)")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    import uvloop

    from config import asgi

    logging.getLogger("django.request").setLevel(logging.ERROR)  # every answer here is a 404, on purpose

    bridges = {"core.wsgi_bridge": asgi.wsgi_app, "a2wsgi": asgi.wsgi_app.fallback}
    body = b'{"x": "' + b"y" * max(0, args.body - 9) + b'"}'
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/bench/nothing/",
        "root_path": "",
        "query_string": b"",
        "http_version": "1.1",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }

    async def one(app: Any) -> int:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(dict(scope), receive, send)
        return int(sent[0]["status"])

    async def batch(app: Any, n: int) -> float:
        async def client(count: int) -> None:
            for _ in range(count):
                status = await one(app)
                if status != 404:
                    raise SystemExit(f"unexpected answer {status}")

        started = time.process_time()
        await asyncio.gather(*(client(n // args.concurrency) for _ in range(args.concurrency)))
        return (time.process_time() - started) / (n // args.concurrency * args.concurrency) * 1e6

    async def run() -> dict[str, list[float]]:
        per_batch = max(args.concurrency, args.requests // BATCHES)
        for app in bridges.values():
            await batch(app, per_batch)  # warm-up
        results: dict[str, list[float]] = {name: [] for name in bridges}
        for i in range(BATCHES):
            order = list(bridges.items()) if i % 2 == 0 else list(bridges.items())[::-1]
            for name, app in order:
                results[name].append(await batch(app, per_batch))
        return results

    uvloop.install()
    results = asyncio.run(run())
    medians = {name: statistics.median(values) for name, values in results.items()}
    for name, values in results.items():
        print(f"{name:>17}: {medians[name]:6.0f} us CPU per request (batches {min(values):.0f}-{max(values):.0f})")
    print(f"{'saved':>17}: {medians['a2wsgi'] - medians['core.wsgi_bridge']:6.0f} us per request")


if __name__ == "__main__":
    main()
