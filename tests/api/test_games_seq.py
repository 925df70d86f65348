"""The game's seq always names its last stored event, whatever changed it."""

from __future__ import annotations

import pytest
from django.db.models import Max

from games import services
from games.models import Event, Game

pytestmark = pytest.mark.django_db


def assert_seq_is_last_event(game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    last = Event.objects.filter(game=game).aggregate(last=Max("seq"))["last"]
    assert game.seq == last
    assert list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)) == list(
        range(1, last + 1)
    )


@pytest.mark.parametrize("sit", [True, False])
def test_every_lobby_change_keeps_seq_at_the_last_event(make_player, sit):
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 3}, sit=sit)
    assert_seq_is_last_event(game.pk)
    for step in (
        lambda: services.game_join(game_id=game.pk, player=bob),
        lambda: services.game_leave(game_id=game.pk, player=bob),
        lambda: services.game_add_bot(game_id=game.pk, by=alice, strategy="random"),
        lambda: services.game_join(game_id=game.pk, player=bob),
        lambda: services.game_add_bot(game_id=game.pk, by=alice, strategy="greedy") if not sit else None,
        lambda: services.game_start(game_id=game.pk, by=alice),
    ):
        step()
        assert_seq_is_last_event(game.pk)
