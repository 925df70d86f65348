"""The one statement that locks a game on PostgreSQL and reads what a change needs
with it (``games.services.commit._lock_with_seats``): the same game, creator and
seats as the ORM reads them."""

from __future__ import annotations

import pytest
from django.db import transaction

from games.models import Seat
from games.services import commit

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]  # SQLite takes the ORM's way


def test_the_lock_gives_the_creator_and_the_seats_in_order_with_their_players(make_table):
    table = make_table(players=3, seated=2, start=False)
    with transaction.atomic():
        game, seats, replayed = commit._lock_with_seats(table.game_id, None)
    creator = table.users[0]
    assert (game.creator.pk, game.creator.username, game.creator.is_bot) == (creator.pk, creator.username, False)
    expected = list(Seat.objects.filter(game=game).select_related("player").order_by("number"))
    assert [s.number for s in seats] == [s.number for s in expected] == [0, 1, 2]
    assert [s.player and (s.player.pk, s.player.username, s.player.is_bot) for s in seats] == [
        s.player and (s.player.pk, s.player.username, s.player.is_bot) for s in expected
    ]
    assert seats[2].player is None and seats[2].player_id is None
    assert replayed is None
