"""Quick play's tables are opened, filled and started in one games change
(``games.services.game_open_full``): the table, its seats and its event log are
what the five lobby calls one after another made, and the matcher makes a burst's
tables without seating anybody twice."""

from __future__ import annotations

from typing import Any

import pytest

from games import services as game_services
from games.models import Event, Game, GameStatus, Seat
from matchmaking import hooks, services
from matchmaking.models import Seek, SeekStatus
from tests.api.games_helpers import People

pytestmark = pytest.mark.django_db
RULESET = {"set_max": 6, "players": 4, "rounds": 1}


def log_of(game: Game) -> list[dict[str, Any]]:
    return [e.data for e in Event.objects.filter(game=game).order_by("seq")][:7]


def test_a_full_table_opened_at_once_reads_as_one_opened_step_by_step(people: People):
    a, b, c = (people.player()[0] for _ in range(3))
    bot = hooks.level_account("greedy", 1)
    stepwise = game_services.game_create(creator=a, ruleset=RULESET)
    for player in (b, c):
        game_services.game_join(game_id=stepwise.pk, player=player)
    game_services.game_add_bot(game_id=stepwise.pk, by=a, strategy="greedy", account=bot)
    game_services.game_start(game_id=stepwise.pk, by=a)
    stepwise = Game.objects.get(pk=stepwise.pk)
    Game.objects.filter(pk=stepwise.pk).update(status=GameStatus.ABORTED)  # free the players' seats again

    at_once = game_services.game_open_full(players=[a, b, c], bots=[("greedy", bot)], ruleset=RULESET)
    at_once = Game.objects.get(pk=at_once.pk)
    assert at_once.status == GameStatus.RUNNING and at_once.started_at is not None
    assert [(e["type"], e.get("seat"), e.get("player")) for e in log_of(at_once)] == [
        (e["type"], e.get("seat"), e.get("player")) for e in log_of(stepwise)
    ]
    seats = lambda g: list(Seat.objects.filter(game=g).order_by("number").values_list("player_id", "bot_strategy"))  # noqa: E731
    assert seats(at_once) == seats(stepwise) == [(a.pk, ""), (b.pk, ""), (c.pk, ""), (bot.pk, "greedy")]
    assert at_once.turn_seat == at_once.state["turn"]


def test_a_burst_is_matched_into_tables_without_seating_anybody_twice(people: People):
    users = [people.player()[0] for _ in range(4 * 7)]
    for user in users:
        services.seek_create(user=user, players=4, preset="double-6-quick")
    report = services.seeks_match()
    assert len(report.games) == 7 and report.matched == 28
    assert not Seek.objects.filter(status=SeekStatus.WAITING).exists()
    seated = list(Seat.objects.filter(game__in=report.games).values_list("player_id", flat=True))
    assert sorted(seated) == sorted(u.pk for u in users)  # each once
    for seek in Seek.objects.filter(user__in=users):
        assert Seat.objects.filter(game=seek.game_id, player=seek.user_id).exists()
