"""A player's seats in game order from one index, (player, game), built concurrently;
then the foreign key's own index on player alone goes, dropped concurrently (it
would be a second index to write with every seat, and the new one serves every
lookup by player). docs/performance.md, "Migrations at size"."""

from typing import Any

from django.conf import settings
from django.db import migrations, models

import core.migration_ops

OLD_INDEX = "games_seat_player_id_15ebc6ad"  # Django's name for the foreign key's index (games.0001)


def drop_old_index(apps: Any, schema_editor: Any) -> None:
    concurrently = " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f'DROP INDEX{concurrently} IF EXISTS "{OLD_INDEX}"')


def create_old_index(apps: Any, schema_editor: Any) -> None:
    concurrently = " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f'CREATE INDEX{concurrently} IF NOT EXISTS "{OLD_INDEX}" ON "games_seat" ("player_id")')


class Migration(migrations.Migration):
    atomic = False  # CREATE / DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("games", "0006_no_separate_game_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        core.migration_ops.AddIndexConcurrently(
            model_name="seat",
            index=models.Index(fields=["player", "game"], name="seat_player_game"),
        ),
        # The field loses its index in the state only: altering it would drop and re-add
        # the foreign key (a check of every seat under a lock); the index is dropped apart.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="seat",
                    name="player",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=models.deletion.PROTECT,
                        related_name="seats",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_old_index, create_old_index, elidable=True)],
        ),
    ]
