"""Ladder rounds at the service level, on PostgreSQL: who is seated (fewest ladder
games first, ties by the round's seed), the limits outside bots set, the games a
round opens, the server's own accounts, and one round per slot even when asked
twice at once."""

from __future__ import annotations

import random
import threading
from collections import Counter
from datetime import UTC, datetime

import pytest
from django.db import connection

from bots.strategies import STRATEGIES
from games import services as game_services
from games.models import Game, GameStatus, Seat
from ladder import services
from ladder.models import LadderEntry, LadderGame, LadderRound
from ladder.services import Candidate, tables_choose
from players.models import User

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

LEVELS = sorted(STRATEGIES)


def outside_bot(make_player, name: str, *, sizes=(2, 4), max_games: int = 1) -> User:
    user = make_player(name, is_bot=True)
    services.entry_join(user=user, table_sizes=sizes, max_games=max_games)
    return user


def seated(ladder_round: LadderRound) -> list[list[int | None]]:
    """Each game's seated accounts, in seat order."""
    return [
        list(Seat.objects.filter(game_id=g).order_by("number").values_list("player_id", flat=True))
        for g in ladder_round.games.values_list("game_id", flat=True)
    ]


def counts() -> Counter[int]:
    return Counter(
        Seat.objects.filter(game__ladder_game__isnull=False)
        .exclude(game__status=GameStatus.ABORTED)
        .values_list("player_id", flat=True)
    )


# -- choosing the tables (no database) -----------------------------------------------


class FakeEntry:
    def __init__(self, user_id: int) -> None:
        self.user_id = user_id


def candidates(played: list[int]) -> list[Candidate]:
    return [Candidate(FakeEntry(i), n) for i, n in enumerate(played, start=1)]  # type: ignore[arg-type]


def test_the_fewest_games_are_seated_first_and_the_seed_breaks_ties():
    pool = candidates([3, 0, 2, 0, 1, 5, 1, 0])  # user ids 1..8
    tables = tables_choose(pool, size=2, max_tables=2, rng=random.Random("s"))
    chosen = {e.user_id for t in tables for e in t}
    # the three with 0 games, and one of the two with 1 (ids 5 and 7), chosen by the seed
    assert {2, 4, 8} < chosen and len(chosen & {5, 7}) == 1 and len(chosen) == 4
    assert all(len(t) == 2 for t in tables)
    # The same seed, the same tables (in any input order); other seeds break the tie both ways.
    again = tables_choose(list(reversed(pool)), size=2, max_tables=2, rng=random.Random("s"))
    assert [[e.user_id for e in t] for t in again] == [[e.user_id for e in t] for t in tables]
    tie_winners = {
        next(
            iter(
                {e.user_id for t in tables_choose(pool, size=2, max_tables=2, rng=random.Random(s)) for e in t} & {5, 7}
            )
        )
        for s in range(20)
    }
    assert tie_winners == {5, 7}


def test_only_full_tables_within_the_cap_and_nobody_twice():
    pool = candidates([0] * 11)
    tables = tables_choose(pool, size=4, max_tables=8, rng=random.Random(1))
    assert [len(t) for t in tables] == [4, 4]  # 11 fill two tables of 4; three wait
    ids = [e.user_id for t in tables for e in t]
    assert len(ids) == len(set(ids))
    assert len(tables_choose(pool, size=2, max_tables=3, rng=random.Random(1))) == 3


# -- the server's own accounts -------------------------------------------------------


def test_every_level_gets_one_bot_account_that_nobody_can_log_in_to(make_player):
    squatter = make_player("ladder-greedy")  # a human took the name first
    entries = services.level_entries_ensure()
    assert [e.level for e in entries] == LEVELS
    for entry in entries:
        assert entry.user.is_bot and not entry.user.has_usable_password()
        assert not entry.user.api_tokens.exists()
        assert entry.max_games is None and entry.active
    names = {e.level: e.user.username for e in entries}
    assert names["random"] == "ladder-random"
    assert names["greedy"] == "ladder-greedy-2" and squatter.pk not in {e.user_id for e in entries}
    # Idempotent: the same accounts again.
    assert [e.pk for e in services.level_entries_ensure()] == [e.pk for e in entries]
    assert User.objects.filter(username__istartswith="ladder-").count() == len(LEVELS) + 1
    creator = services.ladder_account()
    assert creator.username == "ladder" and creator.is_bot and not creator.has_usable_password()
    assert services.ladder_account() == creator
    assert not LadderEntry.objects.filter(user=creator).exists()


# -- rounds ---------------------------------------------------------------------------


