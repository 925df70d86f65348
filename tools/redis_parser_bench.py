"""What a move's two trips to Redis cost the web process: redis-py's own parser
against hiredis (its C parser, which it uses by itself once installed), both
through redis-py's pipelines, and hiredis through ``core.cache.send_all`` (the
same commands in one write, without the pipeline object), interleaved.

    python tools/redis_parser_bench.py [rounds]     # REDIS_URL, default redis://127.0.0.1:6379/12

A round is the Redis work of one move on the server: its rate limit's counters
(``core.limits``, the ``moves`` scope, the only throttle of a move: increment,
expiry, the previous window) in one pipeline, and the move's notices
(``core.notify.publish``: three channels) in another. Prints the process CPU per
round of each way, median of six alternating runs (the machine's speed drifts:
compare only within one run)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable

import orjson
import redis
from redis._parsers import _HiredisParser, _RESP2Parser

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from core.cache import send_all

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


def one_move_sent_all(client: redis.Redis) -> None:
    send_all(
        client,
        [
            ("INCR", "bench:limit:moves:1:100"),
            ("EXPIRE", "bench:limit:moves:1:100", 120, "NX"),
            ("GET", "bench:limit:moves:1:99"),
        ],
    )
    send_all(client, [("PUBLISH", channel, NOTICE) for channel in ("bench:game:7", "bench:user:1", "bench:user:2")])


def main(rounds: int) -> None:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/12")
    ways: dict[str, tuple[redis.Redis, Callable[[redis.Redis], None]]] = {
        "redis-py_pipelines": (redis.Redis.from_url(url, parser_class=_RESP2Parser), one_move),
        "hiredis_pipelines": (redis.Redis.from_url(url, parser_class=_HiredisParser), one_move),
        "hiredis_send_all": (redis.Redis.from_url(url, parser_class=_HiredisParser), one_move_sent_all),
    }
    runs: dict[str, list[float]] = {name: [] for name in ways}
    for rep in range(6):
        order = list(ways.items())
        for name, (client, move) in order if rep % 2 == 0 else order[::-1]:
            start = time.process_time()
            for _ in range(rounds):
                move(client)
            runs[name].append((time.process_time() - start) / rounds * 1e6)
    for name, values in runs.items():
        print(f"{name}_us_per_move: {statistics.median(values):.1f} ({' '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
