"""What a load-test run is asked to do (``Options``, the command's flags), the
names every part shares, and the error that stops a run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

API = "/api/v1"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
#: ``make cluster``'s hosts: network namespaces on this machine (deploy/cluster.py's CLUSTER_SUBNET).
CLUSTER_SUBNET = os.environ.get("CLUSTER_SUBNET", "10.77.0")
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
    #: False: tables opened without a turn clock (``turn_time_limit`` null), else the server's default clock.
    turn_clock: bool = True


def on_this_machine(hostname: str) -> bool:
    """The loopback, or a host of ``make cluster`` (a namespace on this machine's bridge)."""
    return hostname in LOCAL_HOSTS or hostname.startswith(CLUSTER_SUBNET + ".")


def parse_url(url: str) -> tuple[str, int]:
    """(host, port) of an http:// or https:// URL on this machine: the load test never
    aims at anyone else's server. (https: ``connection.use_tls`` says whom to trust.)"""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LoadTestError(f"{url!r}: give an http:// or https:// URL")
    if not on_this_machine(parts.hostname):
        raise LoadTestError(
            f"{url!r}: the load test only ever targets this machine (127.0.0.1, localhost, or make cluster's "
            f"{CLUSTER_SUBNET}.x hosts)"
        )
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
