"""The lobby: listing and opening tables, the game as each caller sees it, seats
(join, leave, bots), starting and aborting."""

from __future__ import annotations

import random

import pytest
from django.conf import settings

from games import services
from games.engine import Match
from games.models import Event, Game
from tests.api.games_helpers import (
    GAMES,
    INSTANT_SETUP,
    PLAY_SETUP,
    QUICK_RULESET,
    create_game,
    game_url,
    ok,
    play_to_end,
    refused,
    view,
)

pytestmark = pytest.mark.django_db


def event_types(game_id: int) -> list[str]:
    return list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("type", flat=True))


# -- list -------------------------------------------------------------------------


@pytest.fixture
def lobby_mix(make_table, people):
    """One game in each status, plus a game of someone else: (tables by status, outsider table)."""
    tables = {
        "open": make_table(start=False),
        "running": make_table(),
        "finished": make_table(setup=INSTANT_SETUP),
        "aborted": make_table(start=False),
    }
    ok(tables["aborted"].creator.post(tables["aborted"].action("abort")))
    return tables


@pytest.mark.parametrize("status", ["open", "running", "finished", "aborted"])
def test_list_filters_by_status(api_client, lobby_mix, status):
    body = ok(api_client.get(GAMES, {"status": status}))
    assert [g["id"] for g in body["results"]] == [lobby_mix[status].game_id]
    assert body["results"][0]["status"] == status


def test_list_is_public_newest_first_and_paginated(api_client, lobby_mix):
    body = ok(api_client.get(GAMES))
    assert set(body) == {"count", "next", "previous", "results"}
    ids = [g["id"] for g in body["results"]]
    assert body["count"] == 4 and ids == sorted(ids, reverse=True)
    page = ok(api_client.get(GAMES, {"limit": 3}))
    assert page["count"] == 4 and len(page["results"]) == 3 and page["previous"] is None
    assert "offset=3" in page["next"]
    rest = ok(api_client.get(page["next"]))
    assert [g["id"] for g in rest["results"]] == ids[3:] and rest["next"] is None
    summary = body["results"][0]
    assert "state" not in summary and "seed" not in summary and "you" not in summary


def test_list_mine_has_the_games_i_created_or_sit_in(people, make_table):
    mine = make_table(start=False)  # alice created it
    theirs = make_table(3, seated=2, start=False)
    ok(mine.clients[0].post(theirs.action("join")))  # ... and sits in this one
    other = make_table(start=False)
    body = ok(mine.clients[0].get(GAMES, {"mine": "true"}))
    assert sorted(g["id"] for g in body["results"]) == sorted([mine.game_id, theirs.game_id])
    assert other.game_id not in [g["id"] for g in body["results"]]
    body = ok(mine.clients[0].get(GAMES, {"mine": "true", "status": "running"}))
    assert body["results"] == []


def test_list_mine_needs_authentication(api_client):
    refused(api_client.get(GAMES, {"mine": "true"}), 401, "not_authenticated")


def test_list_refuses_an_unknown_status(api_client):
    body = refused(api_client.get(GAMES, {"status": "paused"}), 400, "validation_error")
    assert set(body["errors"]) == {"status"}


# -- create -----------------------------------------------------------------------


def test_create_with_defaults(people):
    alice, client = people.player()
    body = ok(client.post(GAMES, {}, format="json"), 201)
    game = body["game"]
    assert game["ruleset"] == {
        "set_max": 9,
        "players": 4,
        "hand_size": None,
        "spinner_arms": 4,
        "rounds": None,
        "double_blank_points": 50,
    }
    assert game["status"] == "open" and game["creator"] == alice.username
    assert game["practice"] is False and body["seed"] is None and body["state"] is None
    assert game["turn_time_limit"] == settings.DEFAULT_TURN_SECONDS == 60 and game["bot_delay_ms"] == 0
    assert [s["number"] for s in game["seats"]] == [0, 1, 2, 3]
    assert game["seats"][0]["player"]["username"] == alice.username
    assert all(s["player"] is None and s["bot_strategy"] == "" for s in game["seats"][1:])
    assert body["you"] == {
        "seat": 0,
        "resigned": False,
        "hand": None,
        "drawn_tile": None,
        "legal_moves": [],
        "your_turn": False,
        "turn_deadline": None,
    }
    assert game["seq"] == 2 and event_types(game["id"]) == ["game_created", "seat_taken"]
    assert Game.objects.get(pk=game["id"]).seed is not None  # drawn, but not shown


