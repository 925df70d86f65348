"""Sanctions players understand: the reason and the end wherever the player meets the
sanction (the log-in refusal - only for the right password -, ``/me/``, the chat's
refusal), and one appeal per sanction, answered by another moderator than the one
who imposed it (enforced, in the admin too)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from moderation import services as moderation
from moderation.models import Appeal, AuditEntry
from tests.api.games_helpers import ok, refused
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

TOKENS, ME, APPEALS = "/api/v1/tokens/", "/api/v1/me/", "/api/v1/appeals/"


def group_moderator(make_player: Any, name: str) -> Any:
    """A member of the Moderators group, as ``add_moderator`` makes one."""
    user = make_player(name)
    moderation.moderator_add(user=user)
    return type(user).objects.get(pk=user.pk)


def log_in(username: str, password: str = PASSWORD) -> Any:
    return APIClient().post(TOKENS, {"username": username, "password": password, "name": "x"}, format="json")


def test_a_suspended_player_is_told_why_and_until_when_and_appeals(make_player: Any) -> None:
    first, second = group_moderator(make_player, "mod1"), group_moderator(make_player, "mod2")
    alice = make_player("alice")
    until = timezone.now() + timedelta(hours=5)
    moderation.moderation_player_suspend(player=alice, by=first, reason="spam adverts in the chat", until=until)

    # A guesser learns nothing; the right password learns the reason and the end.
    guess = refused(log_in("alice", "a guess"), 401, "invalid_credentials")
    assert "spam" not in str(guess)
    body = refused(log_in("alice"), 403, "suspended")
    assert body["reason"] == "spam adverts in the chat"
    assert body["until"] == until.isoformat()
    assert "spam adverts in the chat" in body["detail"]

    # One appeal per sanction, without signing in (the refusal's token).
    appeal = ok(APIClient().post(APPEALS, {"appeal_token": body["appeal_token"], "text": "it was my brother"}), 201)
    assert (appeal["status"], appeal["sanction"]) == ("open", body["sanction"])
    refused(APIClient().post(APPEALS, {"appeal_token": body["appeal_token"], "text": "again"}), 409, "appeal_exists")
    refused(APIClient().post(APPEALS, {"appeal_token": "forged", "text": "let me in"}), 404, "not_found")

    # The moderator who suspended cannot answer it (page nor service); another lifts it.
    row = Appeal.objects.get()
    own = Client()
    own.force_login(first)
    page = own.post(reverse("admin:moderation_appeal_answer", args=[row.pk]), {"decision": "lift", "answer": "ok"})
    assert page.status_code == 200 and b"appeal_own_sanction" in page.content
    queue = Client()
    queue.force_login(second)
    listing = queue.get(reverse("admin:moderation_appeal_changelist"))
    assert listing.status_code == 200 and b"it was my brother" in listing.content
    done = queue.post(
        reverse("admin:moderation_appeal_answer", args=[row.pk]), {"decision": "lift", "answer": "Fair enough."}
    )
    assert done.status_code == 302
    row.refresh_from_db()
    assert (row.status, row.answered_by) == ("lifted", second)
    assert AuditEntry.objects.filter(action="appeal_answer", moderator=second, player=alice).exists()
    ok(log_in("alice"), 201)  # reinstated


def test_a_muted_player_sees_the_reason_on_me_and_in_the_chat_refusal_and_appeals(
    make_table: Any, make_player: Any
) -> None:
    moderator = group_moderator(make_player, "mod1")
    table = make_table()
    bob, client = table.users[0], table.clients[0]
    assert ok(client.get(ME))["sanctions"] == []
    until = timezone.now() + timedelta(minutes=30)
    mute = moderation.moderation_player_mute(player=bob, by=moderator, reason="insults", until=until)

    me = ok(client.get(ME))
    assert [(s["id"], s["kind"], s["reason"], s["appeal"]) for s in me["sanctions"]] == [
        (mute.pk, "mute", "insults", None)
    ]
    assert me["sanctions"][0]["ends_at"] is not None
    chat = refused(
        client.post(f"/api/v1/games/{table.game_id}/chat/", {"channel": "players", "text": "hi"}, format="json"),
        403,
        "muted",
    )
    assert chat["reason"] == "insults" and chat["until"] is not None

    url = f"/api/v1/me/sanctions/{mute.pk}/appeal/"
    ok(client.post(url, {"text": "I apologised"}, format="json"), 201)
    refused(client.post(url, {"text": "twice"}, format="json"), 409, "appeal_exists")
    assert ok(client.get(ME))["sanctions"][0]["appeal"]["status"] == "open"
    listed = ok(client.get("/api/v1/me/sanctions/"))["results"][0]
    assert listed["appeal"]["text"] == "I apologised"
    with pytest.raises(Exception) as own:
        moderation.appeal_answer(appeal_id=Appeal.objects.get().pk, by=moderator, lift=False, answer="no")
    assert getattr(own.value, "code", None) == "appeal_own_sanction"
