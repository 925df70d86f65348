"""The Moderators group (made by a migration, joined with ``manage.py
add_moderator``): a member can do every moderator job and nothing else, and a
refusal inside the admin is an admin page, not a problem document."""

from __future__ import annotations

import importlib
import re
from typing import Any
from urllib.parse import urljoin

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test import Client
from django.urls import reverse

from moderation import services as moderation
from moderation.models import AuditEntry, ModeratorNote, PlayerWarning, Sanction
from players.models import ApiToken, User
from tests.moderation.conftest import game_admin_url, run_list_action

pytestmark = pytest.mark.django_db

#: Exactly what the group holds (the migration's list).
GROUP_PERMISSIONS = {
    "games.view_game",
    "players.view_user",
    "players.view_apitoken",
    "moderation.view_auditentry",
    "moderation.moderate",
    "moderation.view_report",
    "moderation.view_playerwarning",
    "moderation.view_sanction",
    "moderation.view_moderatornote",
    "moderation.view_appeal",
    "ratings.view_rating",
    "ratings.view_ratingchange",
    "matchmaking.view_seek",
    "challenges.view_challenge",
    "challenges.change_challenge",
    "ladder.view_ladderentry",
    "ladder.change_ladderentry",
    "ladder.view_ladderround",
    "chat.view_chatmessage",
}
USERS = reverse("admin:players_user_changelist")


@pytest.fixture
def member(make_player: Any) -> User:
    user = make_player("newmod")
    call_command("add_moderator", "NEWMOD", stdout=open("/dev/null", "w"))  # noqa: SIM115 - usernames ignore case
    return User.objects.get(pk=user.pk)


@pytest.fixture
def member_client(member: User) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_the_group_holds_exactly_the_moderation_permissions(member: User) -> None:
    group = Group.objects.get(name="Moderators")
    held = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}
    assert held == GROUP_PERMISSIONS
    assert member.is_staff and not member.is_superuser and not member.user_permissions.exists()
    assert member.get_all_permissions() == GROUP_PERMISSIONS
    # Every other permission in the project is outside the group.
    others = Permission.objects.exclude(group=group)
    assert others.count() == Permission.objects.count() - len(GROUP_PERMISSIONS)


def _group_as_the_migrations_make_it() -> Group:
    """The Moderators group as migrations 0003, 0005 and 0007 left it; made again by
    them (on their own historical models) when a test that committed for real,
    which empties every table, ran before."""
    if not Group.objects.filter(name="Moderators").exists():
        loader = MigrationLoader(connection)
        for name, function in (
            ("0003_moderators_group", "create_group"),
            ("0005_moderators_see_the_new_apps", "add"),
            ("0007_moderators_see_the_chat", "add"),
        ):
            historical = loader.project_state(("moderation", name)).apps
            getattr(importlib.import_module(f"moderation.migrations.{name}"), function)(historical, None)
    return Group.objects.get(name="Moderators")


def test_the_migration_and_the_service_agree_on_the_group() -> None:
    group = _group_as_the_migrations_make_it()
    assert set(moderation.MODERATOR_PERMISSIONS) == GROUP_PERMISSIONS
    group.permissions.add(Permission.objects.get(codename="change_user"))  # someone widened it by hand
    group = moderation.moderators_group_sync()  # add_moderator puts it right
    assert {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()} == GROUP_PERMISSIONS


