"""Which migration statements would stop play on a large site.

A hot table (the move and event logs, the games, their seats, the accounts) is
written by every move or log-in. A statement that holds a lock on one for as long
as the table takes to read or rewrite - at a million accounts and ten million log
rows, seconds to minutes - stops play for that long. Such a statement is one of:

* a plain ``CREATE INDEX`` (``AddIndex``, ``db_index=True``, a ``UniqueConstraint``):
  writes wait for the whole build; ``core.migration_ops.AddIndexConcurrently`` lets
  them go on;
* ``ALTER COLUMN ... TYPE``: rewrites the table under its strongest lock;
* ``SET NOT NULL``, or a ``FOREIGN KEY`` or ``CHECK`` constraint added without
  ``NOT VALID`` (a column added with a ``CHECK``, e.g. a ``PositiveIntegerField``):
  reads every row under the lock;
* ``ADD CONSTRAINT ... UNIQUE`` / ``PRIMARY KEY`` (without ``USING INDEX``): an index
  build under the lock;
* ``ADD COLUMN`` with a volatile default (``now()``, a random value): a rewrite.

``problems`` finds them in a migration's SQL (as ``sqlmigrate`` writes it, on
PostgreSQL); ``tests/contract/test_migration_locks.py`` refuses a new migration
with one, and ``manage.py bench_migrations`` times the repository's migrations of
the hot tables on a seeded database (docs/performance.md, "Migrations at size").
"""

from __future__ import annotations

import re
from typing import Any

#: The tables every move, game or log-in writes.
HOT_TABLES = ("games_move", "games_event", "games_game", "games_seat", "players_user")

#: Migrations written before this check, with what they do to a hot table (timed at
#: size in docs/performance.md, "Migrations at size"); every later one must pass.
GRANDFATHERED = {
    ("games", "0001_initial"): "creates the tables (empty)",
    ("players", "0001_initial"): "creates the table (empty)",
    ("games", "0003_state_as_text"): "rewrites games_game (the state column jsonb -> text)",
    ("games", "0006_no_separate_game_indexes"): "re-adds the move and event logs' game foreign keys (a full check)",
    ("players", "0002_user_failed_logins_user_login_locked_until"): "a column with a CHECK (a full read)",
}

_TABLE = r'"(?P<table>[a-z0-9_]+)"'
_RULES = [
    (re.compile(rf"^CREATE (UNIQUE )?INDEX (?!CONCURRENTLY)\S+ ON {_TABLE}", re.I), "a plain CREATE INDEX"),
    (re.compile(rf"^ALTER TABLE {_TABLE} .*ALTER COLUMN \S+ TYPE ", re.I | re.S), "ALTER COLUMN TYPE (a rewrite)"),
    (re.compile(rf"^ALTER TABLE {_TABLE} .*SET NOT NULL", re.I | re.S), "SET NOT NULL (a full read)"),
    (
        re.compile(rf"^ALTER TABLE {_TABLE} .*ADD CONSTRAINT \S+ (FOREIGN KEY|CHECK)(?!.*NOT VALID)", re.I | re.S),
        "a FOREIGN KEY or CHECK without NOT VALID (a full read)",
    ),
    (
        re.compile(rf"^ALTER TABLE {_TABLE} .*ADD CONSTRAINT \S+ (UNIQUE|PRIMARY KEY) \(", re.I | re.S),
        "a UNIQUE or PRIMARY KEY constraint (an index built under the lock)",
    ),
    (re.compile(rf"^ALTER TABLE {_TABLE} ADD COLUMN .* CHECK ", re.I | re.S), "a column with a CHECK (a full read)"),
    (
        re.compile(rf"^ALTER TABLE {_TABLE} ADD COLUMN .* DEFAULT .*\b(now|random|gen_random_uuid|clock_timestamp)\(", re.I | re.S),
        "a column with a volatile default (a rewrite)",
    ),
]  # fmt: skip
_CREATED = re.compile(rf"^CREATE TABLE {_TABLE}", re.I)


def problems(statements: list[str]) -> list[str]:
    """What in ``statements`` (one migration's SQL) locks a hot table for a table's
    worth of work; a table the same statements create is not yet hot."""
    created = {m["table"] for s in statements if (m := _CREATED.match(s.strip()))}
    found = []
    for statement in statements:
        for part in statement.split(";"):  # "SET CONSTRAINTS ...; ALTER TABLE ..." is one entry
            part = part.strip()
            for rule, what in _RULES:
                match = rule.match(part)
                if match and match["table"] in HOT_TABLES and match["table"] not in created:
                    found.append(f"{what}: {part[:200]}")
    return found


def migration_sql(executor: Any, key: tuple[str, str], *, backwards: bool = False) -> list[str]:
    """The SQL of migration ``key`` as ``sqlmigrate`` writes it (``executor``: a
    ``MigrationExecutor`` on the connection whose dialect is wanted)."""
    migration = executor.loader.graph.nodes[key]
    collected = executor.loader.collect_sql([(migration, backwards)])
    return [s for s in collected if not s.startswith("--")]


def touches_hot_table(statements: list[str]) -> bool:
    """Does any statement alter, index or drop an index of a hot table (not merely
    reference one, as a new table's foreign key does)?"""
    target = re.compile(
        r'^(ALTER TABLE|CREATE (UNIQUE )?INDEX( CONCURRENTLY)? \S+ ON|DROP INDEX( CONCURRENTLY)?( IF EXISTS)?) "(?P<name>[a-z0-9_]+)"',
        re.I,
    )
    for statement in statements:
        for part in statement.split(";"):
            match = target.match(part.strip())
            if match and match["name"].startswith(HOT_TABLES) and not _CREATED.match(part.strip()):
                return True
    return False
