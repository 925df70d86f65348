"""Helpers of the ratings tests: finish a table's match through the real services
(players through the API, server bots and turn clocks through the games services,
as the workers would call them)."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from django.utils import timezone

from games import engine
from games import services as game_services
from games.engine import Match
from games.models import Game, GameStatus
from tests.api.games_helpers import Table, play_turn, view


def finish(table: Table, rng: random.Random, *, time_out: int | None = None, max_moves: int = 5000) -> Game:
    """Play ``table`` to the end: each human seat a random legal move from its own
    view, bot-controlled seats (server bots, resigned or away players) their
    strategy's move. With ``time_out``: that seat's first turn runs out its clock
    (a ``timeout`` move) instead."""
    timed_out = False
    for _ in range(max_moves):
        game = table.game()
        if game.status != GameStatus.RUNNING:
            return game
        assert game.turn_seat is not None
        seat = game.seats.get(number=game.turn_seat)
        if seat.number == time_out and not timed_out:
            Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
            assert game_services.turn_timeout(game_id=game.pk, expected_seq=game.seq) is not None
            timed_out = True
        elif seat.bot_controlled:
            assert game_services.bot_move(game_id=game.pk, expected_seq=game.seq) is not None
        else:
            play_turn(table.clients[seat.number], table.game_id, rng)
    raise AssertionError(f"the match did not end within {max_moves} moves")


def rematch(table: Table) -> Table:
    """A new rated table with the same players in the same seats, started."""
    users = table.users
    game = game_services.game_create(creator=users[0], ruleset=table.game().ruleset, rated=True)
    for seat, user in enumerate(users[1:], start=1):
        game_services.game_join(game_id=game.pk, player=user, seat=seat)
    game_services.game_start(game_id=game.pk, by=users[0])
    return Table(game.pk, list(users), list(table.clients))


def play_until_final_move(table: Table, rng: random.Random, max_moves: int = 5000) -> tuple[int, dict[str, Any]]:
    """Play random legal moves until the seat to move has one that ends the match;
    returns (that seat, that move) without playing it. Every seat must be human."""
    for _ in range(max_moves):
        body = view(table.clients[table.game().turn_seat or 0], table.game_id)
        you = body["you"]
        state = table.game().state
        for candidate in you["legal_moves"]:
            trial = Match.from_dict(state)
            trial.apply(you["seat"], candidate)
            if trial.status == engine.ENDED:
                return you["seat"], candidate
        play_turn(table.clients[you["seat"]], table.game_id, rng)
    raise AssertionError(f"no final move within {max_moves} moves")
