"""History: the hands (rounds) of a match, the full record, and whole matches played
through the API by clients that choose random legal moves from their own views."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import services
from games.engine import Match, Ruleset, decide_winners
from tests.api.games_helpers import (
    INSTANT_SETUP,
    PLAY_SETUP,
    Table,
    all_events,
    game_url,
    ok,
    play,
    play_to_end,
    refused,
    view,
)

pytestmark = pytest.mark.django_db


def replay(record: dict[str, Any]) -> Match:
    moves = [(m["seat"], m["move"]) for m in record["moves"]]
    return Match.replay(Ruleset.from_dict(record["ruleset"]), record["seed"], moves, record["setup"])


# -- hands --------------------------------------------------------------------------------


def test_hands_while_the_first_one_runs(make_table, api_client):
    table = make_table(setup=PLAY_SETUP)
    ok(
        table.clients[1].post(
            table.action("moves"), {**play("6-1", "e1"), "expected_seq": table.game().seq}, format="json"
        ),
        201,
    )
    hands = ok(api_client.get(table.action("hands")))
    assert hands == [
        {
            "number": 1,
            "starting_double": "6-6",
            "starter": 0,
            "status": "playing",
            "reason": None,
            "went_out": None,
            "scores": None,
        }
    ]
    hand = ok(api_client.get(game_url(table.game_id, "hands/1")))
    assert hand["revealed_hands"] is None and hand["status"] == "playing"
    assert [(m["number"], m["move"]) for m in hand["moves"]] == [(1, play("6-1", "e1"))]
    refused(api_client.get(game_url(table.game_id, "hands/2")), 404, "not_found")
    refused(api_client.get(game_url(table.game_id, "hands/0")), 404, "not_found")
    refused(api_client.get(game_url(999999, "hands")), 404, "not_found")
    refused(api_client.get(game_url(999999, "hands/1")), 404, "not_found")


def test_no_hands_before_the_start(make_table, api_client):
    table = make_table(start=False)
    assert ok(api_client.get(table.action("hands"))) == []
    refused(api_client.get(game_url(table.game_id, "hands/1")), 404, "not_found")


def test_an_aborted_hand_is_abandoned_and_stays_hidden(make_table, api_client, people):
    table = make_table(setup=PLAY_SETUP)
    moderator, _ = people.staff()
    services.game_abort_as_moderator(game_id=table.game_id, by=moderator)
    assert ok(api_client.get(table.action("hands")))[0]["status"] == "abandoned"
    assert ok(api_client.get(game_url(table.game_id, "hands/1")))["revealed_hands"] is None


def test_a_finished_hand_reveals_every_tile(make_table, api_client):
    table = make_table(setup=INSTANT_SETUP)
    hand = ok(api_client.get(game_url(table.game_id, "hands/1")))
    assert hand == {**hand, "status": "ended", "reason": "domino", "went_out": 0, "scores": [0, 15]}
    assert hand["revealed_hands"] == [[], ["5-5", "4-1"]]
    assert hand["moves"] == []


# -- record --------------------------------------------------------------------------------


def test_the_record_waits_for_the_end_of_a_rated_game(make_table, api_client):
    table = make_table()
    for client in (api_client, *table.clients):
        refused(client.get(table.action("record")), 409, "game_not_finished")
    refused(api_client.get(game_url(999999, "record")), 404, "not_found")


def test_a_practice_game_shows_its_record_to_its_creator_only_until_the_end(make_table, api_client):
    table = make_table(setup=PLAY_SETUP)
    for someone in (api_client, table.clients[1]):  # the set-up shows every hand: only its author may see it
        refused(someone.get(table.action("record")), 409, "game_not_finished")
    record = ok(table.creator.get(table.action("record")))
    game = table.game()
    assert record == {
        "ruleset": game.ruleset,
        "seed": game.seed,
        "setup": {"boneyard": None, **PLAY_SETUP},
        "moves": [],
        "result": None,
    }
    assert replay(record).to_dict() == game.state


def test_an_aborted_game_publishes_its_record(make_table, api_client, people):
    table = make_table()
    moderator, _ = people.staff()
    services.game_abort_as_moderator(game_id=table.game_id, by=moderator)
    record = ok(api_client.get(table.action("record")))
    assert record["seed"] == table.game().seed and record["result"] is None
    assert replay(record).to_dict() == table.game().state


# -- whole matches ---------------------------------------------------------------------------


def check_finished_match(table: Table, api_client) -> None:
    """The end as every client sees it: status, result, hands, record, events."""
    game = table.game()
    body = ok(api_client.get(table.url))
    assert body["game"]["status"] == "finished" and body["game"]["turn_seat"] is None
    result = body["game"]["result"]
    assert body["seed"] == game.seed and body["state"]["result"] == {**result, "seed": game.seed}

    hands = ok(api_client.get(table.action("hands")))
    rounds = game.ruleset["rounds"] or game.ruleset["set_max"] + 1
    assert [h["number"] for h in hands] == list(range(1, rounds + 1))
    assert all(h["status"] == "ended" for h in hands)
    scores = [h["scores"] for h in hands]
    assert result["totals"] == [sum(column) for column in zip(*scores, strict=True)]
    assert (result["winners"], result["tie_break"]) == tuple(decide_winners(scores, result["totals"]))
    assert min(result["totals"]) == result["totals"][result["winners"][0]]

    events = list(all_events(api_client, table.game_id))
    ended = [e["data"] for e in events if e["type"] == "round_ended"]
    for hand, event in zip(hands, ended, strict=True):
        detail = ok(api_client.get(game_url(table.game_id, f"hands/{hand['number']}")))
        assert detail["revealed_hands"] == event["hands"] and detail["scores"] == event["scores"]
    assert events[-1]["data"] == {
        "type": "match_ended",
        "totals": result["totals"],
        "winners": result["winners"],
        "tie_break": result["tie_break"],
        "seed": game.seed,
        "round": rounds,
    }

    record = ok(api_client.get(table.action("record")))
    assert record["result"] == result and record["seed"] == game.seed and record["setup"] is None
    assert len(record["moves"]) == game.state["move_count"]
    replayed = replay(record)
    assert replayed.to_dict() == game.state
    assert replayed.totals == result["totals"] and replayed.winners == result["winners"]

    for client in table.clients:
        you = view(client, table.game_id)["you"]
        assert you["legal_moves"] == [] and you["your_turn"] is False


def test_a_two_player_match_of_two_rounds(make_table, api_client):
    table = make_table(2, rounds=2, api=True)
    assert table.game().practice is False

    def record_is_hidden(answer: dict[str, Any]) -> None:
        if answer["game"]["game"]["status"] == "running" and answer["move"]["number"] % 10 == 0:
            refused(api_client.get(table.action("record")), 409, "game_not_finished")

    last = play_to_end(table, random.Random(2), after_move=record_is_hidden)
    assert last["game"]["game"]["status"] == "finished"
    assert [e["data"]["type"] for e in last["events"]][-1] == "match_ended"
    check_finished_match(table, api_client)


@pytest.mark.slow
def test_a_three_player_match_of_every_round(make_table, api_client):
    table = make_table(3, rounds=None, api=True)
    play_to_end(table, random.Random(3))
    check_finished_match(table, api_client)