def test_a_table_asks_for_no_clock_with_null(people):
    """The default clock is the server's; a friends' game asks for none explicitly."""
    _, client = people.player()
    game = ok(client.post(GAMES, {"turn_time_limit": None}, format="json"), 201)["game"]
    assert game["turn_time_limit"] is None
    game = ok(client.post(GAMES, {"turn_time_limit": 300}, format="json"), 201)["game"]
    assert game["turn_time_limit"] == 300


def test_create_without_sitting(people):
    _, client = people.player()
    body = create_game(client, sit=False)
    assert body["you"] is None and all(s["player"] is None for s in body["game"]["seats"])
    assert event_types(body["game"]["id"]) == ["game_created"]


def test_create_needs_authentication(api_client):
    refused(api_client.post(GAMES, {}, format="json"), 401, "not_authenticated")


@pytest.mark.parametrize(
    "ruleset",
    [
        {"set_max": 9, "players": 9},  # a double-9 set takes at most 8
        {"set_max": 6, "players": 4, "hand_size": 8},  # 32 tiles of 28
        {"set_max": 6, "players": 2, "rounds": 8},  # a double-6 set has 7 doubles
    ],
    ids=["too-many-players", "hands-too-big", "too-many-rounds"],
)
def test_create_refuses_an_invalid_ruleset(people, ruleset):
    _, client = people.player()
    refused(client.post(GAMES, {"ruleset": ruleset}, format="json"), 422, "invalid_ruleset")
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    "setup",
    [
        {"hands": [["6-6"]]},  # one hand for two players
        {"hands": [["6-6", "5-5"], ["5-5"]]},  # a tile twice
        {"hands": [["6-6"], ["7-1"]]},  # not in a double-6 set
        {"hands": [["6-6"], []]},  # an empty hand
        {"hands": [["6-6"], ["5-5"]], "boneyard": ["4-4"]},  # the set is not complete
    ],
    ids=["hand-count", "duplicate", "not-in-set", "empty-hand", "incomplete"],
)
def test_create_refuses_an_invalid_setup(people, setup):
    _, client = people.player()
    response = client.post(GAMES, {"ruleset": QUICK_RULESET, "setup": setup}, format="json")
    refused(response, 422, "invalid_setup")
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"ruleset": {"players": "many"}}, {"ruleset.players"}),
        ({"ruleset": {"set_max": 7}}, {"ruleset.set_max"}),
        ({"turn_time_limit": 1}, {"turn_time_limit"}),
        ({"seed": -1}, {"seed"}),
        ({"bot_delay_ms": "soon"}, {"bot_delay_ms"}),
        ({"setup": {"hands": "6-6"}}, {"setup.hands"}),
        ({"ruleset": "double-six"}, {"ruleset"}),
    ],
    ids=["players-type", "set-size", "time-limit", "seed", "delay", "setup-shape", "ruleset-shape"],
)
def test_create_refuses_badly_typed_input(people, body, fields):
    _, client = people.player()
    problem = refused(client.post(GAMES, body, format="json"), 400, "validation_error")
    assert set(problem["errors"]) == fields
    assert not Game.objects.exists()


def test_a_fixed_seed_makes_a_practice_game_whose_seed_only_its_creator_sees(people, api_client):
    _, client = people.player()
    body = create_game(client, seed=1234)
    assert body["game"]["practice"] is True and body["seed"] == 1234
    assert ok(client.get(game_url(body["game"]["id"])))["seed"] == 1234
    _, stranger = people.player()
    for someone in (api_client, stranger):  # with the seed, every hand and the boneyard's order follow
        assert ok(someone.get(game_url(body["game"]["id"])))["seed"] is None


def test_a_setup_makes_a_practice_game_with_that_position(make_table):
    table = make_table(setup=PLAY_SETUP, api=True)
    body = view(table.clients[1], table.game_id)
    assert body["game"]["practice"] is True and body["seed"] is None  # not the creator
    assert view(table.clients[0], table.game_id)["seed"] == table.game().seed
    assert body["you"]["hand"] == PLAY_SETUP["hands"][1]
    assert view(table.clients[0], table.game_id)["you"]["hand"] == PLAY_SETUP["hands"][0][1:]  # 6-6 is the spinner
    assert body["state"]["layout"]["tile"] == "6-6" and body["state"]["round"]["starter"] == 0


