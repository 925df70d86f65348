"""No new migration locks a hot table for a table's worth of work (issue 45): at a
million accounts and ten million log rows a plain index build, a rewrite or a
full check of ``games_move``, ``games_event``, ``games_game``, ``games_seat`` or
``players_user`` stops play for seconds to minutes (docs/performance.md,
"Migrations at size"; the rules are ``core.migration_safety``'s). Read from each
migration's SQL as ``sqlmigrate`` writes it on PostgreSQL."""

from __future__ import annotations

import pytest
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import connection, migrations, models
from django.db.migrations.executor import MigrationExecutor

from core.migration_safety import GRANDFATHERED, migration_sql, problems

# transaction=True: a concurrent index build is refused inside a transaction, even when only written out.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PROJECT_APPS = {
    "analysis", "bots", "challenges", "chat", "core", "games", "ladder", "live", "matchmaking", "moderation",
    "players", "ratings",
}  # fmt: skip


def _probe_sql(executor: MigrationExecutor, app: str, operations: list, *, atomic: bool = True) -> list[str]:
    """The SQL of a made-up next migration of ``app`` with ``operations``."""
    leaf = max(key for key in executor.loader.graph.leaf_nodes() if key[0] == app)
    probe = type("Migration", (migrations.Migration,), {"dependencies": [leaf], "operations": operations})(
        "9999_probe", app
    )
    probe.atomic = atomic
    state = executor.loader.project_state(leaf, at_end=True)
    with connection.schema_editor(collect_sql=True, atomic=atomic) as editor:
        probe.apply(state, editor, collect_sql=True)
    return list(editor.collected_sql)


def test_no_migration_locks_a_hot_table_but_the_grandfathered_ones():
    executor = MigrationExecutor(connection)
    found = {}
    for key in sorted(executor.loader.graph.nodes):
        if key[0] in PROJECT_APPS:
            bad = problems(migration_sql(executor, key))
            if bad:
                found[key] = bad
    unexpected = {key: bad for key, bad in found.items() if key not in GRANDFATHERED}
    assert not unexpected, (
        "a migration would lock a hot table while it reads or rewrites it; build indexes with "
        f"core.migration_ops.AddIndexConcurrently, add constraints NOT VALID and validate apart: {unexpected}"
    )
    # The list stays exact: an entry whose migration no longer does it goes.
    assert set(GRANDFATHERED) - {("games", "0001_initial"), ("players", "0001_initial")} == set(found)


@pytest.mark.parametrize(
    ("app", "operation"),
    [
        ("games", migrations.AddIndex("move", models.Index(fields=["seq"], name="move_probe_seq"))),
        ("games", migrations.AddField("event", "probe", models.IntegerField(null=True, db_index=True))),
        ("games", migrations.AddField("seat", "probe", models.PositiveIntegerField(default=0))),
        ("games", migrations.AlterField("game", "abort_reason", models.CharField(max_length=200, blank=True))),
        (
            "games",
            migrations.AddConstraint("game", models.UniqueConstraint(fields=["seed", "id"], name="game_probe_unique")),
        ),
        ("players", migrations.AddField("user", "probe", models.DateTimeField(null=True))),
    ],
    ids=["AddIndex", "db_index", "CHECK column", "type change", "UniqueConstraint", "fine: a nullable column"],
)
def test_the_check_refuses_what_locks_and_passes_what_does_not(app, operation):
    """Each rule catches the change it is for (and a harmless one passes)."""
    found = problems(_probe_sql(MigrationExecutor(connection), app, [operation]))
    if operation.describe().startswith("Add field probe to user"):
        assert found == []
    else:
        assert found, operation.describe()


def test_a_concurrent_index_passes():
    operation = AddIndexConcurrently("move", models.Index(fields=["seq"], name="move_probe_seq"))
    sql = _probe_sql(MigrationExecutor(connection), "games", [operation], atomic=False)
    assert any("CONCURRENTLY" in s for s in sql) and problems(sql) == []