def test_a_round_opens_rated_started_games_of_the_levels(settings):
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    ladder_round = services.round_play(slot=None, seed="a", table_size=2)
    assert ladder_round is not None
    games = list(Game.objects.filter(ladder_game__round=ladder_round))
    assert len(games) == len(LEVELS) // 2  # every level seated once
    levels = {e.user_id: e.level for e in LadderEntry.objects.all()}
    for game in games:
        assert game.status == GameStatus.RUNNING and game.rated and not game.practice
        assert game.creator.username == "ladder"
        assert game.bot_delay_ms == 0 and game.turn_time_limit is None  # no outside bot: no clock
        assert game.ruleset["players"] == 2 and game.ruleset["set_max"] == 6
        for seat in game.seats.all():
            assert seat.player_id in levels and seat.bot_strategy == levels[seat.player_id]
    assert sorted(p or 0 for table in seated(ladder_round) for p in table) == sorted(levels)


def test_rounds_keep_the_ladder_games_even_and_outside_bots_within_their_limits(make_player, settings):
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    settings.LADDER_TURN_SECONDS = 30
    once = outside_bot(make_player, "once", max_games=1)
    twice = outside_bot(make_player, "twice", max_games=2)
    pairs = outside_bot(make_player, "pairs", sizes=(2,), max_games=5)
    gone = outside_bot(make_player, "gone")
    services.entry_leave(user=gone)
    banned = outside_bot(make_player, "banned")
    banned.is_active = False
    banned.save(update_fields=["is_active"])
    # The outside bots never move: their games stay running, so they count against their limits.
    for number in range(6):
        ladder_round = services.round_play(slot=None, seed=f"r{number}", table_size=4)
        assert ladder_round is not None
        for table in seated(ladder_round):
            assert len(set(table)) == len(table) == 4  # one seat per account per game
            assert pairs.pk not in table  # it plays 2-player tables only
        running = counts()
        assert running[once.pk] <= 1 and running[twice.pk] <= 2
        assert running[gone.pk] == running[banned.pk] == 0
        # The levels' counts never drift apart by more than one game.
        level_counts = [running[e.user_id] for e in LadderEntry.objects.exclude(level="")]
        assert max(level_counts) - min(level_counts) <= 1
    assert counts()[once.pk] == 1 and counts()[twice.pk] == 2
    # An outside bot's table has the clock; a 2-player round seats `pairs` (it is the one with fewest games).
    clocked = Game.objects.filter(seats__player=once, ladder_game__isnull=False).get()
    assert clocked.turn_time_limit == 30
    ladder_round = services.round_play(slot=None, seed="two", table_size=2)
    assert ladder_round is not None
    assert any(pairs.pk in table for table in seated(ladder_round))


def test_a_finished_game_frees_the_outside_bots_place(make_player, settings):
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    bot = outside_bot(make_player, "solo", sizes=(2,), max_games=1)
    other = outside_bot(make_player, "duo", sizes=(2,), max_games=1)
    first = services.round_play(slot=None, seed="x", table_size=2)
    assert first is not None  # 6 levels and 2 bots: 4 tables, everyone seated
    game_id = Seat.objects.get(player=bot, game__ladder_game__round=first).game_id
    second = services.round_play(slot=None, seed="y", table_size=2)
    assert second is not None and not any(bot.pk in table for table in seated(second))
    for user in (bot, other):  # a server bot plays their seats from here
        if Seat.objects.filter(game_id=game_id, player=user).exists():
            game_services.game_resign(game_id=game_id, player=user)
    game = Game.objects.get(pk=game_id)
    while game.status == GameStatus.RUNNING:
        game_services.bot_move(game_id=game_id, expected_seq=game.seq)
        game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.FINISHED
    third = services.round_play(slot=None, seed="z", table_size=2)
    assert third is not None and any(bot.pk in table for table in seated(third))


def test_a_slot_has_one_round(settings):
    settings.LADDER_INTERVAL_SECONDS = 600
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    now = datetime(2026, 12, 2, 16, 5, tzinfo=UTC)
    first = services.round_due(now=now)
    assert first is not None and first.slot == int(now.timestamp() // 600)
    assert services.round_due(now=now) is None
    assert services.round_play(slot=first.slot, seed="again") is None
    later = services.round_due(now=datetime(2026, 12, 2, 16, 10, tzinfo=UTC))
    assert later is not None and later.slot == first.slot + 1
    assert LadderRound.objects.count() == 2
    assert [first.table_size, later.table_size] == [4, 2]  # the sizes in turn
    settings.LADDER_INTERVAL_SECONDS = 0
    assert services.round_due(now=datetime(2026, 12, 2, 17, 0, tzinfo=UTC)) is None  # the ladder is off


@pytest.mark.django_db(transaction=True)
def test_two_beats_at_once_make_one_round(settings):
    """Two tasks for the same slot, released together from a barrier, each in its own
    connection: one round, one set of games."""
    settings.LADDER_INTERVAL_SECONDS = 600
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    now = datetime(2026, 12, 2, 16, 5, tzinfo=UTC)
    barrier = threading.Barrier(2)
    results: list[object] = []
    errors: list[BaseException] = []

    def beat() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(services.round_due(now=now))
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=beat) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sum(r is not None for r in results) == 1
    assert LadderRound.objects.count() == 1
    assert LadderGame.objects.count() == Game.objects.filter(rated=True).count() == 1  # a table of 4 levels
