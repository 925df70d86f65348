"""The ladder in the admin: moderators see entries and rounds (with their games) and
take a bot off the ladder or put it back; rounds are read only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from ladder import services
from ladder.models import LadderEntry, LadderRound

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.fixture
def root_client(make_player) -> Client:
    root = make_player("root")
    root.is_staff = root.is_superuser = True
    root.save(update_fields=["is_staff", "is_superuser"])
    client = Client()
    client.force_login(root)
    return client


def test_entries_and_rounds_are_shown_and_a_bot_is_taken_off(root_client, make_player, settings):
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    bot = make_player("robo", is_bot=True)
    services.entry_join(user=bot, table_sizes=[2, 4], max_games=1)
    ladder_round = services.round_play(slot=None, seed="admin", table_size=4)
    assert ladder_round is not None
    entries = root_client.get(reverse("admin:ladder_ladderentry_changelist"))
    assert entries.status_code == 200 and b"robo" in entries.content and b"ladder-strong" in entries.content
    page = root_client.get(reverse("admin:ladder_ladderround_change", args=[ladder_round.pk]))
    assert page.status_code == 200
    first_game = ladder_round.games.first()
    assert first_game is not None and f"game {first_game.game_id}".encode() in page.content
    assert root_client.get(reverse("admin:ladder_ladderround_add")).status_code == 403
    assert LadderRound.objects.count() == 1

    entry = LadderEntry.objects.get(user=bot)
    changelist = reverse("admin:ladder_ladderentry_changelist")
    answer = root_client.post(changelist, {"action": "take_off", "_selected_action": [entry.pk]})
    assert answer.status_code == 302
    entry.refresh_from_db()
    assert not entry.active
    root_client.post(changelist, {"action": "put_back", "_selected_action": [entry.pk]})
    entry.refresh_from_db()
    assert entry.active
