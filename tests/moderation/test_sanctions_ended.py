"""Sanctions that ended, on the player's own account: ``GET /me/``'s
``ended_sanctions`` keeps each one for ``players.standing.ENDED_SANCTIONS_WINDOW``
after it ended - lifted on appeal (with the moderator's answer and the appeal
``lifted``), lifted by a moderator, or run out - while ``sanctions`` keeps meaning
"in force". ``GET /me/sanctions/`` says when and how each ended too."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from moderation import services as moderation
from moderation.models import Appeal, Sanction
from moderation.sanction_lift import sanction_lift
from players.standing import ENDED_SANCTIONS_WINDOW
from tests.api.games_helpers import ok, refused
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ME, MY_SANCTIONS, TOKENS, APPEALS = "/api/v1/me/", "/api/v1/me/sanctions/", "/api/v1/tokens/", "/api/v1/appeals/"


def group_moderator(make_player: Any, name: str) -> Any:
    """A member of the Moderators group, as ``add_moderator`` makes one."""
    user = make_player(name)
    moderation.moderator_add(user=user)
    return type(user).objects.get(pk=user.pk)


def log_in(username: str) -> Any:
    return APIClient().post(TOKENS, {"username": username, "password": PASSWORD, "name": "x"}, format="json")


def test_a_mute_lifted_on_appeal_stays_on_me_as_ended_with_the_answer(make_player: Any, token_client: Any) -> None:
    first, second = group_moderator(make_player, "mod1"), group_moderator(make_player, "mod2")
    bob = make_player("bob")
    client = token_client(bob)
    mute = moderation.moderation_player_mute(player=bob, by=first, reason="insults")
    me = ok(client.get(ME))
    assert [s["id"] for s in me["sanctions"]] == [mute.pk] and me["ended_sanctions"] == []

    ok(client.post(f"{MY_SANCTIONS}{mute.pk}/appeal/", {"text": "I apologised at once"}, format="json"), 201)
    moderation.appeal_answer(appeal_id=Appeal.objects.get().pk, by=second, lift=True, answer="The apology was enough.")

    me = ok(client.get(ME))
    assert me["sanctions"] == []  # in force only, as before
    [ended] = me["ended_sanctions"]
    lifted_at = Sanction.objects.get(pk=mute.pk).lifted_at
    assert (ended["id"], ended["kind"], ended["reason"], ended["ends_at"]) == (mute.pk, "mute", "insults", None)
    assert ended["ended_how"] == "appeal"
    assert datetime.fromisoformat(ended["ended_at"]) == lifted_at
    assert ended["appeal"]["status"] == "lifted"
    assert ended["appeal"]["text"] == "I apologised at once"
    assert ended["appeal"]["answer"] == "The apology was enough."
    listed = ok(client.get(MY_SANCTIONS))["results"][0]
    assert (listed["ended_how"], listed["ended_at"]) == ("appeal", ended["ended_at"])


def test_a_suspension_lifted_on_appeal_is_read_after_signing_in_again(make_player: Any) -> None:
    first, second = group_moderator(make_player, "mod1"), group_moderator(make_player, "mod2")
    alice = make_player("alice")
    moderation.moderation_player_suspend(
        player=alice, by=first, reason="bots at the table", until=timezone.now() + timedelta(days=3)
    )
    refusal = refused(log_in("alice"), 403, "suspended")
    ok(APIClient().post(APPEALS, {"appeal_token": refusal["appeal_token"], "text": "I played myself"}), 201)
    moderation.appeal_answer(appeal_id=Appeal.objects.get().pk, by=second, lift=True, answer="The moves were yours.")

    token = ok(log_in("alice"), 201)["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    me = ok(client.get(ME))
    assert me["sanctions"] == []
    [ended] = me["ended_sanctions"]
    assert (ended["kind"], ended["ended_how"], ended["appeal"]["status"]) == ("suspension", "appeal", "lifted")
    assert ended["appeal"]["answer"] == "The moves were yours."
    assert datetime.fromisoformat(ended["ended_at"]) < datetime.fromisoformat(ended["ends_at"])  # before its end


def test_a_sanction_lifted_by_a_moderator_after_an_upheld_appeal_shows_both(
    make_player: Any, token_client: Any
) -> None:
    first, second = group_moderator(make_player, "mod1"), group_moderator(make_player, "mod2")
    bob = make_player("bob")
    client = token_client(bob)
    mute = moderation.moderation_player_mute(
        player=bob, by=first, reason="spam", until=timezone.now() + timedelta(days=2)
    )
    ok(client.post(f"{MY_SANCTIONS}{mute.pk}/appeal/", {"text": "not spam"}, format="json"), 201)
    moderation.appeal_answer(appeal_id=Appeal.objects.get().pk, by=second, lift=False, answer="It was spam.")
    assert ok(client.get(ME))["sanctions"][0]["appeal"]["status"] == "upheld"

    sanction_lift(sanction_id=mute.pk, by=first, reason="served enough")
    me = ok(client.get(ME))
    assert me["sanctions"] == []
    [ended] = me["ended_sanctions"]
    assert (ended["ended_how"], ended["appeal"]["status"], ended["appeal"]["answer"]) == (
        "lifted",
        "upheld",
        "It was spam.",
    )


def test_a_mute_that_ran_out_shows_as_expired_at_its_end_before_and_after_beat(
    make_player: Any, token_client: Any
) -> None:
    moderator = group_moderator(make_player, "mod1")
    bob = make_player("bob")
    client = token_client(bob)
    mute = moderation.moderation_player_mute(
        player=bob, by=moderator, reason="flooding", until=timezone.now() + timedelta(hours=1)
    )
    # Time passes: the mute's end is behind us (beat has not lifted it yet).
    ended_at = timezone.now() - timedelta(minutes=5)
    Sanction.objects.filter(pk=mute.pk).update(starts_at=ended_at - timedelta(hours=1), ends_at=ended_at)

    me = ok(client.get(ME))
    assert me["sanctions"] == []
    [ended] = me["ended_sanctions"]
    assert (ended["id"], ended["ended_how"], ended["appeal"]) == (mute.pk, "expired", None)
    assert ended["ended_at"] == ended["ends_at"]

    assert moderation.sanctions_expire() == [mute.pk]  # beat lifts it a little later
    again = ok(client.get(ME))["ended_sanctions"]
    assert again == [ended]  # it ended at its end, not when beat came by
    listed = ok(client.get(MY_SANCTIONS))["results"][0]
    assert (listed["ended_how"], listed["ended_at"]) == ("expired", ended["ended_at"])


def test_an_ended_sanction_leaves_me_once_the_window_is_over(make_player: Any, token_client: Any) -> None:
    moderator = group_moderator(make_player, "mod1")
    bob = make_player("bob")
    client = token_client(bob)
    old, recent = (
        moderation.moderation_player_mute(player=bob, by=moderator, reason=reason) for reason in ("old", "recent")
    )
    for sanction in (old, recent):
        sanction_lift(sanction_id=sanction.pk, by=moderator)
    now = timezone.now()
    for sanction, ago in (
        (old, ENDED_SANCTIONS_WINDOW + timedelta(hours=1)),
        (recent, ENDED_SANCTIONS_WINDOW - timedelta(hours=1)),
    ):
        Sanction.objects.filter(pk=sanction.pk).update(starts_at=now - ago - timedelta(days=1), lifted_at=now - ago)

    me = ok(client.get(ME))
    assert me["sanctions"] == []
    assert [(s["id"], s["ended_how"]) for s in me["ended_sanctions"]] == [(recent.pk, "lifted")]
    # The full list still has both (the account page's history).
    assert {s["id"] for s in ok(client.get(MY_SANCTIONS))["results"]} == {old.pk, recent.pk}


def test_a_sanction_in_force_has_no_end_yet(make_player: Any, token_client: Any) -> None:
    moderator = group_moderator(make_player, "mod1")
    bob = make_player("bob")
    client = token_client(bob)
    moderation.moderation_player_mute(player=bob, by=moderator, reason="x", until=timezone.now() + timedelta(hours=1))
    assert ok(client.get(ME))["ended_sanctions"] == []
    listed = ok(client.get(MY_SANCTIONS))["results"][0]
    assert (listed["ended_at"], listed["ended_how"]) == (None, None)
