"""Where quick play and challenges meet the ratings and the ladder's accounts: the
rating window reads the ratings, a seek's bots are the ladder's level accounts at
the level rated nearest the seeker, and a challenged level accepts and is played
by the server."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from challenges import services as challenge_services
from games.models import Game, GameStatus
from ladder import services as ladder_services
from ladder.models import LadderEntry
from matchmaking import hooks
from matchmaking import services as seek_services
from ratings.models import Rating, RatingPool

pytestmark = pytest.mark.django_db


def rate(user: Any, pool: str, ordinal: float) -> None:
    """A rating as rated matches would have left it (sigma 1: ordinal = mu - 3)."""
    Rating.objects.update_or_create(
        user=user,
        pool=pool,
        defaults={"mu": ordinal + 3, "sigma": 1.0, "ordinal": ordinal, "games": 12, "updated_at": timezone.now()},
    )


def test_the_rating_window_reads_the_ratings_pool_of_the_table_size(people):
    user, _ = people.player()
    assert hooks.rating_of(user, 4) == 0.0  # no rating yet: a new account's ordinal
    rate(user, RatingPool.SMALL, 17.5)
    rate(user, RatingPool.TWO, -4.0)
    assert hooks.rating_of(user, 4) == 17.5 and hooks.rating_of(user, 3) == 17.5
    assert hooks.rating_of(user, 2) == -4.0 and hooks.rating_of(user, 6) == 0.0


def test_a_seeks_bots_are_the_ladder_levels_rated_nearest_the_seeker(people):
    user, _ = people.player()
    assert hooks.level_for(user, 4) == hooks.DEFAULT_LEVEL  # no level rated yet
    levels = {entry.level: entry.user for entry in ladder_services.level_entries_ensure()}
    for ordinal, level in enumerate(sorted(levels)):
        rate(levels[level], RatingPool.SMALL, 5.0 * ordinal)  # 0, 5, 10, ...
    rate(user, RatingPool.SMALL, 5.0 * 2 + 1.0)  # nearest: the third level in name order
    nearest = sorted(levels)[2]
    assert hooks.level_for(user, 4) == nearest

    seek = seek_services.seek_create(user=user, players=3, preset="double-6-quick", wait_seconds=5)
    report = seek_services.seeks_match(now=timezone.now() + timedelta(seconds=6))
    game = Game.objects.get(pk=report.games[0])
    seats = list(game.seats.select_related("player").order_by("number"))
    assert seats[0].player == user and game.status == GameStatus.RUNNING
    # the first bot of the level is the ladder's own account of that level, the next one a second account
    assert seats[1].player == levels[nearest] and seats[1].bot_strategy == nearest
    second = seats[2].player
    assert second is not None and second.username == f"ladder-{nearest}-2" and second.is_bot
    seek.refresh_from_db()
    assert seek.status == "matched"


def test_a_challenged_ladder_level_accepts_and_the_server_plays_its_seat(people):
    user, _ = people.player()
    greedy = LadderEntry.objects.get(level="greedy", user__in=[e.user for e in ladder_services.level_entries_ensure()])
    challenge = challenge_services.challenge_create(
        creator=user, invitees=[greedy.user.username], ruleset={"set_max": 6, "players": 2, "rounds": 1}, rated=True
    )
    challenge.refresh_from_db()
    assert challenge.status == "started"
    assert challenge.game_id is not None
    game = Game.objects.get(pk=challenge.game_id)
    seat = game.seats.get(number=1)
    assert (seat.player_id, seat.bot_strategy) == (greedy.user_id, "greedy")
    assert game.rated and game.status in (GameStatus.RUNNING, GameStatus.FINISHED)
