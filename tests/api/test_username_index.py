"""Looking an account up by its name, regardless of case (every log-in, every
player page), reads an index, not the whole account table: at a million accounts
a scan took over a second (docs/performance.md, "Hot paths on a large database")."""

from __future__ import annotations

import pytest
from django.db import connection

from players.models import User

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_the_case_insensitive_name_lookup_has_an_index(make_player):
    make_player("Alice")
    query = User.objects.filter(username__iexact="ALICE").order_by("pk")[:1]
    assert list(query) == [User.objects.get(username="Alice")]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a handful of rows: make the planner show what it could use
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL enable_indexscan = on")
        sql, params = User.objects.filter(username__iexact="ALICE").values("pk").query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "players_user_username_upper" in plan, plan
