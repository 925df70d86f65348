"""The turn clock (``live.clock``, run by beat as ``ops.clock``): it plays the due
deadlines it reads from the database, leaves the others, and fires each once.
Called in this process on the real database here; the tests with a real worker
and beat are in ``tests/integration/test_bots_and_clocks.py``."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.utils import timezone

from games import services
from games.models import Game, Move, MoveSource
from live import clock
from ops import tasks
from ops.models import Heartbeat
from tests.integration.workers import session_database_url

pytestmark = pytest.mark.django_db(transaction=True)

QUICK = {"set_max": 6, "players": 2, "rounds": 1}


def clocked_table(make_player, name: str, seconds: int = 60) -> Game:
    alice, bob = make_player(f"{name}-a"), make_player(f"{name}-b")
    game = services.game_create(creator=alice, ruleset=QUICK, turn_time_limit=seconds)
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    return Game.objects.get(pk=game.pk)


def run_out(game: Game, seconds_ago: float = 1.0) -> None:
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=seconds_ago))


def test_the_clock_plays_the_due_deadlines_and_leaves_the_others(make_player):
    due, waiting = clocked_table(make_player, "due"), clocked_table(make_player, "waiting")
    run_out(due)
    assert [g for g, _, _ in clock.due_clocks()] == [due.pk]

    assert tasks.clock() == 1  # the beat task: plays, and says it ran
    moved = Move.objects.get(game=due)
    assert (moved.source, moved.seat) == (MoveSource.TIMEOUT, due.turn_seat)
    assert not Move.objects.filter(game=waiting).exists()
    beat = Heartbeat.objects.get(name=tasks.CLOCK)
    assert beat.detail["fired"] == 1 and beat.detail["failed"] == 0
    assert beat.detail["latest_lateness"] >= 1.0

    # The timeout set the next player's deadline, a minute off: nothing more is due.
    assert clock.due_clocks() == []
    assert tasks.clock() == 0
    assert Move.objects.filter(game=due).count() == 1


def test_a_deadline_fired_twice_moves_once(make_player):
    game = clocked_table(make_player, "twice")
    run_out(game)
    seq = game.seq
    first = clock.fire_due()
    assert (first.due, first.fired) == (1, 1)
    # A second run that read the game before the first committed finds it moved on.
    assert services.turn_timeout(game_id=game.pk, expected_seq=seq) is None
    assert Move.objects.filter(game=game).count() == 1


@pytest.mark.postgres
def test_a_run_leaves_the_games_to_a_run_still_firing(make_player):
    """Two runs at once (a long batch, two workers): the second finds the advisory
    lock taken and returns at once, playing nothing and recording nothing."""
    game = clocked_table(make_player, "busy")
    run_out(game)
    with psycopg.connect(session_database_url(application_name="test-clock-holder"), autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [clock.LOCK_KEY])
        run = clock.fire_due()
        assert run.busy and run.fired == 0
        assert tasks.clock() == 0
        assert not Heartbeat.objects.filter(name=tasks.CLOCK).exists()
        other.execute("SELECT pg_advisory_unlock(%s)", [clock.LOCK_KEY])
    assert not Move.objects.filter(game=game).exists()
    assert clock.fire_due().fired == 1


def test_a_timeout_that_fails_is_counted_and_the_others_still_fire(make_player, caplog):
    broken, fine = clocked_table(make_player, "broken"), clocked_table(make_player, "fine")
    run_out(broken, 2)
    run_out(fine, 1)
    Game.objects.filter(pk=broken.pk).update(state={"not": "a match"})  # the engine cannot read it
    run = clock.fire_due()
    assert (run.due, run.fired, run.failed) == (2, 1, 1)
    assert Move.objects.filter(game=fine, source=MoveSource.TIMEOUT).exists()
    assert f"the timeout of game {broken.pk}" in caplog.text
