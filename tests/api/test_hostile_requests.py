"""What a broken or hostile client sends gets a problem document with a stable
code and the right status - never a 500, never an HTML page - and changes
nothing. (tests/integration/test_hostile_requests.py sends the same to the
embedded and the production servers over real sockets.)"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.models import Game
from players.models import User
from tests.api.games_helpers import GAMES
from tests.api.problems import assert_problem

pytestmark = pytest.mark.django_db


def test_json_nested_too_deeply_is_a_parse_error(people):
    _, client = people.player()
    body = "[" * 20000 + "]" * 20000  # under the size limit, over what json can nest
    problem = assert_problem(client.post(GAMES, body, content_type="application/json"), 400, "parse_error")
    assert "nested too deeply" in problem["detail"]
    assert not Game.objects.exists()


def test_a_body_over_the_limit_is_413_and_read_no_further(people, settings):
    _, client = people.player()
    body = '{"ruleset": {}, "padding": "' + "x" * settings.API_MAX_BODY_BYTES + '"}'
    problem = assert_problem(client.post(GAMES, body, content_type="application/json"), 413, "payload_too_large")
    assert str(settings.API_MAX_BODY_BYTES) in problem["detail"]
    assert not Game.objects.exists()


def test_a_content_length_that_is_no_number_is_a_bad_request(api_client):
    assert_problem(
        api_client.post("/api/v1/players/", b"{}", content_type="application/json", CONTENT_LENGTH="lots"),
        400,
        "bad_request",
    )


@pytest.mark.parametrize("path", ["/api/v1/players/%00/", "/api/v1/games/1%0A/", "/api/v1/players/a%7Fb/"])
def test_control_characters_in_a_path_are_not_found(api_client, path):
    assert_problem(api_client.get(path), 404, "not_found")


@pytest.mark.parametrize("last_event_id", ["\u00b2", "\u0661\u0662", "99999999999999999999", "-1", "1.5", "0x10"])
def test_a_last_event_id_that_is_no_seq_is_a_validation_error(make_table, api_client, last_event_id):
    table = make_table()
    problem = assert_problem(
        api_client.get(f"{GAMES}{table.game_id}/stream/", HTTP_LAST_EVENT_ID=last_event_id), 400, "validation_error"
    )
    assert "Last-Event-ID" in problem["errors"]


@pytest.mark.parametrize("path", [GAMES, "/api/v1/tokens/", "/api/v1/me/", "/api/v1/players/"])
def test_options_answers(people, path):
    _, client = people.player()
    response = client.options(path)
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    assert set(response.json()) >= {"name", "renders", "parses"}


def test_with_debug_on_an_unknown_url_is_still_a_problem(settings, api_client):
    settings.DEBUG = True  # Django would answer with its HTML debug page
    assert_problem(api_client.get("/api/v1/games/not-a-number/"), 404, "not_found")
    assert_problem(api_client.get("/api/v1/nothing/here/"), 404, "not_found")


def test_a_host_the_server_does_not_answer_for_is_a_bad_request():
    assert_problem(APIClient(HTTP_HOST="evil.example").get("/api/v1/bots/"), 400, "bad_request")


def test_a_wrong_method_is_405_with_allow(api_client):
    response = api_client.delete("/api/v1/bots/")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


def test_staff_with_the_moderation_permission_still_moderate_only_in_the_admin(make_table, people):
    """The API has no moderation: an abort of someone else's game is refused and
    writes nothing, even for a moderator (the admin does it, with an audit entry)."""
    from django.contrib.auth.models import Permission

    from moderation.models import AuditEntry

    table = make_table()
    moderator, client = people.staff()
    moderator.user_permissions.add(Permission.objects.get(codename="moderate"))
    assert User.objects.get(pk=moderator.pk).has_perm("moderation.moderate")
    assert_problem(client.post(table.action("abort"), {"reason": "x"}, format="json"), 403, "not_creator")
    assert table.game().status == "running" and not AuditEntry.objects.exists()
