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

from games.models import Game, GameStatus
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
