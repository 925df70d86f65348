"""Moderating accounts through the admin: suspend (mid-game too), reinstate,
revoke tokens, mark as a bot - each seen through the public API."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from games import services
from games.models import GameStatus
from moderation.models import AuditEntry
from players.models import ApiToken
from tests.api.games_helpers import QUICK_RULESET, all_events, ok, play_turn, refused, view
from tests.conftest import PASSWORD
from tests.moderation.conftest import audit_actions, run_list_action

pytestmark = pytest.mark.django_db
USERS = reverse("admin:players_user_changelist")
TOKENS = reverse("admin:players_apitoken_changelist")
ME = "/api/v1/me/"


def log_in_through_api(username: str) -> Any:
    return APIClient().post(
        "/api/v1/tokens/", {"username": username, "password": PASSWORD, "name": "again"}, format="json"
    )


def test_suspend_mid_game_the_game_finishes_with_a_bot(
    mod_client: Client, make_table: Any, people: Any, moderator: Any
) -> None:
    table = make_table()  # running: the suspended player in seat 0, an honest one in seat 1
    cheat, cheat_client = table.users[0], table.clients[0]
    own_open = services.game_create(creator=cheat, ruleset=QUICK_RULESET)
    host, _ = people.player("host")
    elsewhere = services.game_create(creator=host, ruleset=QUICK_RULESET)
    services.game_join(game_id=elsewhere.pk, player=cheat, seat=1)
    ok(cheat_client.get(ME))
    session = Client()
    session.force_login(cheat)

    done = run_list_action(mod_client, USERS, "suspend", [cheat.pk], reason="bots and abuse")
    assert done.status_code == 302

    # The account: its tokens and its password are refused.
    refused(cheat_client.get(ME), 401, "authentication_failed")
    refusal = refused(log_in_through_api(cheat.username), 403, "suspended")
    assert (refusal["reason"], refusal["until"]) == ("bots and abuse", None)
    assert not Client().login(username=cheat.username, password=PASSWORD)
    assert session.get(ME).status_code == 401  # the open browser session is over too
    assert not ApiToken.objects.filter(user=cheat, revoked_at__isnull=True).exists()
    # Its open table is closed, its seat at another open table emptied.
    observer = table.clients[1]
    assert view(observer, own_open.pk)["game"]["status"] == "aborted"
    assert view(observer, elsewhere.pk)["game"]["seats"][1]["player"] is None
    # Its seat in the running game is a bot's, and the players are told.
    body = view(observer, table.game_id)["game"]
    assert body["seats"][0]["is_bot"] and body["moderated"]
    assert any(
        e["type"] == "seat_handed_to_bot" and e["data"]["moderator"] for e in all_events(observer, table.game_id)
    )
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.player, entry.reason) == ("player_suspend", cheat, "bots and abuse")
    assert entry.details["games"] == sorted([table.game_id, own_open.pk, elsewhere.pk])

    # No worker runs here: the bot's turns are played by calling the service.
    rng = random.Random(7)
    for _ in range(500):
        game = table.game()
        if game.status != GameStatus.RUNNING:
            break
        if game.turn_seat == 0:
            assert services.bot_move(game_id=game.pk, expected_seq=game.seq) is not None
        else:
            play_turn(observer, game.pk, rng)
    finished = view(observer, table.game_id)["game"]
    assert finished["status"] == "finished" and finished["result"]["winners"]


def test_unsuspend_lets_the_player_log_in_again(mod_client: Client, people: Any) -> None:
    player, client = people.player()
    run_list_action(mod_client, USERS, "suspend", [player.pk], reason="spam")
    refused(log_in_through_api(player.username), 403, "suspended")  # the right password learns why

    done = run_list_action(mod_client, USERS, "unsuspend", [player.pk], reason="appeal accepted")
    assert done.status_code == 302
    ok(log_in_through_api(player.username), 201)
    refused(client.get(ME), 401, "authentication_failed")  # old tokens stay revoked
    assert audit_actions(player=player) == ["player_suspend", "player_unsuspend"]


def test_suspend_needs_a_reason(mod_client: Client, people: Any) -> None:
    player, client = people.player()
    page = run_list_action(mod_client, USERS, "suspend", [player.pk], reason="")
    assert page.status_code == 200 and b"This field is required" in page.content
    ok(client.get(ME))
    assert not AuditEntry.objects.exists()


def test_a_moderator_cannot_suspend_themselves(mod_client: Client, moderator: Any) -> None:
    done = run_list_action(mod_client, USERS, "suspend", [moderator.pk], reason="oops")
    assert done.status_code == 302
    moderator.refresh_from_db()
    assert moderator.is_active and not AuditEntry.objects.exists()


def test_revoke_tokens(mod_client: Client, people: Any) -> None:
    player, client = people.player()
    done = run_list_action(mod_client, USERS, "revoke_tokens", [player.pk], reason="leaked on a forum")
    assert done.status_code == 302
    refused(client.get(ME), 401, "authentication_failed")
    ok(log_in_through_api(player.username), 201)  # the account itself is fine
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.player, entry.details) == ("tokens_revoke", player, {"tokens_revoked": 1})


def test_revoke_single_tokens_from_the_token_list(mod_client: Client, people: Any, token_client: Any) -> None:
    player, client = people.player()
    other = token_client(player)
    token = ApiToken.objects.filter(user=player).order_by("id").first()
    assert token is not None
    done = mod_client.post(TOKENS, {"action": "revoke", "_selected_action": [str(token.pk)], "index": "0"})
    assert done.status_code == 302
    refused(client.get(ME), 401, "authentication_failed")
    ok(other.get(ME))
    assert AuditEntry.objects.get().details == {"tokens_revoked": 1, "token_ids": [token.pk]}


def test_mark_and_unmark_a_bot(mod_client: Client, people: Any) -> None:
    player, client = people.player()
    profile = f"/api/v1/players/{player.username}/"
    run_list_action(mod_client, USERS, "mark_bot", [player.pk], reason="plays by script")
    assert ok(client.get(profile))["is_bot"] is True
    run_list_action(mod_client, USERS, "unmark_bot", [player.pk], reason="")
    assert ok(client.get(profile))["is_bot"] is False
    assert audit_actions(player=player) == ["bot_mark", "bot_unmark"]


def test_active_and_bot_flags_are_not_edited_by_hand(mod_client: Client, people: Any, superuser_client: Client) -> None:
    player, _ = people.player()
    page = superuser_client.get(reverse("admin:players_user_change", args=[player.pk]))
    assert page.status_code == 200 and b'name="is_staff"' in page.content  # editable: a superuser's job
    assert b'name="is_active"' not in page.content and b'name="is_bot"' not in page.content
    assert b'name="action" value="suspend"' not in page.content
    listing = mod_client.get(USERS, {"q": player.username})
    assert listing.status_code == 200 and player.username.encode() in listing.content
    for action in ("suspend", "unsuspend", "revoke_tokens", "mark_bot", "unmark_bot"):
        assert f'value="{action}"'.encode() in listing.content


def test_no_reset_password_link_for_a_moderator(mod_client: Client, superuser_client: Client, people: Any) -> None:
    player, _ = people.player()
    page = reverse("admin:players_user_change", args=[player.pk])
    reset = b'href="../password/"'  # the link Django's password widget draws
    seen = mod_client.get(page)
    assert seen.status_code == 200 and player.username.encode() in seen.content
    assert reset not in seen.content and b"Reset password" not in seen.content
    assert reset in superuser_client.get(page).content  # who may change accounts keeps it