def test_a_random_game_shows_its_seed_to_nobody_before_the_end(make_table, api_client):
    table = make_table()
    assert table.game().practice is False
    for client in (*table.clients, api_client):
        assert view(client, table.game_id)["seed"] is None


# -- detail -----------------------------------------------------------------------


def test_detail_for_a_spectator_has_no_hands(make_table, api_client, people):
    table = make_table(setup=PLAY_SETUP)
    _, stranger = people.player()
    for client in (api_client, stranger):
        body = view(client, table.game_id)
        assert body["you"] is None
        state = body["state"]
        assert state["status"] == "playing" and state["turn"] == 1
        assert state["hand_sizes"] == [5, 5] and state["boneyard_size"] == 28 - 11
        assert "hands" not in state and "boneyard" not in state and "legal_moves" not in state
        assert [e["id"] for e in state["open_ends"]] == ["e1", "e2", "e3", "e4"]


def test_detail_for_a_seat_has_its_hand_and_legal_moves(make_table):
    table = make_table(setup=PLAY_SETUP)
    mover = view(table.clients[1], table.game_id)["you"]
    engine = Match.from_dict(table.game().state)
    assert mover["seat"] == 1 and mover["your_turn"] is True and mover["resigned"] is False
    assert mover["hand"] == ["6-1", "6-2", "1-1", "2-0", "3-3"]
    assert mover["legal_moves"] == [m.to_dict() for m in engine.legal_moves(1)]
    assert {(m["tile"], m["end"]) for m in mover["legal_moves"]} == {
        (t, e) for t in ("6-1", "6-2") for e in ("e1", "e2", "e3", "e4")
    }
    assert mover["turn_deadline"] is None  # no turn clock in this game
    waiting = view(table.clients[0], table.game_id)["you"]
    assert waiting["seat"] == 0 and waiting["your_turn"] is False and waiting["legal_moves"] == []


def test_detail_shows_the_turn_deadline_to_the_seat_to_move(make_table):
    table = make_table(setup=PLAY_SETUP, turn_time_limit=60)
    game = table.game()
    mover = view(table.clients[1], table.game_id)
    assert mover["game"]["turn_time_limit"] == 60
    assert mover["you"]["turn_deadline"] is not None
    assert mover["you"]["turn_deadline"] == mover["game"]["turn_deadline"]
    assert abs((game.turn_deadline - game.started_at).total_seconds() - 60) < 5
    assert view(table.clients[0], table.game_id)["you"]["turn_deadline"] is None


def test_detail_of_an_unknown_game_is_not_found(api_client):
    refused(api_client.get(game_url(999999)), 404, "not_found")


# -- join and leave -----------------------------------------------------------------


def test_join_takes_the_first_free_seat(make_table, people):
    table = make_table(3, seated=1, start=False)
    bob, client = people.player()
    body = ok(client.post(table.action("join")))
    assert body["you"]["seat"] == 1
    assert body["game"]["seats"][1]["player"]["username"] == bob.username
    assert event_types(table.game_id)[-1] == "seat_taken"
    assert Event.objects.filter(game_id=table.game_id).latest("seq").data == {
        "type": "seat_taken",
        "seat": 1,
        "player": bob.username,
        "is_bot": False,
    }


def test_join_a_chosen_seat(make_table, people):
    table = make_table(3, seated=1, start=False)
    _, client = people.player()
    assert ok(client.post(table.action("join"), {"seat": 2}, format="json"))["you"]["seat"] == 2


def test_join_refusals(make_table, people):
    table = make_table(3, seated=2, start=False)
    _, carol = people.player()
    _, dave = people.player()
    join = table.action("join")
    refused(carol.post(join, {"seat": 1}, format="json"), 409, "seat_taken")
    refused(carol.post(join, {"seat": 3}, format="json"), 422, "no_such_seat")
    refused(carol.post(join, {"seat": -1}, format="json"), 400, "validation_error")
    refused(carol.post(join, {"seat": 14}, format="json"), 400, "validation_error")  # no table has 15 seats
    refused(table.clients[1].post(join), 409, "already_seated")
    ok(carol.post(join))
    refused(dave.post(join), 409, "game_full")
    ok(table.creator.post(table.action("start")))
    refused(dave.post(join), 409, "game_already_started")
    refused(dave.post(game_url(999999, "join")), 404, "not_found")


