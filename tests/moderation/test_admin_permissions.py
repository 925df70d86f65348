"""Who reaches the admin, who may act, and the audit trail that nobody edits."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from core.errors import ApiError
from moderation import services as moderation
from moderation.models import AuditEntry
from tests.api.games_helpers import view
from tests.moderation.conftest import game_admin_url

pytestmark = pytest.mark.django_db
GAMES = reverse("admin:games_game_changelist")
USERS = reverse("admin:players_user_changelist")
AUDIT = reverse("admin:moderation_auditentry_changelist")
GAME_PAGES = ("abort", "seat_to_bot", "seat_remove", "hands")


@pytest.fixture
def viewer(make_staff: Any) -> Client:
    """Staff who may look at everything but act on nothing."""
    client = Client()
    client.force_login(make_staff("watcher", moderate=False))
    return client


def test_players_and_visitors_are_sent_to_the_login_page(make_player: Any, make_table: Any) -> None:
    table = make_table()
    player = Client()
    player.force_login(make_player("mallory"))
    for client in (player, Client()):
        for url in ("/admin/", GAMES, game_admin_url(table.game_id), game_admin_url(table.game_id, "abort"), AUDIT):
            response = client.get(url)
            assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), url
        response = client.post(game_admin_url(table.game_id, "abort"), {"reason": "x"})
        assert response.status_code == 302
    assert table.game().status == "running"


def test_staff_without_the_moderate_permission_may_look_but_not_act(
    viewer: Client, make_table: Any, people: Any
) -> None:
    table = make_table()
    assert viewer.get(GAMES).status_code == 200
    page = viewer.get(game_admin_url(table.game_id))
    assert page.status_code == 200 and b"tool-abort" not in page.content and b"tool-hands" not in page.content
    for name in GAME_PAGES:
        assert viewer.get(game_admin_url(table.game_id, name)).status_code == 403, name
        assert viewer.post(game_admin_url(table.game_id, name), {"reason": "x", "seat": "1"}).status_code == 403, name
    # The list actions are not offered, and posting one does nothing.
    assert b'value="abort_selected"' not in viewer.get(GAMES).content
    viewer.post(
        GAMES,
        {
            "action": "abort_selected",
            "_selected_action": [str(table.game_id)],
            "index": "0",
            "apply": "1",
            "reason": "x",
        },
    )
    player, client = people.player()
    users = viewer.get(USERS)
    assert users.status_code == 200 and b'value="suspend"' not in users.content
    viewer.post(
        USERS, {"action": "suspend", "_selected_action": [str(player.pk)], "index": "0", "apply": "1", "reason": "x"}
    )
    assert view(client, table.game_id)["game"]["status"] == "running"
    player.refresh_from_db()
    assert player.is_active and not AuditEntry.objects.exists()


def test_the_services_refuse_staff_without_the_moderate_permission(make_staff: Any, make_table: Any) -> None:
    table = make_table()
    watcher = make_staff("watcher", moderate=False)
    for act in (
        lambda: moderation.moderation_game_abort(game_id=table.game_id, by=watcher, reason="x"),
        lambda: moderation.moderation_hands_view(game_id=table.game_id, by=watcher),
        lambda: moderation.moderation_player_suspend(player=table.users[1], by=watcher, reason="x"),
    ):
        with pytest.raises(ApiError) as refusal:
            act()
        assert refusal.value.code == "permission_denied"
    assert table.game().status == "running" and not AuditEntry.objects.exists()


def test_the_audit_trail_cannot_be_added_changed_or_deleted(
    mod_client: Client, make_table: Any, superuser_client: Client
) -> None:
    table = make_table()
    assert mod_client.post(game_admin_url(table.game_id, "abort"), {"reason": "stuck"}).status_code == 302
    entry = AuditEntry.objects.get()
    change = reverse("admin:moderation_auditentry_change", args=[entry.pk])
    delete = reverse("admin:moderation_auditentry_delete", args=[entry.pk])
    for client in (mod_client, superuser_client):
        listing = client.get(AUDIT)
        assert listing.status_code == 200 and b"stuck" in listing.content
        assert b'name="action"' not in listing.content  # no actions at all, so no "delete selected"
        assert client.get(change).status_code == 200  # readable
        assert client.post(change, {"reason": "nothing happened", "action": "bot_mark"}).status_code == 403
        assert client.get(delete).status_code == 403
        assert client.post(delete, {"post": "yes"}).status_code == 403
        assert client.get(reverse("admin:moderation_auditentry_add")).status_code == 403
        client.post(AUDIT, {"action": "delete_selected", "_selected_action": [str(entry.pk)], "post": "yes"})
    entry.refresh_from_db()
    assert (entry.reason, entry.action) == ("stuck", "game_abort")
    # The game's page shows its audit entries.
    assert b"stuck" in mod_client.get(game_admin_url(table.game_id)).content
