"""A database that cannot be reached (a failover in progress, a cut network): every
request gets 503 ``database_unavailable`` with Retry-After, never a 500, and
nothing changes; the same request succeeds once the database is back."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.db import IntegrityError, InternalError, OperationalError, connection
from django.test import RequestFactory

from core.problems import DATABASE_RETRY_AFTER_SECONDS, database_unavailable
from core.processes import free_port
from core.views import server_error
from games.models import Game
from tests.api.games_helpers import game_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@contextmanager
def database_refuses_connections() -> Iterator[None]:
    """Point this process's connection at a port nobody listens on (what a client
    sees while no database host accepts it), then back."""
    saved = connection.settings_dict["HOST"], connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["HOST"], connection.settings_dict["PORT"] = "127.0.0.1", str(free_port())
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["HOST"], connection.settings_dict["PORT"] = saved


def assert_database_unavailable(response) -> None:
    assert response.status_code == 503, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)
    body = json.loads(response.content)
    assert body["code"] == "database_unavailable"
    assert body["retry_after"] == DATABASE_RETRY_AFTER_SECONDS


def test_a_move_while_the_database_refuses_connections_is_a_503_and_is_done_once_it_is_back(make_table):
    table = make_table(players=2)
    client = table.clients[0]
    view = client.get(game_url(table.game_id)).json()
    if not view["you"]["your_turn"]:
        client = table.clients[1]
        view = client.get(game_url(table.game_id)).json()
    body = {**view["you"]["legal_moves"][0], "expected_seq": view["game"]["seq"]}
    key = uuid.uuid4().hex
    with database_refuses_connections():
        assert_database_unavailable(
            client.post(game_url(table.game_id, "moves"), body, format="json", HTTP_IDEMPOTENCY_KEY=key)
        )
        assert_database_unavailable(client.get(game_url(table.game_id)))
    assert Game.objects.get(pk=table.game_id).seq == view["game"]["seq"]  # nothing was written
    response = client.post(game_url(table.game_id, "moves"), body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 201, response.content
    again = client.post(game_url(table.game_id, "moves"), body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"  # the retry is not done twice


def test_health_says_down_with_no_database_node_while_it_refuses(client):
    with database_refuses_connections():
        response = client.get("/api/v1/health/")
    assert response.status_code == 503
    database = response.json()["checks"]["database"]
    assert database["ok"] is False and database["node"] is None
    response = client.get("/api/v1/health/")
    node = response.json()["checks"]["database"]["node"]
    assert node == f"{connection.settings_dict['HOST'] or 'localhost'}:{connection.settings_dict['PORT'] or 5432}"


def test_an_error_outside_the_views_is_a_503_too():
    """Django's 500 handler (errors in middleware) tells a database outage apart."""
    request = RequestFactory().get("/api/v1/games/")
    try:
        raise OperationalError("connection refused")
    except OperationalError:
        response = server_error(request)
    assert_database_unavailable(response)
    try:
        raise ValueError("a bug")
    except ValueError:
        assert server_error(request).status_code == 500


def test_which_database_errors_mean_unavailable():
    read_only = InternalError("cannot execute UPDATE in a read-only transaction")
    read_only.__cause__ = psycopg.errors.ReadOnlySqlTransaction()
    assert database_unavailable(read_only)  # a connection left on a demoted primary
    assert database_unavailable(OperationalError("server closed the connection unexpectedly"))
    assert not database_unavailable(InternalError("something else"))
    assert not database_unavailable(IntegrityError("duplicate key"))
