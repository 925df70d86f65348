"""A player's finished games (``GET /games/?player=<name>``, a profile's list) are
counted from the player's seats (the (player, game) index), each looking its
game up by key: a semi-join of
the games read the whole games table for a busy player (a sequential scan of
100,000 games, 170-230 ms at the full-size seed; docs/performance.md, "Hot paths
on a large database")."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors
from games.models import Game
from tests.api.games_helpers import GAMES, ok, play_to_end

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_the_count_reads_the_players_seats_and_each_game_by_key(api_client, make_table):
    table = make_table()
    play_to_end(table, random.Random(1))
    alice = table.users[0]
    make_table()  # a running game of someone else's: not counted, not read
    with CaptureQueriesContext(connection) as captured:
        body = ok(api_client.get(GAMES, {"player": alice.username}))
    assert body["count"] == 1 == selectors.player_game_count(player=alice)
    assert Game.objects.get(pk=table.game_id).status == "finished"
    counts = [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    assert len(counts) == 1 and 'FROM "games_seat"' in counts[0], counts
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a handful of rows: show what the planner could use
        cursor.execute(f"EXPLAIN {counts[0]}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    # The games are looked up one seat at a time by their key: no join that could read the whole table.
    assert "SubPlan" in plan, plan
    # The player's seats come from the (player, game) index (games.0007).
    assert "seat_player_game" in plan, plan
    assert "Join" not in plan and "Seq Scan on games_game" not in plan, plan


def test_my_games_are_counted_from_the_two_indexes_alone(make_table):
    """``/games/?mine=true``: the union of the account's seats and the games it created,
    counted as ids (no game row read per game: 2,946 lookups for the busiest account)."""
    seated = make_table()  # alice sits (and created it)
    alice, bob = seated.users[0], seated.users[1]
    make_table(start=False)  # someone else's open table
    client = seated.clients[0]
    with CaptureQueriesContext(connection) as captured:
        body = ok(client.get(GAMES, {"mine": "true"}))
    assert body["count"] == len(body["results"]) == 1 == selectors.mine_game_count(user=alice)
    counts = [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    assert len(counts) == 1 and "UNION" in counts[0], counts
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {counts[0]}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "games_game_pkey" not in plan and "seat_player_game" in plan, plan
    # A list that is neither is counted as listed: another player's games that are mine too.
    body = ok(client.get(GAMES, {"mine": "true", "player": bob.username}))
    assert body["count"] == len(body["results"]) == 0  # the game is running, not finished
    body = ok(client.get(GAMES, {"mine": "true", "status": "running"}))
    assert body["count"] == len(body["results"]) == 1
