"""The Moderators group sees the appeals against sanctions (answering one needs
``moderation.moderate``, which the group has)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Moderators"
ADDED = (("moderation", "view_appeal"),)


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
        ("moderation", "0010_appeals"),
    ]

    operations = [migrations.RunPython(add, remove)]
