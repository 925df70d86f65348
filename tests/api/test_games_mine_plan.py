"""The lobby's "my games" (``GET /games/?mine=true``) finds the account's games by
the creator and seat indexes, not by testing every game of the site: an OR of the
two read the whole games table (docs/performance.md, "Hot paths on a large
database")."""

from __future__ import annotations

import pytest
from django.db import connection

from games import selectors

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_my_games_are_read_by_index(make_player):
    alice = make_player("alice")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a handful of rows: show what the planner could use
        sql, params = selectors.game_list(mine_of=alice).values("pk").query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "OR" not in plan and "game_creator" in plan, plan
