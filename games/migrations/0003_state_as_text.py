"""The engine state becomes PostgreSQL ``text`` (see ``DocumentField``), lz4-compressed
where the server supports it (PostgreSQL 14+ built with lz4)."""

from django.db import migrations

import games.models


def compress_with_lz4(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    connection = schema_editor.connection
    if connection.vendor != "postgresql" or connection.pg_version < 140000:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")
        row = cursor.fetchone()
        if row and row[0]:
            cursor.execute("ALTER TABLE games_game ALTER COLUMN state SET COMPRESSION lz4")


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0002_game_moderated'),
    ]

    operations = [
        migrations.AlterField(
            model_name='game',
            name='state',
            field=games.models.DocumentField(blank=True, help_text="The engine's full state (hidden parts included).", null=True),
        ),
        migrations.RunPython(compress_with_lz4, migrations.RunPython.noop),
    ]
