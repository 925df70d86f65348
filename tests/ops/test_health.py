"""GET /api/v1/health/: 200 when all is well, 503 naming what is wrong otherwise.

The report reads the database (heartbeats, pending turns) and pings Redis and
the broker; these tests set up each condition for real - rows, a Redis that
answers, one that does not - and read the report through the API, checked
against the contract."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.redisconn import master_address
from games import services
from games.models import Game
from ops import heartbeats
from ops.models import HeartbeatKind
from ops.tasks import CLOCK, SWEEP
from tests.openapi_check import assert_matches_schema

pytestmark = pytest.mark.django_db

HEALTH = "/api/v1/health/"
NOBODY_LISTENS = "redis://127.0.0.1:1/0"


@pytest.fixture
def all_well(settings):
    """A worker, the sweep and the turn clock seen just now; no Redis configured (the embedded mode)."""
    settings.REDIS_URL = ""
    settings.CELERY_BROKER_URL = "memory://"
    heartbeats.record(kind=HeartbeatKind.WORKER, name="worker:w1@host", started_at=timezone.now(), pid=123)
    heartbeats.record(kind=HeartbeatKind.SWEEP, name=SWEEP, sent=0)
    heartbeats.record(kind=HeartbeatKind.CLOCK, name=CLOCK, due=0, fired=0, failed=0, latest_lateness=None)


def report(api_client, status: int) -> dict:
    response = api_client.get(HEALTH)
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json()


def test_all_well_is_200(api_client, all_well):
    body = report(api_client, 200)
    assert body["status"] == "ok" and body["problems"] == []
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["redis"]["configured"] is False
    assert [w["name"] for w in body["checks"]["workers"]["alive"]] == ["w1@host"]


def test_it_asks_for_no_credentials_and_ignores_bad_ones(api_client, all_well):
    api_client.credentials(HTTP_AUTHORIZATION="Bearer cf_not_a_token")
    assert report(api_client, 200)["status"] == "ok"


def test_no_worker_ever(api_client, all_well):
    heartbeats.forget("worker:w1@host")
    body = report(api_client, 503)
    assert body["status"] == "degraded"
    assert body["problems"] == [body["checks"]["workers"]["detail"]]
    assert "No worker has ever reported" in body["problems"][0]


def test_a_silent_worker(api_client, all_well, settings):
    settings.HEALTH_WORKER_STALE_SECONDS = 15
    heartbeats.record(kind=HeartbeatKind.WORKER, name="worker:w1@host", pid=123)
    from ops.models import Heartbeat

    Heartbeat.objects.filter(name="worker:w1@host").update(seen_at=timezone.now() - timedelta(seconds=40))
    body = report(api_client, 503)
    assert not body["checks"]["workers"]["ok"] and body["checks"]["workers"]["alive"] == []
    assert "No worker has reported for 40 s" in body["checks"]["workers"]["detail"]


def test_beat_not_running(api_client, all_well, settings):
    from ops.models import Heartbeat

    Heartbeat.objects.filter(name=SWEEP).update(seen_at=timezone.now() - timedelta(minutes=5))
    body = report(api_client, 503)
    assert not body["checks"]["sweep"]["ok"]
    assert "last ran 300 s ago: is beat running" in body["checks"]["sweep"]["detail"]


def test_the_turn_clock_not_running(api_client, all_well):
    from ops.models import Heartbeat

    assert report(api_client, 200)["checks"]["clock"]["ok"]
    Heartbeat.objects.filter(name=CLOCK).update(seen_at=timezone.now() - timedelta(seconds=30))
    body = report(api_client, 503)
    assert body["status"] == "degraded"
    assert body["problems"] == [body["checks"]["clock"]["detail"]]
    assert "The turn clock last ran 30 s ago: are beat and a worker running?" in body["problems"][0]
    Heartbeat.objects.filter(name=CLOCK).delete()
    assert "The turn clock has never run" in report(api_client, 503)["checks"]["clock"]["detail"]


def test_a_turn_clock_that_cannot_play_a_timeout(api_client, all_well):
    heartbeats.record(kind=HeartbeatKind.CLOCK, name=CLOCK, due=3, fired=2, failed=1, latest_lateness=0.3)
    clock = report(api_client, 503)["checks"]["clock"]
    assert (clock["ok"], clock["fired"], clock["failed"]) == (False, 2, 1)
    assert "could not play 1 timeout(s): see the worker's log" in clock["detail"]


def test_an_overdue_bot_turn(api_client, all_well, make_player):
    creator = make_player("host")
    game = services.game_create(creator=creator, ruleset={"set_max": 6, "players": 2}, sit=False)
    for _ in range(2):
        services.game_add_bot(game_id=game.pk, by=creator, strategy="greedy")
    services.game_start(game_id=game.pk, by=creator)  # its bot task goes nowhere (memory://)
    assert report(api_client, 200)["checks"]["turns"]["due"] == 1
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(minutes=1), last_move_at=None)
    body = report(api_client, 503)
    turns = body["checks"]["turns"]
    assert (turns["pending"], turns["due"], turns["late"]) == (1, 1, 1)
    assert 59 < turns["oldest_late_seconds"] < 120
    assert "bots or turn clocks are not being played" in turns["detail"]


@pytest.mark.redis
def test_redis_that_answers(api_client, all_well, settings, redis_url):
    settings.REDIS_URL = redis_url
    settings.CELERY_BROKER_URL = redis_url
    body = report(api_client, 200)
    node = master_address(redis_url)  # the server the URL names (host:port)
    assert body["checks"]["redis"] == {
        "ok": True,
        "configured": True,
        "detail": f"Redis answers ({node}).",
        "node": node,
    }
    assert body["checks"]["broker"]["ok"] and body["checks"]["broker"]["transport"] == "redis"


def test_redis_that_does_not_answer(api_client, all_well, settings):
    settings.REDIS_URL = NOBODY_LISTENS
    settings.CELERY_BROKER_URL = NOBODY_LISTENS
    body = report(api_client, 503)
    assert body["status"] == "degraded"  # moves still work: the database answers
    assert not body["checks"]["redis"]["ok"] and "moves and reads still work" in body["checks"]["redis"]["detail"]
    assert not body["checks"]["broker"]["ok"] and "no bot or turn clock" in body["checks"]["broker"]["detail"]
    assert len(body["problems"]) == 2


def test_the_embedded_broker_folder(api_client, all_well, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.BROKER_DIR = tmp_path / "broker"
    assert not report(api_client, 503)["checks"]["broker"]["ok"]  # no such folder
    settings.BROKER_DIR.mkdir()
    assert report(api_client, 200)["checks"]["broker"]["transport"] == "filesystem"


def test_what_serve_supervises(api_client, all_well):
    children = [
        {"name": "web", "pid": 10, "running": True, "restarts": 0, "last_exit": "", "last_exit_at": None},
        {
            "name": "worker",
            "pid": None,
            "running": False,
            "restarts": 2,
            "last_exit": "was killed by SIGKILL",
            "last_exit_at": timezone.now().isoformat(),
        },
    ]
    heartbeats.record(kind=HeartbeatKind.SUPERVISOR, name="serve:host:1", children=children)
    body = report(api_client, 503)
    assert [c["name"] for c in body["supervised"]] == ["web", "worker"]
    assert body["problems"] == ["The worker process is not running (was killed by SIGKILL); serve is restarting it."]