def test_add_moderator_is_idempotent_and_refuses_an_unknown_name(member: User) -> None:
    call_command("add_moderator", member.username, stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert list(member.groups.values_list("name", flat=True)) == ["Moderators"]
    with pytest.raises(CommandError, match="no account"):
        call_command("add_moderator", "nobody")


def test_a_member_does_every_moderator_job(member: User, member_client: Client, make_table: Any, people: Any) -> None:
    client = member_client
    # Looking: every list of the moderation tools.
    for name in (
        "games_game",
        "players_user",
        "players_apitoken",
        "moderation_auditentry",
        "moderation_report",
        "moderation_playerwarning",
        "moderation_sanction",
        "moderation_moderatornote",
        "ratings_rating",
        "ratings_ratingchange",
        "matchmaking_seek",
        "challenges_challenge",
        "ladder_ladderentry",
        "ladder_ladderround",
        "chat_chatmessage",
    ):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 200, name
    # Games: reveal hands (audited), replay, hand a seat to a bot, abort (one and in bulk).
    table = make_table(players=3)
    assert client.get(game_admin_url(table.game_id, "replay")).status_code == 200
    assert client.post(game_admin_url(table.game_id, "hands"), {"reason": "check"}).status_code == 200
    done = client.post(
        game_admin_url(table.game_id, "seat_to_bot"), {"seat": "2", "strategy": "greedy", "reason": "left"}
    )
    assert done.status_code == 302 and table.game().seats.get(number=2).bot_strategy == "greedy"
    assert client.post(game_admin_url(table.game_id, "abort"), {"reason": "stuck"}).status_code == 302
    assert table.game().status == "aborted"
    second, third = make_table(), make_table()
    games = reverse("admin:games_game_changelist")
    assert (
        run_list_action(client, games, "abort_selected", [second.game_id, third.game_id], reason="x").status_code == 302
    )
    assert {second.game().status, third.game().status} == {"aborted"}
    # Accounts: suspend, reinstate, revoke tokens, mark as a bot, note, warn, mute.
    player, _ = people.player()
    for action in ("suspend", "unsuspend", "revoke_tokens", "mark_bot", "unmark_bot"):
        assert run_list_action(client, USERS, action, [player.pk], reason="matrix").status_code == 302, action
    assert ApiToken.objects.filter(user=player, revoked_at__isnull=True).count() == 0
    note = reverse("admin:players_user_note", args=[player.pk])
    assert client.post(note, {"text": "Known to rage-quit."}).status_code == 302
    sanction = reverse("admin:players_user_sanction", args=[player.pk])
    for measure in ("warn", "mute", "unmute"):
        assert client.post(sanction, {"measure": measure, "period": "24", "reason": "m"}).status_code == 302, measure
    assert ModeratorNote.objects.filter(player=player).count() == 1
    assert PlayerWarning.objects.filter(player=player).count() == 1
    assert Sanction.objects.filter(player=player, kind="mute", lifted_at__isnull=False).count() == 1
    # Reports: assign, then an outcome.
    reporter, _ = people.player()
    filed = moderation.report_create(reporter=reporter, reason="spam", account=player)
    page = reverse("admin:moderation_report_change", args=[filed.pk])
    assert client.get(page).status_code == 200
    assert client.post(page, {"outcome": "assign"}).status_code == 302
    assert client.post(page, {"outcome": "dismiss", "reason": "fine", "duration": "24"}).status_code == 302
    filed.refresh_from_db()
    assert (filed.status, filed.outcome, filed.assignee) == ("resolved", "dismissed", member)
    # All of it is in the audit trail under the member's name.
    assert AuditEntry.objects.filter(moderator=member).count() >= 15
    assert not AuditEntry.objects.exclude(moderator=member).exists()


def _is_admin_page(response: Any, status: int) -> None:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html"), response["Content-Type"]
    text = response.content.decode()
    assert 'id="site-name"' in text and "admin-error" in text, text[:500]


def test_a_member_can_do_nothing_else_and_is_told_so_in_admin_pages(
    member: User, member_client: Client, make_table: Any, people: Any
) -> None:
    client = member_client
    player, _ = people.player()
    table = make_table()
    change_user = reverse("admin:players_user_change", args=[player.pk])
    # The account page is readable, with no "Reset password" link; the page itself refuses.
    page = client.get(change_user)
    assert page.status_code == 200 and b'name="username"' not in page.content  # read-only
    links = {urljoin(change_user, link) for link in re.findall(r'href="([^"]*password/)"', page.content.decode())}
    password = f"/admin/players/user/{player.pk}/password/"
    assert links == set(), links
    _is_admin_page(client.get(password), 403)
    _is_admin_page(client.post(password, {"password1": "x" * 20, "password2": "x" * 20}), 403)
    # Accounts, groups and permissions cannot be edited, made or deleted.
    forbidden_gets = [
        reverse("admin:players_user_add"),
        reverse("admin:players_user_delete", args=[player.pk]),
        reverse("admin:auth_group_changelist"),
        reverse("admin:auth_group_add"),
        reverse("admin:auth_group_change", args=[Group.objects.get(name="Moderators").pk]),
        reverse("admin:games_game_delete", args=[table.game_id]),
        reverse("admin:players_apitoken_add"),
        reverse("admin:moderation_auditentry_add"),
    ]
    for url in forbidden_gets:
        _is_admin_page(client.get(url), 403)
    _is_admin_page(client.post(change_user, {"username": "renamed", "is_superuser": "on"}), 403)
    _is_admin_page(client.post(reverse("admin:games_game_change", args=[table.game_id]), {"status": "finished"}), 403)
    player.refresh_from_db()
    member.refresh_from_db()
    assert (player.username, player.is_superuser) != ("renamed", True) and not member.is_superuser
    assert member.get_all_permissions() == GROUP_PERMISSIONS
    # The admin's index lists no auth app (groups) for a member.
    assert b"/admin/auth/group/" not in client.get("/admin/").content
    # An unknown admin address is an admin page too; the API keeps its problem documents.
    _is_admin_page(client.get("/admin/players/nothing-here/"), 404)
    assert client.get("/api/v1/nowhere/")["Content-Type"].startswith("application/problem+json")
