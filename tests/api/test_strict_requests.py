"""Requests are taken as the contract types them, never coerced (``core.strict``,
``core.pagination``): a number where a string or a boolean is declared, a string
where a number is, junk paging, a NUL character, are each a ``validation_error``
that changes nothing; and what the contract allows is accepted."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from analysis.models import Analysis
from challenges.models import Challenge
from games.models import Game
from players.models import ApiToken, User
from tests.api.games_helpers import GAMES, ok, refused
from tests.ratings.helpers import finish

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "body",
    [
        {"rated": 0},
        {"rated": "true"},
        {"sit": 1},
        {"bot_delay_ms": "100"},
        {"bot_delay_ms": True},
        {"ruleset": {"set_max": "9"}},
        {"ruleset": {"players": "4"}},
        {"ruleset": {"spinner_arms": True}},
        {"bot_strategy": 1},
        {"setup": {"hands": [[94]]}},
        {"turn_time_limit": 30.5},
    ],
)
def test_a_value_of_another_type_than_declared_is_refused_not_coerced(people, body):
    _, client = people.player()
    problem = refused(client.post(GAMES, body, format="json"), 400, "validation_error")
    assert problem["errors"], problem
    assert not Game.objects.exists()


def test_the_declared_types_are_accepted(people):
    _, client = people.player()
    body = {"rated": False, "sit": True, "bot_delay_ms": 100.0, "ruleset": {"set_max": 9, "players": 4}}
    ok(client.post(GAMES, body, format="json"), 201)


def test_a_number_is_not_a_token_name(people):
    user, client = people.player()
    body = {"name": 0, "username": user.username, "password": "a long passphrase"}
    problem = refused(client.post("/api/v1/tokens/", body, format="json"), 400, "validation_error")
    assert set(problem["errors"]) == {"name"}


def test_nested_errors_name_the_field(people):
    _, client = people.player()
    problem = refused(client.post(GAMES, {"ruleset": {"players": "4"}}, format="json"), 400, "validation_error")
    assert set(problem["errors"]) == {"ruleset.players"}


@pytest.mark.parametrize("text", [0, True, ["hello"], "hi\x00there", " \t\x0b "])
def test_chat_text_must_be_text_without_nul_and_not_blank(make_table, text):
    table = make_table()
    response = table.clients[0].post(table.url + "chat/", {"channel": "players", "text": text}, format="json")
    refused(response, 400, "validation_error")


def test_an_abort_reason_is_a_string(make_table):
    table = make_table(2, seated=1, start=False)
    refused(table.creator.post(table.action("abort"), {"reason": 0}, format="json"), 400, "validation_error")
    assert Game.objects.get(pk=table.game_id).status == "open"


def test_a_string_is_measured_as_sent_not_after_trimming(people):
    user, client = people.player()
    body = {"name": "x" * 64 + " ", "username": user.username, "password": "a long passphrase"}
    refused(client.post("/api/v1/tokens/", body, format="json"), 400, "validation_error")
    assert not ApiToken.objects.filter(name__startswith="xxx").exists()


@pytest.mark.parametrize(
    "query", ["offset=null", "offset=-1", "offset=1.5", "limit=null", "limit=0", "limit=201", "offset=2147483648"]
)
@pytest.mark.parametrize("path", ["/api/v1/games/", "/api/v1/tokens/", "/api/v1/seeks/", "/api/v1/challenges/"])
def test_paging_the_contract_refuses_is_refused_not_replaced_by_the_default(people, path, query):
    _, client = people.player()
    problem = refused(client.get(f"{path}?{query}"), 400, "validation_error")
    assert set(problem["errors"]) == {query.split("=")[0]}


def test_paging_the_contract_allows_is_taken(people):
    _, client = people.player()
    page = ok(client.get("/api/v1/tokens/?limit=200&offset=0"))
    assert page["count"] == 1


@pytest.mark.parametrize("query", ["after=false", "after=null", "after=-1", "after=1.0"])
def test_a_move_log_after_that_is_no_number_is_refused(make_table, api_client, query):
    table = make_table()
    refused(api_client.get(f"{table.url}moves/?{query}"), 400, "validation_error")


@pytest.mark.parametrize("query", ["mine=1", "mine=yes", "mine=on"])
def test_a_query_boolean_is_true_or_false(people, query):
    _, client = people.player()
    refused(client.get(f"/api/v1/games/?{query}"), 400, "validation_error")
    ok(client.get("/api/v1/games/?mine=true"))


@pytest.mark.parametrize("password", ["12345678901", "short1a", "pass\x00word-long"])
def test_the_password_rule_the_contract_states_is_the_servers(api_client, password):
    response = api_client.post("/api/v1/players/", {"username": "newcomer", "password": password}, format="json")
    problem = refused(response, 400, "validation_error")
    assert set(problem["errors"]) == {"password"}
    assert not User.objects.filter(username="newcomer").exists()


def test_an_invitee_twice_is_against_the_contract(people):
    _, client = people.player()
    bob, _ = people.player()
    body = {"invitees": [bob.username, bob.username]}
    refused(client.post("/api/v1/challenges/", body, format="json"), 400, "validation_error")
    assert not Challenge.objects.exists()


def test_an_empty_last_event_id_is_no_seq(make_table, api_client):
    table = make_table()
    refused(api_client.get(f"{table.url}stream/", HTTP_LAST_EVENT_ID=""), 400, "validation_error")
    refused(api_client.get(f"{table.url}stream/?last_event_id="), 400, "validation_error")


def test_a_bad_last_event_id_query_is_refused_beside_a_good_header(make_table, api_client):
    table = make_table()
    response = api_client.get(f"{table.url}stream/?last_event_id=%C3%AE", HTTP_LAST_EVENT_ID="1")
    problem = refused(response, 400, "validation_error")
    assert set(problem["errors"]) == {"last_event_id"}


def _query_parameters() -> list[tuple[str, str]]:
    """Every (GET path, query parameter) of the contract."""
    contract = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
    return [
        (path, parameter["name"])
        for path, item in contract["paths"].items()
        for parameter in item.get("get", {}).get("parameters", [])
        if parameter["in"] == "query"
    ]


QUERY_PARAMETERS = _query_parameters()


def test_the_contract_has_query_parameters_to_try():
    assert ("/api/v1/games/", "player") in QUERY_PARAMETERS and len(QUERY_PARAMETERS) >= 20


@pytest.mark.parametrize(("path", "name"), QUERY_PARAMETERS, ids=[f"{p} {n}" for p, n in QUERY_PARAMETERS])
def test_an_empty_query_value_is_refused_not_taken_for_absent(make_table, path, name):
    """``?name=`` is a value the contract refuses for every query parameter it has (no
    string of it may be empty, and no number, boolean or choice is empty text): the
    server refuses it too, on every operation, rather than take it for no parameter."""
    table = make_table()
    client = table.clients[0]
    url = path.replace("{game_id}", str(table.game_id))
    problem = refused(client.get(f"{url}?{name}="), 400, "validation_error")
    assert name in problem["errors"] or name.replace("_", "-").lower() in str(problem["errors"]).lower(), problem


@pytest.mark.parametrize("body", [{"seet": 1}, {"seat": 1, "priority": "high"}, {"Seat": 0}])
def test_the_analysis_request_refuses_a_field_it_does_not_know(make_table, body):
    """A misspelt seat would otherwise ask for your own seat (and spend your budget)."""
    table = make_table(2, rounds=1)
    finish(table, random.Random(2))
    url = f"/api/v1/games/{table.game_id}/analysis/"
    problem = refused(table.clients[0].post(url, body, format="json"), 400, "validation_error")
    assert set(problem["errors"]) == set(body) - {"seat"}
    assert problem["errors"][next(iter(set(body) - {"seat"}))] == ["Unknown field."]
    assert not Analysis.objects.exists()
    ok(table.clients[0].post(url, {"seat": 1}, format="json"), 202)


def test_the_contract_says_the_analysis_request_takes_no_other_field():
    document = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
    assert document["components"]["schemas"]["AnalysisSeat"]["additionalProperties"] is False
