"""One account's games from its own index entries (docs/performance.md, "Hot paths
on a large database"), each index built concurrently:

* ``game_creator`` (creator, id): the games an account created, newest first, read
  backwards from the index alone (the lobby's "mine"); the foreign key's own index
  on creator alone then goes, dropped concurrently (the new one serves every lookup
  by creator);
* ``game_listed`` (id) of the finished, non-practice games: whether a seat's game is
  on a player's record, answered from a small index alone (the record's count and
  page look each of the player's seats up in it) instead of the game's table page.
"""

from typing import Any

from django.conf import settings
from django.db import migrations, models

import core.migration_ops

OLD_INDEX = "games_game_creator_id_35d0b68b"  # Django's name for the foreign key's index (games.0001)


def drop_old_index(apps: Any, schema_editor: Any) -> None:
    concurrently = " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f'DROP INDEX{concurrently} IF EXISTS "{OLD_INDEX}"')


def create_old_index(apps: Any, schema_editor: Any) -> None:
    concurrently = " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f'CREATE INDEX{concurrently} IF NOT EXISTS "{OLD_INDEX}" ON "games_game" ("creator_id")')


class Migration(migrations.Migration):
    atomic = False  # CREATE / DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("games", "0007_seat_player_game_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        core.migration_ops.AddIndexConcurrently(
            model_name="game",
            index=models.Index(fields=["creator", "id"], name="game_creator"),
        ),
        core.migration_ops.AddIndexConcurrently(
            model_name="game",
            index=models.Index(
                fields=["id"], condition=models.Q(status="finished", practice=False), name="game_listed"
            ),
        ),
        # The field loses its index in the state only: altering it would drop and re-add
        # the foreign key (a check of every game under a lock); the index is dropped apart.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="game",
                    name="creator",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="created_games",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_old_index, create_old_index, elidable=True)],
        ),
    ]
