"""What parsing Redis's replies costs a move: redis-py's own parser against
hiredis (its C parser, which it uses by itself once installed), interleaved.

    python tools/redis_parser_bench.py [rounds]     # REDIS_URL, default redis://127.0.0.1:6379/12

A round is the Redis work of one move on the server: its rate limit's counters
(``core.limits``, the ``moves`` scope, the only throttle of a move: increment,
expiry, the previous window) in one pipeline, and the move's notices
(``core.notify.publish``: three channels) in another. Prints the process CPU per round of each parser, median of six
alternating runs (the machine's speed drifts: compare only within one run)."""

from __future__ import annotations

import os
import statistics
import sys
import time

import orjson
import redis
from redis._parsers import _HiredisParser, _RESP2Parser

NOTICE = orjson.dumps(
    {
        "game": 7,
        "seq": 123,
        "first": 121,
        "status": "running",
        "frames": ['id: 121\nevent: tile_played\ndata: {"seat":0}\n\n'] * 3,
    }
)


def one_move(client: redis.Redis) -> None:
    pipe = client.pipeline(transaction=False)
    pipe.incr("bench:limit:moves:1:100")
    pipe.expire("bench:limit:moves:1:100", 120, nx=True)
    pipe.get("bench:limit:moves:1:99")
    pipe.execute()
    pipe = client.pipeline(transaction=False)
    for channel in ("bench:game:7", "bench:user:1", "bench:user:2"):
        pipe.publish(channel, NOTICE)
    pipe.execute()


def main(rounds: int) -> None:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12")
    parsers = {"redis-py": _RESP2Parser, "hiredis": _HiredisParser}
    clients = {name: redis.Redis.from_url(url, parser_class=parser) for name, parser in parsers.items()}
    runs: dict[str, list[float]] = {name: [] for name in clients}
    for rep in range(6):
        order = list(clients.items())
        for name, client in order if rep % 2 == 0 else order[::-1]:
            start = time.process_time()
            for _ in range(rounds):
                one_move(client)
            runs[name].append((time.process_time() - start) / rounds * 1e6)
    for name, values in runs.items():
        print(f"{name}_us_per_move: {statistics.median(values):.1f} ({' '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
