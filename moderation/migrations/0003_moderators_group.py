"""The "Moderators" group: exactly the permissions the moderation tools need.

Looking: games, accounts, API tokens, the audit trail, reports, warnings,
sanctions and notes. Acting: ``moderation.moderate`` (every action of
``moderation.services`` checks it). Nothing else: no editing of accounts (so no
passwords), groups or permissions. ``manage.py add_moderator <username>`` puts
an account in the group (and makes it staff).
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Moderators"
PERMISSIONS = (
    ("games", "view_game"),
    ("players", "view_user"),
    ("players", "view_apitoken"),
    ("moderation", "view_auditentry"),
    ("moderation", "moderate"),
    ("moderation", "view_report"),
    ("moderation", "view_playerwarning"),
    ("moderation", "view_sanction"),
    ("moderation", "view_moderatornote"),
)


def create_group(apps, schema_editor):
    # Permissions are normally made after every migration (post_migrate): make
    # those of the apps named here now, so the group can hold them.
    for label in {app for app, _ in PERMISSIONS}:
        config = apps.get_app_config(label)
        config.models_module = True
        create_permissions(config, apps=apps, verbosity=0)
        config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    group.permissions.set(
        [Permission.objects.get(content_type__app_label=app, codename=codename) for app, codename in PERMISSIONS]
    )


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0005_game_rated"),
        ("players", "0002_user_failed_logins_user_login_locked_until"),
        ("moderation", "0002_reports_warnings_sanctions_notes"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
