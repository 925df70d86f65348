"""The matcher in real Celery workers (real Redis broker, real PostgreSQL): a wait
that runs out gets bots or expires on time; a seek outlives the worker that held
its task, and seeks posted while no worker runs are found from the database by
beat's periodic run. Every wait is on a condition with a deadline."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import redis
from django.utils import timezone

from games.models import Game, GameStatus, Seat
from matchmaking import services
from matchmaking.models import Seek, SeekStatus
from tests.integration.workers import WITH_WORKERS, wait_for

pytestmark = WITH_WORKERS


def status_of(seek: Seek) -> str:
    seek.refresh_from_db()
    return seek.status


def test_a_wait_that_runs_out_gets_server_bots(make_player, start_worker):
    worker = start_worker()
    alice = make_player("alice")
    seek = services.seek_create(user=alice, players=3, preset="double-6-quick", wait_seconds=1, bot_level="random")
    wait_for(lambda: status_of(seek) != SeekStatus.WAITING, 30, what="the seek to end", explain=worker.log)
    assert (seek.status, seek.reason) == ("matched", "bots") and seek.game_id is not None
    game = Game.objects.get(pk=seek.game_id)
    seats = list(game.seats.select_related("player").order_by("number"))
    assert seats[0].player == alice and game.status in (GameStatus.RUNNING, GameStatus.FINISHED)
    assert [s.player.username for s in seats[1:] if s.player is not None] == ["ladder-random", "ladder-random-2"]
    # the seek ended at its deadline, not at a periodic run (this worker runs no beat)
    assert seek.matched_at is not None and seek.matched_at - seek.expires_at < timedelta(seconds=10)


def test_a_wait_that_runs_out_expires_when_asked(make_player, start_worker):
    worker = start_worker()
    seek = services.seek_create(
        user=make_player("bob"), players=2, preset="double-6", wait_seconds=1, on_timeout="expire"
    )
    wait_for(lambda: status_of(seek) != SeekStatus.WAITING, 30, what="the seek to end", explain=worker.log)
    assert (seek.status, seek.reason, seek.game_id) == ("expired", "timeout", None)


def test_a_seek_outlives_the_worker_that_held_its_task(make_player, start_worker):
    doomed = start_worker(name="doomed")  # no beat
    seek = services.seek_create(user=make_player("carol"), players=4, preset="double-9", wait_seconds=2)
    # the worker holds the task due at the seek's deadline (a countdown, unacknowledged) ...
    wait_for(
        lambda: len(re.findall(r"Task matchmaking\.match\[[^]]+\] received", doomed.log())) >= 2,
        15,
        what="the worker to hold the deadline's task",
        explain=doomed.log,
    )
    doomed.kill()  # ... and dies with it
    wait_for(lambda: timezone.now() > seek.expires_at + timedelta(seconds=1), 10, what="the deadline to pass")
    assert status_of(seek) == SeekStatus.WAITING  # nobody decided anything: the seek is intact
    survivor = start_worker(beat=True, name="survivor")  # beat's periodic run finds it in the database
    wait_for(lambda: status_of(seek) != SeekStatus.WAITING, 30, what="the new worker to fill it", explain=survivor.log)
    assert (seek.status, seek.reason) == ("matched", "bots")


def test_seeks_posted_while_no_worker_runs_are_matched_by_the_next_one(
    make_player, start_worker, broker_url: str, queue_name: str
):
    gone = start_worker(name="gone")
    gone.kill()
    seeks = [
        services.seek_create(user=make_player(name), players=2, preset="double-6-quick", wait_seconds=600)
        for name in ("dave", "erin")
    ]
    # the tasks they sent are lost with the broker's queue: only the database remembers
    redis.Redis.from_url(broker_url).delete(queue_name)
    assert [status_of(s) for s in seeks] == ["waiting", "waiting"]
    worker: Any = start_worker(beat=True, name="next")
    wait_for(
        lambda: all(status_of(s) == SeekStatus.MATCHED for s in seeks),
        30,
        what="the seeks to match",
        explain=worker.log,
    )
    assert seeks[0].game_id == seeks[1].game_id is not None


def test_a_burst_of_seeks_sends_a_few_tasks_and_a_seek_after_a_run_sends_one_again(
    make_player, start_worker, broker_url: str, queue_name: str, monkeypatch
):
    """A seek asks for a matcher run only when none is due yet (a mark in the broker's
    Redis the run clears before it reads), and one deadline task a second of deadlines:
    a burst's 2,000 tasks were the worker's whole queue. A seek posted after a run
    still gets one (no beat here: nothing else would match it)."""
    monkeypatch.setattr(services, "SOON_MARK_MS", 120_000)  # only the run's clearing lets a later seek send
    broker = redis.Redis.from_url(broker_url)
    started = timezone.now()
    seeks = [
        services.seek_create(user=make_player(f"burst{i}"), players=4, preset="double-6-quick", wait_seconds=600)
        for i in range(16)
    ]
    seconds = (timezone.now() - started).total_seconds()
    # No worker yet: one run and one deadline task a second the posting spanned (was 2 a seek).
    assert broker.llen(queue_name) <= 1 + (int(seconds) + 2)
    worker = start_worker(name="coalescing")  # no beat
    wait_for(
        lambda: not Seek.objects.filter(pk__in=[s.pk for s in seeks], status=SeekStatus.WAITING).exists(),
        30,
        what="the burst to be matched",
        explain=worker.log,
    )
    later = [
        services.seek_create(user=make_player(f"later{i}"), players=4, preset="double-6-quick", wait_seconds=600)
        for i in range(4)
    ]
    wait_for(
        lambda: all(status_of(s) == SeekStatus.MATCHED for s in later),
        20,
        what="the seeks after the run to be matched",
        explain=worker.log,
    )
    seated = list(Seat.objects.filter(player__in=[s.user_id for s in [*seeks, *later]]).values_list("player_id"))
    assert len(seated) == len(set(seated)) == 20  # each account once
