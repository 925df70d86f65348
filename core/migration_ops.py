"""Migration operations that keep a hot table writable on a large database.

``AddIndexConcurrently``: ``CREATE INDEX CONCURRENTLY`` on PostgreSQL (no lock that
blocks writes while the index is built; the migration must be non-atomic), a
plain ``AddIndex`` elsewhere (SQLite has no concurrent build, nor the tables of a
site that would need one). How long each build took on a seeded database is in
docs/performance.md ("Migrations at size")."""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.operations import AddIndexConcurrently as PostgresAddIndexConcurrently
from django.db.migrations.operations import AddIndex


class AddIndexConcurrently(PostgresAddIndexConcurrently):
    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)
