"""The analysis API in process: who may ask for which seat, one analysis per game and
seat shared by all, the account's budget, progress on the account stream, hints in
practice games only. The task's work is ``analysis.services.analysis_run`` (called here
as the worker calls it); ``test_worker.py`` runs it on a real worker."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import override_settings

from analysis import services
from analysis.models import Analysis
from bots import analysis as judge
from games.engine import Match
from games.models import Game, GameStatus
from live import account_feeds
from tests.api.games_helpers import ok, refused
from tests.ratings.helpers import finish

pytestmark = [pytest.mark.django_db]


def url(game_id: int, what: str = "analysis") -> str:
    return f"/api/v1/games/{game_id}/{what}/"


@pytest.fixture
def finished_table(make_table: Any) -> Any:
    table = make_table(2, rounds=1)
    finish(table, random.Random(2))
    return table


def test_a_player_asks_for_its_seat_and_everyone_shares_the_one_analysis(finished_table, people) -> None:
    table = finished_table
    alice, bob = table.clients
    first = ok(alice.post(url(table.game_id), {}, format="json"), 202)
    assert (first["game"], first["seat"], first["status"], first["result"]) == (table.game_id, 0, "queued", None)
    assert first["thresholds"] == {"inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}
    # Bob asks for seat 0 too: the same analysis, not charged to him.
    again = ok(bob.post(url(table.game_id), {"seat": 0}, format="json"), 200)
    assert again["requested_at"] == first["requested_at"]
    analysis = Analysis.objects.get(game_id=table.game_id, seat=0)
    assert analysis.requested_by == table.users[0]
    assert set(analysis.watchers.all()) == set(table.users)
    # A spectator asks for seat 1 of this public finished game.
    _, carol = people.player("carol")
    refused(carol.post(url(table.game_id), {}, format="json"), 422, "seat_required")
    ok(carol.post(url(table.game_id), {"seat": 1}, format="json"), 202)
    assert Analysis.objects.filter(game_id=table.game_id).count() == 2

    shown = ok(alice.get(url(table.game_id)))
    assert shown["status"] == "queued" and shown["progress"] == {"done": 0, "total": None}

    services.analysis_run(analysis_id=analysis.pk)  # what the worker does
    done = ok(bob.get(url(table.game_id), {"seat": 0}))
    assert done["status"] == "done" and done["finished_at"]
    result = done["result"]
    assert done["progress"]["done"] == done["progress"]["total"] == len(result["decisions"])
    assert result["match"]["decisions"] == len(result["decisions"])
    game = Game.objects.get(pk=table.game_id)
    moves = [(m.seat, m.payload) for m in game.moves.order_by("number")]
    for decision in result["decisions"]:
        assert moves[decision["move_number"] - 1] == (0, decision["played"])
        assert decision["verdict"] == judge.classify(decision["loss"])
    # Stored: asking again answers it at once, done.
    assert ok(alice.post(url(table.game_id), {}, format="json"), 200)["status"] == "done"


def test_what_may_not_be_analysed(make_table, people) -> None:
    running = make_table(2, rounds=1)
    refused(running.clients[0].post(url(running.game_id), {}, format="json"), 409, "game_not_finished")
    practice = make_table(2, rounds=1, seed=4)
    finish(practice, random.Random(1))
    _, carol = people.player("carol")
    refused(carol.post(url(practice.game_id), {"seat": 0}, format="json"), 403, "not_seated")
    ok(practice.clients[1].post(url(practice.game_id), {"seat": 0}, format="json"), 202)  # a player may
    refused(practice.clients[0].post(url(practice.game_id), {"seat": 5}, format="json"), 422, "no_such_seat")
    refused(practice.clients[0].get(url(practice.game_id), {"seat": 1}), 404, "analysis_not_requested")
    refused(carol.post(url(9_999_999), {"seat": 0}, format="json"), 404, "not_found")
    # Strict input: a seat is a JSON integer, and a query's seat digits.
    refused(practice.clients[0].post(url(practice.game_id), {"seat": "1"}, format="json"), 400, "validation_error")
    refused(practice.clients[0].get(url(practice.game_id), {"seat": "x"}), 400, "validation_error")


def test_the_budget_of_an_account(make_table) -> None:
    table = make_table(4, rounds=1)
    finish(table, random.Random(3))
    client = table.clients[0]
    with override_settings(ANALYSIS_MAX_PENDING=1):
        ok(client.post(url(table.game_id), {}, format="json"), 202)
        body = refused(client.post(url(table.game_id), {"seat": 1}, format="json"), 429, "analysis_budget_exhausted")
        assert body["retry_after"] > 0
        # One that exists costs nothing.
        ok(table.clients[1].post(url(table.game_id), {"seat": 0}, format="json"), 200)
    services.analysis_run(analysis_id=Analysis.objects.get(game_id=table.game_id, seat=0).pk)
    with override_settings(ANALYSIS_PER_DAY=2):
        ok(client.post(url(table.game_id), {"seat": 1}, format="json"), 202)
        response = client.post(url(table.game_id), {"seat": 2}, format="json")
        body = refused(response, 429, "analysis_budget_exhausted")
        assert int(response["Retry-After"]) == body["retry_after"] > 3600
    ok(table.clients[2].post(url(table.game_id), {"seat": 2}, format="json"), 202)  # another account's budget


def test_progress_comes_on_the_account_stream(finished_table) -> None:
    table = finished_table
    alice = table.users[0]
    shown, state = account_feeds.snapshot(alice)
    assert shown["analyses"] == []
    ok(table.clients[0].post(url(table.game_id), {}, format="json"), 202)
    frames = account_feeds.changes(alice, state)
    assert [(event, data["status"]) for event, data, _ in frames] == [("analysis_progress", "queued")]
    services.analysis_run(analysis_id=Analysis.objects.get(game_id=table.game_id).pk)
    frames = account_feeds.changes(alice, state)
    assert [(event, data["status"]) for event, data, _ in frames][-1] == ("analysis_progress", "done")
    assert frames[-1][1]["progress"]["done"] == frames[-1][1]["progress"]["total"]
    assert account_feeds.changes(alice, state) == []  # done: told once
    assert account_feeds.snapshot(alice)[0]["analyses"] == []


def your_turn(table: Any) -> Game:
    """Play the table on (random moves) until it is seat 0's turn with two choices or more."""
    rng = random.Random(0)
    for _ in range(500):
        game = Game.objects.get(pk=table.game_id)
        match = Match.from_dict(game.state)
        if game.turn_seat == 0 and len({str(m.to_dict()) for m in match.legal_moves(0)}) >= 2:
            return game
        seat = game.turn_seat
        move = rng.choice(match.legal_moves(seat)).to_dict()
        ok(
            table.clients[seat].post(url(table.game_id, "moves"), {**move, "expected_seq": game.seq}, format="json"),
            201,
        )
    raise AssertionError("seat 0 never had a choice")


def test_a_hint_in_a_practice_game_on_your_turn(make_table) -> None:
    practice = make_table(2, rounds=1, seed=8)
    game = your_turn(practice)
    hint = ok(practice.clients[0].get(url(practice.game_id, "hint")))
    legal = [m.to_dict() for m in Match.from_dict(game.state).legal_moves(0)]
    assert hint["seat"] == 0 and hint["seq"] == game.seq
    assert hint["best"] in legal and hint["best"] == hint["moves"][0]["move"]
    refused(practice.clients[1].get(url(practice.game_id, "hint")), 409, "hint_not_your_turn")


def test_no_hints_outside_practice_games(make_table) -> None:
    rated = make_table(2, rounds=1, rated=True)
    your_turn(rated)
    refused(rated.clients[0].get(url(rated.game_id, "hint")), 403, "hints_practice_only")
    unrated = make_table(2, rounds=1)
    refused(unrated.clients[0].get(url(unrated.game_id, "hint")), 403, "hints_practice_only")
    practice = make_table(2, rounds=1, seed=8)
    finish(practice, random.Random(0))
    assert Game.objects.get(pk=practice.game_id).status == GameStatus.FINISHED
    refused(practice.clients[0].get(url(practice.game_id, "hint")), 409, "game_finished")
