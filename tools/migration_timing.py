"""``manage.py bench_migrations --database NAME``: how long each of the repository's
migrations of a hot table (``core.migration_safety.HOT_TABLES``) takes on a seeded
database, statement by statement.

Each migration is timed from the state before it to the state after it, and the
database is left as it was found: an atomic migration runs inside one transaction
that first undoes it (its backwards SQL, untimed), then applies it (timed: every
lock it takes is held to the end of that transaction, so the sum is how long it
blocks), and rolls back; a non-atomic one (a concurrent index build) is undone
and applied for real, one statement at a time. The tables' own creation
(``0001_initial``) is left out. Refuses any database but the one named
(``tools.seed_site.check_target``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.migration_safety import GRANDFATHERED, migration_sql, problems, touches_hot_table

PROJECT_APPS = {"games", "players", "moderation", "ratings", "chat", "challenges", "matchmaking", "ladder", "analysis"}


#: The state before a migration whose own backwards SQL fails on PostgreSQL.
BEFORE = {
    # Django writes "TYPE jsonb" without the USING PostgreSQL needs from text.
    ("games", "0003_state_as_text"): ['ALTER TABLE "games_game" ALTER COLUMN "state" TYPE jsonb USING "state"::jsonb'],
}


def _statements(sql: list[str]) -> list[str]:
    return [part.strip() for statement in sql for part in statement.split(";") if part.strip()]


def hot_migrations(executor: MigrationExecutor) -> list[tuple[str, str]]:
    """The applied migrations that alter or index a hot table (not the tables' creation)."""
    applied = executor.loader.applied_migrations or {}
    return [
        key
        for key in sorted(applied)
        if not key[1].startswith("0001_") and key[0] in PROJECT_APPS and touches_hot_table(migration_sql(executor, key))
    ]


def time_migration(executor: MigrationExecutor, key: tuple[str, str]) -> list[tuple[str, float]]:
    """(statement, seconds) of migration ``key``'s forward SQL, from the state before it."""
    migration = executor.loader.graph.nodes[key]
    backwards = BEFORE.get(key) or _statements(migration_sql(executor, key, backwards=True))
    forwards = _statements(migration_sql(executor, key))
    timed: list[tuple[str, float]] = []
    with connection.cursor() as cursor:
        if migration.atomic:
            cursor.execute("BEGIN")
            try:
                for statement in backwards:
                    cursor.execute(statement)
                for statement in forwards:
                    started = time.perf_counter()
                    cursor.execute(statement)
                    timed.append((statement, time.perf_counter() - started))
            finally:
                cursor.execute("ROLLBACK")
        else:
            for statement in backwards:
                cursor.execute(statement)
            for statement in forwards:
                started = time.perf_counter()
                cursor.execute(statement)
                timed.append((statement, time.perf_counter() - started))
    return timed


def run(write: Callable[[str], Any]) -> dict[tuple[str, str], float]:
    connection.ensure_connection()
    connection.connection.autocommit = True  # BEGIN/ROLLBACK are ours; CONCURRENTLY needs no transaction
    executor = MigrationExecutor(connection)
    totals = {}
    for key in hot_migrations(executor):
        migration = executor.loader.graph.nodes[key]
        timed = time_migration(executor, key)
        totals[key] = sum(seconds for _, seconds in timed)
        kind = "atomic (one transaction)" if migration.atomic else "non-atomic"
        flag = GRANDFATHERED.get(key) or ("; ".join(problems(migration_sql(executor, key))) or "no table-long lock")
        write(f"{key[0]}.{key[1]}: {totals[key]:.2f} s, {kind}; {flag}")
        for statement, seconds in timed:
            write(f"    {seconds:8.3f} s  {statement[:150]}")
    return totals
