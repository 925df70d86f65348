"""The fault suite (``make cluster-test``): one host or link fails at a time while
eight clients play duels through the load balancer, a table of server bots plays
on the workers, and every game's stream is held open.

For each fault: no answer 5xx other than 503, no move answered 2xx missing from
the log (lost), no move in the log more often than it was sent (doubled), no gap
in any stream's event ids; and the longest stretch with no move accepted is
measured (``seconds_unavailable``). The tests run in this file's order on one
cluster, each leaving it whole again for the next.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.cluster.conftest import Traffic
from tests.cluster.traffic import check_log as compare_logs

pytestmark = [pytest.mark.cluster]

RECOVERED_MOVES = 10  # moves accepted after a fault is healed before it is judged


def wait_for(what: str, check: Callable[[], Any], timeout: float) -> float:
    """Wait until ``check()`` is true; the seconds it took."""
    started = time.monotonic()
    deadline = started + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return time.monotonic() - started
        except Exception:
            pass
        time.sleep(0.25)
    pytest.fail(f"{what} did not happen within {timeout:.0f} s")


def judge(traffic: Traffic, cluster: Any, fault: str, started: float, **figures: Any) -> dict[str, Any]:
    """Wait for moves to flow again, then compare the logs with what clients were told."""
    ledger = traffic.ledger
    healed = time.monotonic()
    wait_for("moves accepted again", lambda: ledger.accepted_since(healed) >= RECOVERED_MOVES, 120)
    wait_for("the load balancer's health", lambda: cluster.healthy("lb"), 120)
    ended = time.monotonic()
    traffic.pause()
    try:
        lost, doubled, problems = check_log(traffic)
    finally:
        traffic.resume()
    result = {
        "fault": fault,
        "seconds_unavailable": round(ledger.longest_gap(started, ended), 1),
        "non_503_5xx": len(ledger.bad_5xx),
        "lost": lost,
        "doubled": doubled,
        "stream_gaps": len(ledger.gaps),
        "stream_repeats": list(ledger.repeats),
        "retried_503_or_connection": ledger.unavailable - sum(r["retried_503_or_connection"] for r in traffic.results),
        **figures,
    }
    traffic.results.append(result)
    print(result)
    assert not ledger.errors, ledger.errors
    assert not ledger.bad_5xx, ledger.bad_5xx
    assert not problems, problems
    assert not ledger.gaps, ledger.gaps
    return result


def check_log(traffic: Traffic) -> tuple[int, int, list[str]]:
    return compare_logs(traffic.admin, traffic.ledger, traffic.games())


def bot_seq(traffic: Traffic) -> int:
    return int(traffic.admin.ok("GET", f"/games/{traffic.bot_game}/")["game"]["seq"])


def warm(traffic: Traffic) -> None:
    wait_for("the clients' first moves", lambda: traffic.ledger.accepted_since(0) >= RECOVERED_MOVES, 180)


def test_kill_a_web_host(cluster: Any, traffic: Traffic) -> None:
    warm(traffic)
    started = time.monotonic()
    cluster.kill("web1")
    try:
        # HAProxy takes it out after two failed checks a second apart; moves go on on web2.
        routed = wait_for(
            "moves through the other web host", lambda: traffic.ledger.accepted_since(started + 2) >= 5, 60
        )
    finally:
        cluster.start_web("web1")
    wait_for("web1 back", lambda: cluster.answers("web1"), 120)
    judge(traffic, cluster, "kill -9 a web host", started, seconds_to_route_around=round(routed, 1))


def test_cut_a_worker_host_for_30_seconds(cluster: Any, traffic: Traffic) -> None:
    started = time.monotonic()
    before = bot_seq(traffic)
    cluster.cut("worker1")
    try:  # (joined again below, whatever happens)
        # The bots' table goes on, played by worker2 (tasks worker1 held are re-sent by the sweep).
        moved = wait_for("the bots' table moving without worker1", lambda: bot_seq(traffic) >= before + 5, 30)
        time.sleep(max(0.0, 30 - (time.monotonic() - started)))  # the fault lasts 30 s
    finally:
        cluster.join("worker1")
    judge(traffic, cluster, "cut a worker host's link for 30 s", started, seconds_until_bots_moved=round(moved, 1))


def lease_host(cluster: Any) -> str | None:
    """The worker host whose beat holds the lease (from the holder's pid)."""
    primary = cluster.primary()
    holder = cluster.psql(primary, "SELECT holder FROM ops_beatlease WHERE name = 'beat'", database="chickenfoot")
    pid = int(holder.split(":")[1])
    for host in cluster.WORKER_HOSTS:
        if pid in cluster.pids(host):
            return str(host)
    return None


def test_kill_the_beat_host(cluster: Any, traffic: Traffic) -> None:
    host = lease_host(cluster)
    assert host is not None, "no live beat holds the lease"
    other = next(h for h in cluster.WORKER_HOSTS if h != host)
    started, wall_started = time.monotonic(), time.time()
    cluster.kill(host)
    try:
        took_over = wait_for(f"beat on {other} taking over", lambda: lease_host(cluster) == other, 30)
        wait_for("the sweep sent again", lambda: beat_log(cluster, other, wall_started)[1], 30)
        # Once: the other beat sent nothing after the kill before it held the lease.
        early, _ = beat_log(cluster, other, wall_started)
        assert not early, f"the beat on {other} sent the sweep before it held the lease: {early}"
    finally:
        cluster.start_worker(host)
    judge(traffic, cluster, "kill the beat host", started, seconds_until_beat_took_over=round(took_over, 1))


def beat_log(cluster: Any, host: str, since: float) -> tuple[list[str], list[str]]:
    """The sweeps the beat on ``host`` sent after ``since`` (its log's "Sending due
    task" lines): (those before it took the lease, those after)."""
    before: list[str] = []
    after: list[str] = []
    holding = False
    for line in (cluster.host_dir(host) / "beat.log").read_text().splitlines():
        try:
            stamp = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S"))
        except ValueError:
            continue
        if stamp < since - 1:
            continue
        if "holds the lease" in line:
            holding = True
        elif "lost the lease" in line or "could not renew" in line:
            holding = False
        elif "Sending due task sweep-overdue-games" in line:
            (after if holding else before).append(line[:23])
    return before, after


def test_kill_the_database_primary(cluster: Any, traffic: Traffic) -> None:
    old = cluster.primary()
    standby = cluster.sync_standby()
    assert old and standby, "no primary with a synchronous standby to begin with"
    started = time.monotonic()
    cluster.kill(old)
    try:
        promoted = wait_for("a new primary", lambda: cluster.primary() not in (None, old), 60)
        new = cluster.primary()
        assert new == standby, f"{new} was promoted, not the synchronous standby {standby}"
        writes = wait_for("writes accepted again", lambda: traffic.ledger.accepted_since(started + promoted) >= 1, 60)
    finally:
        cluster.start_db(old)
    wait_for(f"{old} following the new primary", lambda: cluster.sync_standby() is not None, 120)
    judge(
        traffic,
        cluster,
        "kill -9 the PostgreSQL primary",
        started,
        seconds_until_promoted=round(promoted, 1),
        seconds_until_writes=round(promoted + writes, 1),
    )


def test_kill_the_redis_master(cluster: Any, traffic: Traffic) -> None:
    master = cluster.redis_master()
    host = next(h for h in cluster.REDIS_HOSTS if cluster.address(h) == master)
    started = time.monotonic()
    cluster.kill_named(host, "redis-server")
    try:
        failed_over = wait_for("a new Redis master", lambda: cluster.redis_master() not in (None, master), 30)
        before = bot_seq(traffic)
        bots = wait_for("the bots moving again", lambda: bot_seq(traffic) > before + 2, 30)
        heard = max(stream.last_at for stream in traffic.streams)
        notices = wait_for(
            "a stream hearing a move", lambda: max(s.last_at for s in traffic.streams) > max(heard, started), 30
        )
    finally:
        cluster.start_redis(host)
    judge(
        traffic,
        cluster,
        "kill the Redis master",
        started,
        seconds_until_failover=round(failed_over, 1),
        seconds_until_bots=round(failed_over + bots, 1),
        seconds_until_notices=round(failed_over + bots + notices, 1),
    )


def test_cut_web_hosts_from_the_database_for_10_seconds(cluster: Any, traffic: Traffic) -> None:
    started = time.monotonic()
    refused = traffic.ledger.unavailable
    for web in cluster.WEB_HOSTS:
        cluster.block(web, cluster.DB_HOSTS)
    try:
        time.sleep(10)  # the fault lasts 10 s
    finally:
        for web in cluster.WEB_HOSTS:
            cluster.unblock(web, cluster.DB_HOSTS)
    result = judge(traffic, cluster, "cut web hosts from the database for 10 s", started)
    assert traffic.ledger.unavailable > refused, "no client was told 503 while the database was cut off"
    assert result["seconds_unavailable"] >= 5
