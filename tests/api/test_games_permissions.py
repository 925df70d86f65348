"""Who may do what: every role against every game action.

Roles: an anonymous caller, a stranger (logged in, no seat), the seated player of
seat 1, the creator (seat 0) and a moderator (staff, no seat). Each cell runs on a
fresh table in the state the action is about."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.models import Game
from tests.api.games_helpers import INSTANT_SETUP, PLAY_SETUP, ok, play, refused

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "stranger", "seated", "creator", "staff")

# action -> (table, method, path, body, {role: 200/201 or (status, code)})
NOT_AUTHENTICATED = (401, "not_authenticated")
NOT_CREATOR = (403, "not_creator")
NOT_SEATED = (403, "not_seated")
EVERYONE_OK = dict.fromkeys(ROLES, 200)

ACTIONS: dict[str, tuple[str, str, str, dict[str, Any] | None, dict[str, Any]]] = {
    "detail": ("running", "get", "", None, EVERYONE_OK),
    "events": ("running", "get", "events", None, EVERYONE_OK),
    "moves_list": ("running", "get", "moves", None, EVERYONE_OK),
    "hands": ("running", "get", "hands", None, EVERYONE_OK),
    "join": (
        "lobby",
        "post",
        "join",
        None,
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": 200,
            "seated": (409, "already_seated"),
            "creator": (409, "already_seated"),
            "staff": 200,
        },
    ),
    "leave": (
        "lobby",
        "post",
        "leave",
        None,
        {"anonymous": NOT_AUTHENTICATED, "stranger": NOT_SEATED, "seated": 200, "creator": 200, "staff": NOT_SEATED},
    ),
    "bots_add": (
        "lobby",
        "post",
        "bots",
        {"strategy": "random"},
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": NOT_CREATOR,
            "seated": NOT_CREATOR,
            "creator": 200,
            "staff": NOT_CREATOR,
        },
    ),
    "start": (
        "full",
        "post",
        "start",
        None,
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": NOT_CREATOR,
            "seated": NOT_CREATOR,
            "creator": 200,
            "staff": NOT_CREATOR,
        },
    ),
    # Staff moderate in the admin, which checks the moderation permission and records why.
    "abort_lobby": (
        "lobby",
        "post",
        "abort",
        None,
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": NOT_CREATOR,
            "seated": NOT_CREATOR,
            "creator": 200,
            "staff": NOT_CREATOR,
        },
    ),
    "abort_running": (
        "running",
        "post",
        "abort",
        None,
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": NOT_CREATOR,
            "seated": NOT_CREATOR,
            "creator": (409, "game_already_started"),
            "staff": NOT_CREATOR,
        },
    ),
    "move": (
        "running",
        "post",
        "moves",
        play("6-1", "e1"),
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": NOT_SEATED,
            "seated": 201,
            "creator": (422, "not_your_turn"),
            "staff": NOT_SEATED,
        },
    ),
    "resign": (
        "running",
        "post",
        "resign",
        None,
        {"anonymous": NOT_AUTHENTICATED, "stranger": NOT_SEATED, "seated": 200, "creator": 200, "staff": NOT_SEATED},
    ),
    "return": (
        "running",
        "post",
        "return",
        None,
        {
            "anonymous": NOT_AUTHENTICATED,
            "stranger": NOT_SEATED,
            "seated": (409, "seat_not_away"),
            "creator": (409, "seat_not_away"),
            "staff": NOT_SEATED,
        },
    ),
    "record_running": ("rated", "get", "record", None, dict.fromkeys(ROLES, (409, "game_not_finished"))),
    "record_finished": ("finished", "get", "record", None, EVERYONE_OK),
}

CELLS = [(action, role) for action in ACTIONS for role in ROLES]


@pytest.fixture
def table_in(make_table):
    def build(kind: str):
        if kind == "lobby":  # seats 0 and 1 taken, seat 2 free
            return make_table(3, seated=2, start=False)
        if kind == "full":
            return make_table(start=False)
        if kind == "running":  # a practice position: seat 1 is to move
            return make_table(setup=PLAY_SETUP)
        if kind == "rated":
            return make_table()
        table = make_table(setup=INSTANT_SETUP)  # over at the start; made rated, so the end is what counts
        Game.objects.filter(pk=table.game_id).update(practice=False)
        return table

    return build


@pytest.mark.parametrize(("action", "role"), CELLS, ids=[f"{a}-{r}" for a, r in CELLS])
def test_permission_matrix(table_in, people, action, role):
    kind, method, path, body, expected = ACTIONS[action]
    table = table_in(kind)
    client = {
        "anonymous": lambda: APIClient(),
        "stranger": lambda: people.player()[1],
        "seated": lambda: table.clients[1],
        "creator": lambda: table.clients[0],
        "staff": lambda: people.staff()[1],
    }[role]()
    if path == "moves" and method == "post":
        body = {**(body or {}), "expected_seq": table.game().seq}
    before = table.game()
    response = (
        getattr(client, method)(table.action(path), body, format="json")
        if method == "post"
        else client.get(table.action(path))
    )

    outcome = expected[role]
    if isinstance(outcome, int):
        answer = ok(response, outcome)
        if action == "detail":  # only a seated caller gets a `you`
            assert (answer["you"] is not None) == (role in ("seated", "creator"))
        return
    refused(response, *outcome)
    after = table.game()  # a refusal changes nothing
    assert (after.seq, after.status, after.state) == (before.seq, before.status, before.state)
