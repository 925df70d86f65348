"""Server bots: the strategies on offer, and bot seats playing through the same
move path as everyone (what the bot task does is called directly here; the
integration tests run it in a real worker)."""

from __future__ import annotations

import pytest

from bots.strategies import STRATEGIES
from games import services
from games.errors import GameError
from games.models import Move
from tests.api.games_helpers import BOTS, PLAY_SETUP, ok, play, view

pytestmark = pytest.mark.django_db


def test_bots_list(api_client):
    body = ok(api_client.get(BOTS))
    assert [s["name"] for s in body] == sorted(STRATEGIES)
    assert {"random", "greedy"} <= set(STRATEGIES)
    assert all(s["description"] == STRATEGIES[s["name"]].description for s in body)


def test_bots_list_describes_in_the_readers_language(api_client):
    """The descriptions are for people: in Estonian with Accept-Language: et (from the
    catalogue, every one), while the names, the machine's words, stay the same."""
    english = ok(api_client.get(BOTS))
    response = api_client.get(BOTS, HTTP_ACCEPT_LANGUAGE="et")
    estonian = ok(response)
    assert response["Content-Language"] == "et"
    assert [s["name"] for s in estonian] == [s["name"] for s in english]
    by_name = {s["name"]: s["description"] for s in estonian}
    assert by_name["greedy"].startswith("Käib välja raskeima plaadi")
    assert all(et != en["description"] for et, en in zip(by_name.values(), english, strict=True))


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_a_bot_seat_moves_with_a_legal_move_from_its_own_view(make_table, api_client, strategy):
    table = make_table(players=2, seated=1, start=False)
    ok(table.creator.post(table.action("bots"), {"strategy": strategy}, format="json"))
    ok(table.creator.post(table.action("start")))
    moved = 0
    for _ in range(6):
        game = table.game()
        if game.status != "running":
            break
        if game.turn_seat == 1:  # the bot's turn: what its task does
            assert services.bot_move(game_id=game.pk, expected_seq=game.seq - 1) is None  # a late task: nothing
            result = services.bot_move(game_id=game.pk, expected_seq=game.seq)
            assert result is not None and result.move.source == "bot" and result.move.actor is None
            assert services.bot_move(game_id=game.pk, expected_seq=game.seq) is None  # a duplicate: nothing
            moved += 1
        else:
            assert services.bot_move(game_id=game.pk, expected_seq=game.seq) is None  # not a bot's turn
            legal = view(table.creator, table.game_id)["you"]["legal_moves"]
            ok(table.creator.post(table.action("moves"), {**legal[0], "expected_seq": game.seq}, format="json"), 201)
    assert moved >= 2
    moves = ok(api_client.get(table.action("moves")))["moves"]
    assert {m["source"] for m in moves if m["seat"] == 1} == {"bot"}
    assert {m["source"] for m in moves if m["seat"] == 0} == {"player"}


def test_a_resigned_seat_is_played_by_its_bot(make_table, api_client):
    table = make_table(setup=PLAY_SETUP)
    ok(table.clients[1].post(table.action("resign")))
    game = table.game()
    result = services.bot_move(game_id=game.pk, expected_seq=game.seq)
    assert result is not None and result.move.seat == 1
    assert result.move.payload in [play(t, e) for t in ("6-1", "6-2") for e in ("e1", "e2", "e3", "e4")]
    assert ok(api_client.get(table.action("moves")))["moves"][0]["source"] == "bot"
    assert Move.objects.get().actor is None


def test_the_list_says_how_strong_each_strategy_is(api_client):
    from live.strength import measured

    body = ok(api_client.get(BOTS))
    for row in body:
        assert row["strength"] == measured().get(row["name"])


def test_a_table_chooses_its_bot_level_and_it_plays_for_a_resigned_player(make_table, api_client):
    table = make_table(setup=PLAY_SETUP, bot_strategy="random")
    assert ok(api_client.get(table.url))["game"]["bot_strategy"] == "random"
    ok(table.clients[1].post(table.action("resign")))
    seat = table.game().seats.get(number=1)
    assert seat.bot_strategy == "random" and seat.resigned
    events = ok(api_client.get(table.action("events")))["events"]
    assert events[-1]["data"] == {
        "type": "seat_resigned",
        "seat": 1,
        "player": table.users[1].username,
        "bot_strategy": "random",
    }


def test_a_table_without_a_level_gets_greedy_and_an_unknown_level_is_refused(make_table, api_client, people):
    table = make_table(setup=PLAY_SETUP)
    assert table.game().bot_strategy == "greedy"
    _, client = people.player()
    response = client.post("/api/v1/games/", {"bot_strategy": "grandmaster"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "validation_error"
    assert "bot_strategy" in response.json()["errors"]


def test_repeated_timeouts_hand_the_seat_to_the_tables_level(make_table):
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Event, Game

    table = make_table(players=2, rounds=None, turn_time_limit=5, bot_strategy="random")
    handed = None
    for _ in range(12):
        game = table.game()
        if game.status != "running":
            break
        Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
        assert services.turn_timeout(game_id=game.pk, expected_seq=game.seq) is not None
        handed = Event.objects.filter(game=game, type="seat_handed_to_bot").first()
        if handed:
            break
    assert handed is not None, "three timeouts in a row never handed a seat to a bot"
    assert handed.data["bot_strategy"] == "random" and handed.data["reason"] == "timeouts"
    assert table.game().seats.get(number=handed.data["seat"]).bot_strategy == "random"


def test_a_server_bot_can_play_under_a_bot_account(make_table, make_player):
    """The ladder's and quick play's bots: the seat shows the account, a server strategy moves it."""
    table = make_table(players=2, seated=1, start=False)
    account = make_player("ladder-greedy", is_bot=True)
    services.game_add_bot(game_id=table.game_id, by=table.users[0], strategy="greedy", account=account)
    seat = view(table.creator, table.game_id)["game"]["seats"][1]
    assert seat["player"]["username"] == "ladder-greedy" and seat["is_bot"] and seat["bot_strategy"] == "greedy"
    with pytest.raises(GameError) as refused:  # one seat per account, bots too
        services.game_add_bot(game_id=table.game_id, by=table.users[0], strategy="random", account=account)
    assert refused.value.code == "already_seated"
    with pytest.raises(ValueError):  # a person's account is never played by the server
        services.game_add_bot(game_id=table.game_id, by=table.users[0], strategy="greedy", account=table.users[0])
