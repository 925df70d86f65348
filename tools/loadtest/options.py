"""What a load-test run is asked to do (``Options``, the command's flags), the
names every part shares, and the error that stops a run."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

API = "/api/v1"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
FOLLOW_MODES = ("local", "notify", "poll", "longpoll", "stream")
IDLE_MODES = ("sse", "longpoll")


class LoadTestError(Exception):
    """The run cannot go on (the server refused the set-up, streams cannot open ...)."""


@dataclass
class Options:
    """One field per flag of ``manage.py loadtest`` (the defaults are the command's)."""

    url: str = "http://127.0.0.1:8000"
    clients: int = 16
    duration: float = 30.0
    warmup: float = 5.0
    games_per_pair: int = 2
    follow: str = "local"
    poll_interval: float = 0.05
    set_max: int = 9
    idle_streams: int = 0
    idle_mode: str = "sse"
    idle_wait: int = 30
    idle_games: int = 10
    seed: int | None = None


def parse_url(url: str) -> tuple[str, int]:
    """(host, port) of an http:// URL on this machine: the load test never aims at anyone else's server."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise LoadTestError(f"{url!r}: give an http:// URL")
    if parts.hostname not in LOCAL_HOSTS:
        raise LoadTestError(f"{url!r}: the load test only ever targets this machine (127.0.0.1 or localhost)")
    return parts.hostname, parts.port or 80