def test_leave_frees_the_seat(make_table):
    table = make_table(start=False)
    body = ok(table.clients[1].post(table.action("leave")))
    assert body["you"] is None and body["game"]["seats"][1]["player"] is None
    assert event_types(table.game_id)[-1] == "seat_left"
    refused(table.clients[1].post(table.action("leave")), 403, "not_seated")
    ok(table.clients[1].post(table.action("join")))


def test_leave_after_the_start_is_refused(make_table):
    table = make_table()
    refused(table.clients[1].post(table.action("leave")), 409, "game_already_started")


# -- server bots in seats -------------------------------------------------------------


def test_the_creator_adds_a_bot(make_table):
    table = make_table(3, seated=1, start=False)
    body = ok(table.creator.post(table.action("bots"), {"strategy": "random", "seat": 2}, format="json"))
    seat = body["game"]["seats"][2]
    assert seat["bot_strategy"] == "random" and seat["is_bot"] is True and seat["player"] is None
    assert Event.objects.filter(game_id=table.game_id).latest("seq").data == {
        "type": "bot_added",
        "seat": 2,
        "strategy": "random",
    }
    body = ok(table.creator.post(table.action("bots"), {"strategy": "greedy"}, format="json"))
    assert body["game"]["seats"][1]["bot_strategy"] == "greedy"  # the first free seat
    refused(table.creator.post(table.action("bots"), {"strategy": "greedy"}, format="json"), 409, "game_full")


def test_bot_refusals(make_table):
    table = make_table(3, seated=2, start=False)
    bots = table.action("bots")
    refused(table.clients[1].post(bots, {"strategy": "random"}, format="json"), 403, "not_creator")
    body = refused(table.creator.post(bots, {"strategy": "clairvoyant"}, format="json"), 400, "validation_error")
    assert set(body["errors"]) == {"strategy"}
    refused(table.creator.post(bots, {"strategy": "random", "seat": 1}, format="json"), 409, "seat_taken")
    refused(table.creator.post(bots, {"strategy": "random", "seat": 7}, format="json"), 422, "no_such_seat")
    ok(table.creator.post(bots, {"strategy": "random"}, format="json"))
    ok(table.creator.post(table.action("start")))
    refused(table.creator.post(bots, {"strategy": "random"}, format="json"), 409, "game_already_started")


# -- start ------------------------------------------------------------------------------


def test_start_deals_and_shows_the_first_round(make_table):
    table = make_table(start=False)
    body = ok(table.creator.post(table.action("start")))
    game = body["game"]
    assert game["status"] == "running" and game["started_at"] is not None
    assert game["turn_seat"] == body["state"]["turn"] is not None
    assert body["state"]["round"] == {**body["state"]["round"], "number": 1, "of": 1, "starting_double": "6-6"}
    assert len(body["you"]["hand"]) == body["state"]["hand_sizes"][0]
    types = event_types(table.game_id)
    assert types[:4] == ["game_created", "seat_taken", "seat_taken", "game_started"]
    assert types[4] == "round_started" and types[-1] == "spinner_placed"
    assert game["seq"] == len(types)


def test_start_refusals(make_table):
    table = make_table(3, seated=2, start=False)
    refused(table.clients[1].post(table.action("start")), 403, "not_creator")
    refused(table.creator.post(table.action("start")), 409, "seats_not_filled")
    ok(table.creator.post(table.action("bots"), {"strategy": "random"}, format="json"))
    ok(table.creator.post(table.action("start")))
    refused(table.creator.post(table.action("start")), 409, "game_already_started")


def test_start_a_game_that_ends_at_once(make_table):
    table = make_table(setup=INSTANT_SETUP)
    body = view(table.clients[1], table.game_id)
    assert body["game"]["status"] == "finished" and body["game"]["turn_seat"] is None
    assert body["game"]["result"] == {"totals": [0, 15], "winners": [0], "tie_break": "lowest_total"}
    assert body["state"]["result"]["seed"] == body["seed"] == table.game().seed
    refused(table.creator.post(table.action("start")), 409, "game_finished")


