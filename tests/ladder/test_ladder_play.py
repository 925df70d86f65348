"""``manage.py ladder_play``: rounds of the levels played to the end in-process, and
what it prints."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from bots.strategies import STRATEGIES
from games.models import Game, GameStatus
from ladder import services
from ladder.management.commands.ladder_play import placings
from ladder.models import LadderRound

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_placings():
    assert placings([10, 30, 20, 5], [3]) == [2, 4, 3, 1]
    assert placings([10, 10, 40], [0, 1]) == [1, 1, 3]  # a shared win
    assert placings([10, 10, 40], [1]) == [2, 1, 3]  # the tie-break chose seat 1


def test_ladder_play_plays_rounds_to_the_end_and_reports_every_level(settings, make_player):
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    outside = make_player("outsider", is_bot=True)
    out = io.StringIO()
    services.entry_join(user=outside, table_sizes=[2, 4], max_games=5)
    call_command("ladder_play", "--rounds", "2", "--seed", "t", stdout=out)
    text = out.getvalue()
    assert LadderRound.objects.count() == 2
    games = Game.objects.filter(ladder_game__isnull=False)
    assert games.count() == 1 + 3  # a table of 4, then three of 2
    assert all(g.status == GameStatus.FINISHED for g in games)
    assert not games.filter(seats__player=outside).exists()  # nobody would move it in-process
    for level in STRATEGIES:
        assert any(line.startswith(level) for line in text.splitlines()), text
    assert "4 games," in text and "seed t" in text
