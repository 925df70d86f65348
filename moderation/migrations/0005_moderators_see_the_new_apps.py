"""The Moderators group also sees what the apps built on games keep: ratings and
their changes (a void is a moderation action), quick play's seeks, challenges
and the bot ladder's entries and rounds; it may cancel challenges and take a bot
off the ladder (those admin actions need the change permission). Cancelling a
seek needs ``moderation.moderate``, which the group has."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Moderators"
ADDED = (
    ("ratings", "view_rating"),
    ("ratings", "view_ratingchange"),
    ("matchmaking", "view_seek"),
    ("challenges", "view_challenge"),
    ("challenges", "change_challenge"),
    ("ladder", "view_ladderentry"),
    ("ladder", "change_ladderentry"),
    ("ladder", "view_ladderround"),
)


def _permissions(apps):
    for label in {app for app, _ in ADDED}:
        config = apps.get_app_config(label)
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Permission = apps.get_model("auth", "Permission")
    return [Permission.objects.get(content_type__app_label=app, codename=codename) for app, codename in ADDED]


def add(apps, schema_editor):
    group, _ = apps.get_model("auth", "Group").objects.get_or_create(name=GROUP)
    group.permissions.add(*_permissions(apps))


def remove(apps, schema_editor):
    group = apps.get_model("auth", "Group").objects.filter(name=GROUP).first()
    if group is not None:
        group.permissions.remove(*_permissions(apps))


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0004_auditentry_action_rating_void"),
        ("ratings", "0001_initial"),
        ("matchmaking", "0001_initial"),
        ("challenges", "0001_initial"),
        ("ladder", "0001_initial"),
    ]

    operations = [migrations.RunPython(add, remove)]
