"""The player's own account over the API: change the password (optionally signing
out the other devices), the signed-in devices, deleting the account (the policy of
docs/account.md: finished games keep an anonymised seat and still replay; ratings,
chat, reports made and warnings go) and downloading one's data."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from chat import services as chat_services
from chat.models import ChatMessage
from moderation import services as moderation
from moderation.models import PlayerWarning, Report
from players import services as player_services
from players.models import ApiToken, User
from ratings.models import Rating, RatingChange
from tests.api.games_helpers import ok, play_to_end, refused
from tests.conftest import PASSWORD
from tests.openapi_check import assert_matches_schema

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another quite long passphrase 7"


def client_for(user: Any, name: str = "device") -> tuple[APIClient, ApiToken]:
    issued = player_services.token_create(user=user, name=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.secret}")
    return client, issued.token


# -- the password ---------------------------------------------------------------------


def test_change_password_keeps_other_devices_unless_told(make_player):
    alice = make_player("alice")
    laptop, _ = client_for(alice, "laptop")
    phone, _ = client_for(alice, "phone")
    response = laptop.post("/api/v1/me/password/", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert ok(response)["revoked_tokens"] == 0
    assert_matches_schema(response)
    assert ok(phone.get("/api/v1/me/"))["username"] == "alice"
    assert (
        APIClient().post("/api/v1/tokens/", {"username": "alice", "password": PASSWORD, "name": "x"}).status_code == 401
    )
    ok(APIClient().post("/api/v1/tokens/", {"username": "alice", "password": NEW_PASSWORD, "name": "x"}), 201)


def test_change_password_can_sign_out_every_other_device(make_player):
    alice = make_player("alice")
    laptop, laptop_token = client_for(alice, "laptop")
    phone, _ = client_for(alice, "phone")
    client_for(alice, "tablet")
    body = {"current_password": PASSWORD, "new_password": NEW_PASSWORD, "revoke_other_tokens": True}
    assert ok(laptop.post("/api/v1/me/password/", body, format="json"))["revoked_tokens"] == 2
    refused(phone.get("/api/v1/me/"), 401, "authentication_failed")
    assert ok(laptop.get("/api/v1/me/"))["username"] == "alice"
    assert list(ApiToken.objects.filter(user=alice, revoked_at__isnull=True)) == [laptop_token]


def test_change_password_refuses_a_wrong_current_password_and_counts_it(make_player, settings):
    alice = make_player("alice")
    laptop, _ = client_for(alice)
    body = {"current_password": "not it at all", "new_password": NEW_PASSWORD}
    refused(laptop.post("/api/v1/me/password/", body), 403, "wrong_password")
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD) and alice.failed_logins == 1
    ok(laptop.get("/api/v1/me/"))  # a wrong password does not sign the device out
    for _ in range(settings.LOGIN_FREE_FAILURES):
        laptop.post("/api/v1/me/password/", body)
    refused(laptop.post("/api/v1/me/password/", {**body, "current_password": PASSWORD}), 429, "login_locked")


def test_change_password_applies_the_password_rules(make_player):
    alice = make_player("alice")
    laptop, _ = client_for(alice)
    problem = refused(
        laptop.post("/api/v1/me/password/", {"current_password": PASSWORD, "new_password": "123"}),
        400,
        "validation_error",
    )
    assert "new_password" in problem["errors"]
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_change_password_needs_an_account():
    refused(APIClient().post("/api/v1/me/password/", {}), 401, "not_authenticated")


# -- the devices ----------------------------------------------------------------------


def test_devices_list_marks_the_current_one_and_revoke_signs_the_other_out(make_player):
    alice = make_player("alice")
    laptop, _laptop_token = client_for(alice, "laptop")
    phone, phone_token = client_for(alice, "phone")
    response = laptop.get("/api/v1/tokens/")
    assert_matches_schema(response)
    listed = {row["name"]: row["current"] for row in ok(response)["results"]}
    assert listed == {"laptop": True, "phone": False}
    assert laptop.delete(f"/api/v1/tokens/{phone_token.pk}/").status_code == 204
    refused(phone.get("/api/v1/me/"), 401, "authentication_failed")
    assert [row["name"] for row in ok(laptop.get("/api/v1/tokens/"))["results"]] == ["laptop"]


# -- deleting the account -------------------------------------------------------------


@pytest.fixture
def finished_game(make_table: Any) -> Any:
    table = make_table(2, rounds=1)
    play_to_end(table, random.Random(5))
    assert table.game().status == "finished"
    return table


def test_delete_account_keeps_finished_games_with_an_anonymised_seat(finished_game, make_player):
    alice, bob = finished_game.users
    alice_client = finished_game.clients[0]
    chat_services.chat_message_create(game_id=finished_game.game_id, author=alice, channel="players", text="gg")
    moderator = make_player("mod")
    moderation.moderator_add(user=moderator)
    moderator = User.objects.get(pk=moderator.pk)
    moderation.moderation_player_warn(player=alice, by=moderator, text="Be kind.")
    Report.objects.create(
        reporter=alice, target_kind="account", target_key=f"account:{bob.pk}", account=bob, reason="abuse"
    )
    Rating.objects.create(user=alice, pool="2", mu=25, sigma=8, ordinal=1, updated_at=timezone.now())
    RatingChange.objects.create(
        user=alice, game_id=finished_game.game_id, pool="2", mu_before=25, sigma_before=8.3, mu_after=26,
        sigma_after=8, rank=1, players=2, won=True, created_at=timezone.now(),
    )  # fmt: skip
    record_before = ok(APIClient().get(f"/api/v1/games/{finished_game.game_id}/record/"))

    assert alice_client.post("/api/v1/me/delete/", {"password": PASSWORD}).status_code == 204

    placeholder = User.objects.get(pk=alice.pk)
    assert placeholder.username == f"deleted-{alice.pk}" and placeholder.deleted_at is not None
    assert not placeholder.is_active and not placeholder.has_usable_password()
    assert not ApiToken.objects.filter(user=alice).exists()
    assert not ChatMessage.objects.filter(author=alice).exists()
    assert not PlayerWarning.objects.filter(player=alice).exists()
    assert not Report.objects.filter(reporter=alice).exists()
    assert not Rating.objects.filter(user=alice).exists() and not RatingChange.objects.filter(user=alice).exists()
    refused(alice_client.get("/api/v1/me/"), 401, "authentication_failed")
    # The game still replays, the seat under the anonymous name; the moves are the same.
    record = ok(APIClient().get(f"/api/v1/games/{finished_game.game_id}/record/"))
    assert record["moves"] == record_before["moves"]
    names = {
        seat["player"]["username"]
        for seat in ok(APIClient().get(f"/api/v1/games/{finished_game.game_id}/"))["game"]["seats"]
    }
    assert f"deleted-{alice.pk}" in names and alice.username not in names
    # The name is free again; the placeholder's name is not for anyone.
    ok(APIClient().post("/api/v1/players/", {"username": "alice", "password": PASSWORD}), 201)
    refused(
        APIClient().post("/api/v1/players/", {"username": f"Deleted-{alice.pk + 7}", "password": PASSWORD}),
        400,
        "validation_error",
    )


def test_delete_account_is_refused_while_seated_at_a_running_table(make_table):
    table = make_table(2)
    problem = refused(table.clients[1].post("/api/v1/me/delete/", {"password": PASSWORD}), 409, "account_in_play")
    assert problem["games"] == [table.game_id]
    assert User.objects.get(pk=table.users[1].pk).deleted_at is None


def test_delete_account_needs_the_password(make_player):
    alice = make_player("alice")
    client, _ = client_for(alice)
    refused(client.post("/api/v1/me/delete/", {"password": "wrong one"}), 403, "wrong_password")
    refused(client.post("/api/v1/me/delete/", {}), 400, "validation_error")
    assert User.objects.get(pk=alice.pk).deleted_at is None


# -- downloading one's data -----------------------------------------------------------


def test_download_my_data_has_every_part(finished_game, make_player):
    alice, bob = finished_game.users
    client = finished_game.clients[0]
    chat_services.chat_message_create(game_id=finished_game.game_id, author=alice, channel="players", text="hello")
    chat_services.chat_message_create(game_id=finished_game.game_id, author=bob, channel="players", text="not hers")
    moderator = make_player("mod")
    moderation.moderator_add(user=moderator)
    moderator = User.objects.get(pk=moderator.pk)
    moderation.moderation_player_warn(player=alice, by=moderator, text="Be kind.")
    moderation.moderation_player_mute(
        player=alice, by=moderator, reason="Spam", until=timezone.now() + timedelta(hours=1)
    )
    report = {"account": bob.username, "reason": "abuse", "text": "rude"}
    ok(client.post("/api/v1/reports/", report, format="json"), 201)

    response = client.get("/api/v1/me/data/")
    assert_matches_schema(response)
    data = ok(response)
    assert "attachment" in response["Content-Disposition"]
    assert data["profile"]["username"] == alice.username
    assert [d["name"] for d in data["devices"]] == ["test"]
    assert [g["game"] for g in data["games"]] == [finished_game.game_id]
    assert [m["text"] for m in data["chat"]] == ["hello"]
    assert [r["account"] for r in data["reports"]] == [bob.username]
    assert [w["text"] for w in data["warnings"]] == ["Be kind."]
    assert [(s["kind"], s["reason"]) for s in data["sanctions"]] == [("mute", "Spam")]
    assert data["ratings"] == []
    assert "password" not in str(data) and "digest" not in str(data)


def test_my_sanctions_list_the_mute_with_reason_and_end(make_player):
    alice = make_player("alice")
    client, _ = client_for(alice)
    moderator = make_player("mod")
    moderation.moderator_add(user=moderator)
    moderator = User.objects.get(pk=moderator.pk)
    until = timezone.now() + timedelta(hours=2)
    moderation.moderation_player_mute(player=alice, by=moderator, reason="Spam", until=until)
    response = client.get("/api/v1/me/sanctions/")
    assert_matches_schema(response)
    [mute] = ok(response)["results"]
    assert mute["kind"] == "mute" and mute["reason"] == "Spam" and mute["lifted_at"] is None
    assert mute["ends_at"].startswith(until.isoformat()[:16].replace("+00:00", ""))
