"""The index of UPPER(username), built concurrently (docs/performance.md, "Migrations at size")."""

import django.db.models.functions.text
from django.db import migrations, models

import core.migration_ops


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("players", "0004_user_deleted_at"),
    ]

    operations = [
        core.migration_ops.AddIndexConcurrently(
            model_name="user",
            index=models.Index(django.db.models.functions.text.Upper("username"), name="players_user_username_upper"),
        ),
        # The planner uses an expression index only once it has the expression's statistics.
        migrations.RunSQL("ANALYZE players_user", migrations.RunSQL.noop, elidable=True),
    ]