# -- abort ------------------------------------------------------------------------------


def test_the_creator_aborts_a_table_in_the_lobby(make_table, api_client):
    table = make_table(start=False)
    body = ok(table.creator.post(table.action("abort"), {"reason": "nobody came"}, format="json"))
    assert body["game"]["status"] == "aborted" and body["game"]["abort_reason"] == "nobody came"
    assert body["game"]["finished_at"] is not None
    assert Event.objects.filter(game_id=table.game_id).latest("seq").data == {
        "type": "game_aborted",
        "by": table.users[0].username,
        "moderator": False,
        "reason": "nobody came",
    }
    assert ok(api_client.get(table.url))["seed"] == table.game().seed  # over: the seed is public
    refused(table.clients[1].post(table.action("join")), 409, "game_aborted")
    refused(table.creator.post(table.action("abort")), 409, "game_aborted")


def test_nobody_aborts_a_running_game_over_the_api_not_even_staff(make_table, people):
    """Aborting someone else's game is moderation: the admin does it, with the
    moderation permission and an audit entry (moderation.services)."""
    from moderation.models import AuditEntry

    table = make_table()
    refused(table.creator.post(table.action("abort")), 409, "game_already_started")
    _moderator, staff = people.staff()
    refused(staff.post(table.action("abort"), {"reason": "abusive chat"}, format="json"), 403, "not_creator")
    assert table.game().status == "running" and not AuditEntry.objects.exists()


def test_a_moderators_abort_is_told_to_the_players(make_table, people):
    table = make_table()
    moderator, _ = people.staff()
    services.game_abort_as_moderator(game_id=table.game_id, by=moderator, reason="abusive chat")
    body = ok(table.clients[1].get(table.url))
    assert body["game"]["status"] == "aborted" and body["game"]["turn_seat"] is None
    assert body["game"]["abort_reason"] == "abusive chat"
    assert body["you"]["legal_moves"] == [] and body["you"]["your_turn"] is False
    assert Event.objects.filter(game_id=table.game_id).latest("seq").data == {
        "type": "game_aborted",
        "by": "",  # players are not told which moderator: the audit keeps the name
        "moderator": True,
        "reason": "abusive chat",
    }


def test_abort_refusals(make_table, people):
    table = make_table(start=False)
    refused(table.clients[1].post(table.action("abort")), 403, "not_creator")
    problem = refused(
        table.creator.post(table.action("abort"), {"reason": "x" * 501}, format="json"), 400, "validation_error"
    )
    assert set(problem["errors"]) == {"reason"}
    finished = make_table(setup=INSTANT_SETUP)
    refused(finished.creator.post(finished.action("abort")), 409, "game_finished")
    refused(table.creator.post(game_url(999999, "abort")), 404, "not_found")


# -- rated games ------------------------------------------------------------------


def test_a_rated_table_says_so_and_a_practice_game_cannot_be_rated(people):
    _, client = people.player()
    body = create_game(client, rated=True)
    assert body["game"]["rated"] is True
    assert Event.objects.get(game_id=body["game"]["id"], seq=1).data["rated"] is True
    assert create_game(client)["game"]["rated"] is False
    count = Game.objects.count()
    for practice in ({"seed": 7}, {"setup": PLAY_SETUP}):
        problem = refused(
            client.post(GAMES, {"rated": True, "ruleset": {"set_max": 6, "players": 2}, **practice}, format="json"),
            400,
            "validation_error",
        )
        assert set(problem["errors"]) == {"rated"}
    assert Game.objects.count() == count


def test_the_final_move_tells_match_finished_once_inside_its_transaction(make_table):
    from django.db import connection

    from games.signals import match_finished

    heard = []

    def receiver(sender, game, seats, **kwargs):
        heard.append((game.pk, game.status, [s.number for s in seats], connection.in_atomic_block))

    match_finished.connect(receiver)
    try:
        table = make_table(api=True, rated=True)
        play_to_end(table, random.Random(3))
        view(table.clients[0], table.game_id)  # reading afterwards tells nothing more
    finally:
        match_finished.disconnect(receiver)
    assert heard == [(table.game_id, "finished", [0, 1], True)]
