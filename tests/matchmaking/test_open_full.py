"""Quick play's tables are opened, filled and started in one games change
(``games.services.game_open_full``): the table, its seats and its event log are
what the five lobby calls one after another made, and the matcher makes a burst's
tables without seating anybody twice."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

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


def test_a_table_the_matcher_made_replays_as_one_the_lobby_services_made(people: People):
    users = [people.player()[0] for _ in range(4)]
    for user in users:
        services.seek_create(user=user, players=4, preset="double-6-quick", rated=True, turn_time_limit=30)
    (matched_id,) = services.seeks_match().games
    matched = Game.objects.get(pk=matched_id)
    Game.objects.filter(pk=matched.pk).update(status=GameStatus.ABORTED)  # free the players' seats again

    first = Seek.objects.get(user=users[0])
    stepwise = game_services.game_create(
        creator=users[0],
        ruleset=matched.ruleset,
        turn_time_limit=30,
        bot_strategy=first.bot_level,
        rated=True,
    )
    for user in users[1:]:
        game_services.game_join(game_id=stepwise.pk, player=user)
    Game.objects.filter(pk=stepwise.pk).update(seed=matched.seed)  # the same deal
    game_services.game_start(game_id=stepwise.pk, by=users[0])
    stepwise = Game.objects.get(pk=stepwise.pk)

    def log(game: Game) -> list[tuple[int, str, dict[str, Any]]]:
        return list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "type", "data"))

    assert log(matched) == log(stepwise)  # every event, the deal's included, in the same order
    for name in ("status", "seq", "state", "turn_seat", "ruleset", "rated", "practice", "bot_strategy", "creator_id"):
        assert getattr(matched, name) == getattr(stepwise, name), name
    assert matched.turn_deadline is not None and stepwise.turn_deadline is not None  # the clock runs in both
    seats = lambda g: list(Seat.objects.filter(game=g).values_list("number", "player_id", "bot_strategy", "resigned"))  # noqa: E731
    assert seats(matched) == seats(stepwise)


def test_one_refused_table_of_a_batch_fails_alone(people: People):
    seeks = [services.seek_create(user=people.player()[0], players=2, preset="double-6-quick") for _ in range(6)]
    Seek.objects.filter(pk=seeks[0].pk).update(bot_level="retired-strategy")  # the oldest: its table's level
    report = services.seeks_match()
    assert (report.failed, report.matched, len(report.games)) == (2, 4, 2)
    ended = {s.pk: (s.status, s.reason, s.game_id) for s in Seek.objects.filter(pk__in=[s.pk for s in seeks])}
    assert ended[seeks[0].pk] == ended[seeks[1].pk] == ("cancelled", "failed", None)
    assert Seat.objects.filter(player__in=[seeks[0].user_id, seeks[1].user_id]).count() == 0  # nothing of it kept
    for seek in seeks[2:]:
        status, reason, game = ended[seek.pk]
        assert (status, reason) == ("matched", "players") and Seat.objects.filter(game=game, player=seek.user).exists()


@pytest.mark.postgres
def test_a_batch_of_tables_takes_as_many_statements_as_one_table(people: People):
    """The matcher's statements for a pool's batch do not grow with its tables (the
    games, seats, events and seeks of all of them are written together)."""

    def statements(tables: int) -> int:
        for _ in range(4 * tables):
            services.seek_create(user=people.player()[0], players=4, preset="double-6-quick")
        with CaptureQueriesContext(connection) as queries:
            assert len(services.seeks_match().games) == tables
        return len(queries)

    statements(1)  # the pool's lock row is made on first use
    assert statements(1) == statements(8)
