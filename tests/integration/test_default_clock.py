"""The default turn clock (``DEFAULT_TURN_SECONDS``): a table opened over the API
without ``turn_time_limit`` gets it, so a seat whose player stopped playing is
moved by a real Celery worker when the clock runs out and handed to the table's
bot after three timeouts in a row; nobody waits for ever. The default is made
small here through settings (the worker reads the clock stored with the game)."""

from __future__ import annotations

from typing import Any

from games.models import Event, Game, GameStatus, Move, MoveSource
from tests.api.games_helpers import GAMES, game_url, ok
from tests.integration.workers import WITH_WORKERS, wait_for

pytestmark = WITH_WORKERS


def test_an_abandoned_seat_goes_to_a_bot_at_the_default_clock(people: Any, start_worker: Any, settings: Any) -> None:
    settings.DEFAULT_TURN_SECONDS = 2
    worker = start_worker(beat=True)  # beat runs the turn clock (ops.clock)
    _, alice_client = people.player()
    bob, bob_client = people.player()
    body = {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}, "bot_strategy": "random"}
    game = ok(alice_client.post(GAMES, body, format="json"), 201)["game"]
    assert game["turn_time_limit"] == 2  # nobody asked for a clock: the default
    ok(bob_client.post(game_url(game["id"], "join"), {}, format="json"))
    ok(alice_client.post(game_url(game["id"], "start")))

    # Bob closed his browser: only alice plays; every one of bob's turns runs out.
    def bob_away_or_alices_turn() -> Game | None:
        current = Game.objects.get(pk=game["id"])
        if current.status != GameStatus.RUNNING or current.seats.filter(player=bob, away=True).exists():
            return current
        return current if current.turn_seat == 0 else None

    bob_seat = Game.objects.get(pk=game["id"]).seats.get(player=bob)
    while True:
        current = wait_for(
            bob_away_or_alices_turn, timeout=30, what="bob's clock to run out", explain=lambda: worker.log()[-4000:]
        )
        if current.status != GameStatus.RUNNING or current.seats.filter(player=bob, away=True).exists():
            break
        view = ok(alice_client.get(game_url(game["id"])))
        if not view["you"]["your_turn"]:
            continue
        moved = alice_client.post(
            game_url(game["id"], "moves"),
            {**view["you"]["legal_moves"][0], "expected_seq": view["game"]["seq"]},
            format="json",
        )
        # Alice's clock is short too: on a busy machine it may run out first (the move
        # is then refused as stale, and she plays her next turn).
        assert moved.status_code in (201, 409), moved.content

    timeouts = Move.objects.filter(game_id=game["id"], seat=bob_seat.number, source=MoveSource.TIMEOUT).count()
    handed = Event.objects.filter(game_id=game["id"], type="seat_handed_to_bot").first()
    if current.status == GameStatus.RUNNING:  # the usual case: the hand outlasts three of bob's turns
        assert handed is not None and handed.data["seat"] == bob_seat.number and handed.data["reason"] == "timeouts"
        assert timeouts == 3
        # From now on the table's bot plays bob's seat: the game goes on without him.
        seq = current.seq
        wait_for(lambda: Game.objects.get(pk=game["id"]).seq > seq or None, timeout=30, what="the game to go on")
    else:  # the hand ended first (a short deal): bob's seat was still moved by the clock every time
        assert timeouts >= 1
