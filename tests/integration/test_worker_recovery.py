"""A worker that starts finds the work that is due, beat or no beat; and the health
report says so while bots and clocks are left waiting. Real worker processes on
a real Redis, against the real PostgreSQL test database."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone

from games import services
from games.models import Game, Move
from live import turns
from ops.models import Heartbeat
from tests.integration.test_bots_and_clocks import FOUR_PLAYERS, bot_table
from tests.integration.workers import WITH_WORKERS, wait_for

pytestmark = WITH_WORKERS

BOT_DELAY_MS = 2000


def health(client) -> tuple[int, dict]:
    response = client.get("/api/v1/health/")
    return response.status_code, response.json()


def first_bot_due(game: Game):
    return next(t.due_at for t in turns.pending_turns() if t.game_id == game.pk)


def test_without_beat_a_new_worker_plays_the_turn_a_killed_worker_held(make_player, start_worker, api_client, settings):
    settings.HEALTH_WORKER_STALE_SECONDS = 2
    settings.HEALTH_TURN_LATE_SECONDS = 1
    doomed = start_worker(name="doomed")  # no beat: nothing but the workers themselves recovers work
    creator = make_player("host")
    game = bot_table(creator, ruleset={**FOUR_PLAYERS, "rounds": 1})
    Game.objects.filter(pk=game.pk).update(bot_delay_ms=BOT_DELAY_MS)
    services.game_start(game_id=game.pk, by=creator)
    # The paced bot turn is a countdown task the worker has taken and holds, unacknowledged.
    wait_for(
        lambda: re.search(r"Task bots\.play_bot_turn\[[^]]+\] received", doomed.log()),
        10,
        what="the worker to hold the bot turn",
        explain=doomed.log,
    )
    status, report = health(api_client)
    assert report["checks"]["workers"]["ok"], report
    assert not report["checks"]["sweep"]["ok"] and "beat" in report["checks"]["sweep"]["detail"]
    doomed.kill()

    due = first_bot_due(game)
    wait_for(lambda: timezone.now() > due + timedelta(seconds=1.5), 10, what="the turn to be late")
    status, report = wait_for(
        lambda: (r := health(api_client))[1]["checks"]["workers"]["ok"] is False and r,
        10,
        what="the dead worker to show",
    )
    assert status == 503 and report["status"] == "degraded"
    assert not report["checks"]["turns"]["ok"] and report["checks"]["turns"]["late"] == 1
    assert Move.objects.filter(game=game).count() == 0  # nothing moved it meanwhile

    rescuer = start_worker(name="rescuer")
    ready = timezone.now()
    first = wait_for(
        lambda: Move.objects.filter(game=game).first(), 10, what="the rescuer to play the turn", explain=rescuer.log
    )
    waited = (first.created_at - ready).total_seconds()
    assert waited < 5, f"the held turn was played {waited:.2f} s after the new worker started"
    print(f"a new worker played the lost turn {waited:.2f} s after it was ready")
    assert "re-sent 1 pending turn" in rescuer.log()
    wait_for(lambda: health(api_client)[1]["checks"]["workers"]["ok"], 10, what="the new worker in the report")


def test_a_worker_beats_while_it_runs_and_forgets_itself_when_stopped(start_worker, api_client):
    worker = start_worker(name="beater")
    name = "worker:beater@"
    beat = wait_for(lambda: Heartbeat.objects.filter(name__startswith=name).first(), 10, what="a heartbeat")
    first_seen = beat.seen_at
    wait_for(lambda: Heartbeat.objects.get(pk=beat.pk).seen_at > first_seen, 10, what="the next heartbeat")
    assert Heartbeat.objects.get(pk=beat.pk).detail["pid"] == worker.process.pid
    worker.stop()
    assert not Heartbeat.objects.filter(name__startswith=name).exists()


def test_the_sweep_reports_each_run(start_worker, api_client):
    start_worker(beat=True)
    before = timezone.now()
    wait_for(lambda: Heartbeat.objects.filter(name="sweep", seen_at__gt=before).exists(), 15, what="a sweep")
    _status, report = health(api_client)
    assert report["checks"]["sweep"]["ok"] and report["checks"]["workers"]["ok"], report
