"""``GET /games/?player=<name>``: anyone may list a player's finished games (a
profile's recent games); open, running, aborted and practice games are left out."""

from __future__ import annotations

import random

import pytest

from games.models import Game
from tests.api.games_helpers import GAMES, INSTANT_SETUP, ok, play_to_end, refused

pytestmark = pytest.mark.django_db


def finished(make_table, **kwargs):
    table = make_table(**kwargs)
    play_to_end(table, random.Random(1))
    game = Game.objects.get(pk=table.game_id)
    assert game.status == "finished" and not game.practice
    return table


def test_lists_only_the_players_finished_public_games(api_client, make_table):
    done = finished(make_table)
    alice = done.users[0]
    other = finished(make_table)  # someone else's finished game
    running = make_table()
    open_table = make_table(start=False)
    aborted = make_table(start=False)
    ok(aborted.creator.post(aborted.action("abort")))
    practice = make_table(setup=INSTANT_SETUP)
    assert Game.objects.get(pk=practice.game_id).practice
    # alice sits at all of them (by the ORM: the tables were made with other people)
    for table in (running, open_table, aborted, practice):
        Game.objects.get(pk=table.game_id).seats.filter(number=0).update(player=alice)

    body = ok(api_client.get(GAMES, {"player": alice.username}))  # anonymous: anyone may ask
    assert [g["id"] for g in body["results"]] == [done.game_id]
    assert body["count"] == 1
    assert body["results"][0]["status"] == "finished"
    assert alice.username in [s["player"]["username"] for s in body["results"][0]["seats"] if s["player"]]
    assert other.game_id not in [g["id"] for g in body["results"]]

    # the name is matched as the profile is (case does not matter); status=finished is allowed
    body = ok(api_client.get(GAMES, {"player": alice.username.upper(), "status": "finished"}))
    assert [g["id"] for g in body["results"]] == [done.game_id]


def test_pages_newest_first(api_client, make_table):
    first = finished(make_table)
    alice = first.users[0]
    ids = [first.game_id]
    for _ in range(2):
        table = finished(make_table)
        Game.objects.get(pk=table.game_id).seats.filter(number=0).update(player=alice)
        ids.append(table.game_id)
    page = ok(api_client.get(GAMES, {"player": alice.username, "limit": 2}))
    assert page["count"] == 3 and page["previous"] is None
    assert [g["id"] for g in page["results"]] == sorted(ids, reverse=True)[:2]
    rest = ok(api_client.get(page["next"]))
    assert [g["id"] for g in rest["results"]] == [min(ids)] and rest["next"] is None


def test_unknown_player_is_not_found(api_client):
    body = refused(api_client.get(GAMES, {"player": "nobody-by-this-name"}), 404, "not_found")
    assert "nobody-by-this-name" in body["detail"]


def test_a_player_with_no_finished_game_has_an_empty_list(api_client, make_table):
    table = make_table()  # running
    body = ok(api_client.get(GAMES, {"player": table.users[1].username}))
    assert body["count"] == 0 and body["results"] == []


@pytest.mark.parametrize("status", ["open", "running", "aborted"])
def test_a_status_other_than_finished_lists_nothing(api_client, make_table, status):
    table = make_table()
    body = ok(api_client.get(GAMES, {"player": table.users[0].username, "status": status}))
    assert body["count"] == 0 and body["results"] == []


def test_an_empty_player_name_is_refused(api_client):
    body = refused(api_client.get(GAMES, {"player": ""}), 400, "validation_error")
    assert "player" in body["errors"]
