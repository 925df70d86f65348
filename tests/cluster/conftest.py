"""The cluster the fault suite runs on (``make cluster-test``), and the clients playing on it.

The cluster is made once for the session by ``deploy/cluster.py`` (network
namespaces: needs root and ``deploy/install.sh``'s packages) and removed at the
end (``CLUSTER_KEEP=1`` keeps it for a look). Its figures are written to
``CLUSTER_DIR/results.json`` and printed. ``CLUSTER_REUSE=1`` plays on a cluster
that is already running instead of making one.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from deploy import cluster as cluster_module
from tests.cluster.traffic import Api, Ledger, Pair, Stream, bot_table, sign_up

CLIENTS = 8  # in pairs


def _missing() -> str:
    if os.geteuid() != 0:
        return "the cluster needs root (network namespaces)"
    for tool in ("ip", "patroni", "etcd", "haproxy", "redis-sentinel"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (deploy/install.sh)"
    return ""


@dataclass
class Traffic:
    base: str
    ledger: Ledger
    pairs: list[Pair]
    streams: list[Stream]
    admin: Api
    bot_game: int
    results: list[dict[str, Any]] = field(default_factory=list)

    def games(self) -> list[int]:
        return [game for pair in self.pairs for game in pair.games] + [self.bot_game]

    def pause(self) -> None:
        for pair in self.pairs:
            pair.paused.set()
        for pair in self.pairs:
            assert pair.idle.wait(180), f"{pair.name} did not finish its move within 180 s"

    def resume(self) -> None:
        for pair in self.pairs:
            pair.paused.clear()


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    missing = _missing()
    if missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"make cluster-test cannot run: {missing}")
        pytest.skip(f"make cluster-test cannot run: {missing}")
    # The suite signs its clients up from one address (the machine's, through HAProxy).
    os.environ.setdefault("CLUSTER_APP_THROTTLE_REGISTER", "1000/hour")
    os.environ.setdefault("CLUSTER_APP_THROTTLE_LOGIN", "1000/hour")
    # CLUSTER_REUSE=1: play on the cluster `make cluster` left running (while working on the suite).
    if os.environ.get("CLUSTER_REUSE") == "1" and cluster_module.namespaces():
        cluster_module.repair()
    else:
        cluster_module.up()
    try:
        yield cluster_module
    finally:
        if os.environ.get("CLUSTER_KEEP") != "1":
            cluster_module.down()


@pytest.fixture(scope="session")
def traffic(cluster: Any) -> Iterator[Traffic]:
    base = cluster.lb_url()
    ledger = Ledger()
    run = uuid.uuid4().hex[:6]
    # Over HTTPS, verified against the authority `make cluster` made (never a bare verify=False).
    verify = str(cluster.ca_file())
    apis = [sign_up(base, ledger, f"fault{run}{index}", verify) for index in range(CLIENTS)]
    streams: list[Stream] = []
    bot_game, bot_stream = bot_table(apis[0], base, ledger)
    streams.append(bot_stream)
    pairs = [Pair(apis[i], apis[i + 1], ledger, streams, base) for i in range(0, CLIENTS, 2)]
    for pair in pairs:
        pair.start()
    traffic = Traffic(base, ledger, pairs, streams, apis[0], bot_game)
    yield traffic
    for pair in pairs:
        pair.stop.set()
    for stream in streams:
        stream.stop.set()
    results = cluster.CLUSTER_DIR / "results.json"
    results.write_text(json.dumps(traffic.results, indent=2))
    print("\ncluster fault suite:", json.dumps(traffic.results, indent=2))
