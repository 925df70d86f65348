"""The hot answers are built as plain dicts (``games.output``) while
``games.serializers`` declares them for the contract: both must agree exactly,
for games in every status, every kind of seat and every kind of viewer."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import Permission

from games import output, selectors, services
from games.models import Event, Game, Move
from games.serializers import (
    EventOutput,
    EventPageOutput,
    GameOutput,
    GameSummaryOutput,
    MoveOutput,
    MoveResultOutput,
)
from moderation.services import moderation_game_abort
from tests.api.games_helpers import Table, ok, play_turn

pytestmark = pytest.mark.django_db


def games_of_every_kind(make_table: Any, people: Any) -> list[tuple[Table, str]]:
    rng = random.Random(5)
    lobby = make_table(3, seated=2, start=False)
    services.game_add_bot(game_id=lobby.game_id, by=lobby.users[0], strategy="greedy")
    running = make_table(3, set_max=6, rounds=2, turn_time_limit=60)
    for _ in range(9):
        play_turn(running.clients[running.game().turn_seat], running.game_id, rng)
    services.game_resign(game_id=running.game_id, player=running.users[2])
    finished = make_table(2, seed=11)
    while finished.game().status == "running":
        play_turn(finished.clients[finished.game().turn_seat], finished.game_id, rng)
    aborted = make_table(2)  # by a moderator, while running
    moderator = people.staff()[0]
    moderator.user_permissions.add(Permission.objects.get(codename="moderate", content_type__app_label="moderation"))
    moderation_game_abort(game_id=aborted.game_id, by=type(moderator).objects.get(pk=moderator.pk), reason="testing")
    return [(lobby, "open"), (running, "running"), (finished, "finished"), (aborted, "aborted")]


def test_game_answers_equal_their_serializers(make_table: Any, people: Any) -> None:
    outsider, _ = people.player()
    for table, status in games_of_every_kind(make_table, people):
        game = selectors.game_get(game_id=table.game_id)
        assert game.status == status
        for viewer in [*table.users, outsider, None]:
            view = selectors.game_view(game=game, viewer=viewer)
            assert output.game_output(view) == GameOutput(view).data, (status, viewer)
        assert output.game_summary_output(game) == GameSummaryOutput(game).data
        events = list(Event.objects.filter(game=game))
        assert [output.event_output(e) for e in events] == EventOutput(events, many=True).data
        moves = list(Move.objects.filter(game=game))
        assert [output.move_output(m) for m in moves] == MoveOutput(moves, many=True).data
        page = selectors.event_page(game_id=game.pk, after=0)
        assert output.event_page_output(page) == EventPageOutput(page).data


def test_a_move_answer_equals_its_serializer_on_a_fresh_read(make_table: Any) -> None:
    """The move's answer is built from the rows the move locked; it is what a
    fresh read of the game would answer, through the declared serializer."""
    rng = random.Random(3)
    table = make_table(3, set_max=6, turn_time_limit=60)
    for _ in range(12):
        seat = table.game().turn_seat
        answer = play_turn(table.clients[seat], table.game_id, rng)
        game = Game.objects.get(pk=table.game_id)
        move = Move.objects.get(game=game, number=answer["move"]["number"])
        events = list(Event.objects.filter(game=game, seq__gte=move.seq))
        fresh = selectors.game_view(game=selectors.game_get(game_id=game.pk), viewer=table.users[seat])
        assert answer == MoveResultOutput({"move": move, "events": events, "game": fresh}).data
        assert ok(table.clients[seat].get(table.url)) == answer["game"]
