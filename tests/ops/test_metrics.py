"""GET /metrics in one process: who may scrape it, what a scrape shows, and the
request id every answer carries. (The counters of a real server and worker after
a bot match: tests/integration/test_observability.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from core import metrics
from games import services
from games.models import Game

pytestmark = pytest.mark.django_db

METRICS = "/metrics"


def samples(body: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """(sample name, sorted labels) -> value, of an exposition page."""
    found = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(page: dict, name: str, **labels: str) -> float:
    return page.get((name, tuple(sorted(labels.items()))), 0.0)


def test_the_loopback_may_scrape_and_the_page_is_prometheus_text(api_client, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.BROKER_DIR = tmp_path
    (tmp_path / f"0001_a.{settings.CELERY_TASK_DEFAULT_QUEUE}.msg").write_text("{}")
    response = api_client.get(METRICS, REMOTE_ADDR="127.0.0.1")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    page = samples(response.content)
    assert value(page, "chickenfoot_health_check_ok", check="database") == 1.0
    assert value(page, "chickenfoot_celery_queue_length", queue=settings.CELERY_TASK_DEFAULT_QUEUE) == 1.0
    assert ("chickenfoot_seeks_waiting", ()) in page


def test_another_address_is_refused_unless_allowed_or_bearing_the_token(api_client, settings):
    assert api_client.get(METRICS, REMOTE_ADDR="10.1.2.3").status_code == 403
    settings.METRICS_ALLOW = ["10.1.0.0/16"]
    assert api_client.get(METRICS, REMOTE_ADDR="10.1.2.3").status_code == 200
    assert api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").status_code == 403
    settings.METRICS_TOKEN = "scrape-secret-1"
    assert api_client.get(METRICS, REMOTE_ADDR="192.0.2.7", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    allowed = api_client.get(METRICS, REMOTE_ADDR="192.0.2.7", HTTP_AUTHORIZATION="Bearer scrape-secret-1")
    assert allowed.status_code == 200


def test_metrics_is_not_an_api_operation(api_client):
    """Off the public contract: not in the schema, and a POST is refused."""
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content.decode()
    assert '"/metrics"' not in schema and "\n  /metrics" not in schema
    assert api_client.post(METRICS, REMOTE_ADDR="127.0.0.1").status_code == 405


def test_requests_are_counted_by_route_template_method_and_status(api_client):
    # A route no page polls (a finished hand's record): servers other tests left
    # running write to the same metrics only what their pages ask.
    route = "api/v1/games/<int:game_id>/hands/<int:number>/"
    before = samples(api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content)
    for _ in range(3):
        assert api_client.get("/api/v1/games/987654/hands/1/").status_code == 404
    after = samples(api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content)
    labels = {"route": route, "method": "GET", "status": "404"}
    assert (
        value(after, "chickenfoot_http_requests_total", **labels)
        - value(before, "chickenfoot_http_requests_total", **labels)
        == 3
    )
    count = "chickenfoot_http_request_duration_seconds_count"
    assert value(after, count, route=route, method="GET") - value(before, count, route=route, method="GET") == 3
    # No id in any label: the game's number is not on the page.
    assert "987654" not in api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content.decode()


def test_a_refused_move_counts_its_code(api_client, people, make_table):
    table = make_table(players=2)
    _, outsider = people.player("outsider")
    before = samples(api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content)
    response = outsider.post(f"{table.url}moves/", {"type": "draw", "expected_seq": 0}, format="json")
    assert response.status_code >= 400, response.content
    code = response.json()["code"]
    assert code == "not_seated"
    after = samples(api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content)
    assert (
        value(after, "chickenfoot_moves_refused_total", code=code)
        - value(before, "chickenfoot_moves_refused_total", code=code)
        == 1
    )


def test_every_answer_carries_a_request_id_its_own_or_the_clients(api_client):
    made = api_client.get("/api/v1/health/")["X-Request-ID"]
    assert len(made) == 32
    assert api_client.get("/api/v1/health/", HTTP_X_REQUEST_ID="lb-7f3a.42")["X-Request-ID"] == "lb-7f3a.42"
    # Not a sensible id (spaces, too long): replaced, never echoed.
    odd = api_client.get("/api/v1/health/", HTTP_X_REQUEST_ID="<script> x")["X-Request-ID"]
    assert odd != "<script> x" and len(odd) == 32


def test_metrics_off_is_a_no_op_and_the_page_says_so(api_client, settings):
    settings.METRICS_ENABLED = False
    assert api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").status_code == 404
    metrics.NULL.labels("x").inc()  # does nothing, raises nothing


def test_a_turn_clock_that_fires_is_counted_with_its_lateness(
    api_client, make_table, django_capture_on_commit_callbacks
):
    table = make_table(players=2)
    game = Game.objects.get(pk=table.game_id)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=3))
    before = samples(api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content)
    with django_capture_on_commit_callbacks(execute=True):  # the move is counted once committed
        assert services.turn_timeout(game_id=game.pk, expected_seq=game.seq) is not None
    after = samples(api_client.get(METRICS, REMOTE_ADDR="127.0.0.1").content)
    assert (
        value(after, "chickenfoot_turn_clocks_fired_total") - value(before, "chickenfoot_turn_clocks_fired_total") == 1
    )
    count = "chickenfoot_turn_clock_lateness_seconds_count"
    assert value(after, count) - value(before, count) == 1
    late = "chickenfoot_turn_clock_lateness_seconds_sum"
    assert value(after, late) - value(before, late) >= 3
    accepted = value(after, "chickenfoot_moves_accepted_total", source="timeout") - value(
        before, "chickenfoot_moves_accepted_total", source="timeout"
    )
    assert accepted == 1
