"""Challenges in the admin: moderators see them (list, search, one challenge with
its invites) and cancel pending ones; the accounts concerned are told."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from challenges import services
from challenges.models import Challenge, ChallengePolicy, ChallengeStatus

pytestmark = pytest.mark.django_db

QUICK = {"set_max": 6, "rounds": 1}


def staff_client(make_player, name: str, *codenames: str) -> Client:
    user = make_player(name)
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    for codename in codenames:
        user.user_permissions.add(Permission.objects.get(content_type__app_label="challenges", codename=codename))
    client = Client()
    client.force_login(user)
    return client


def test_a_moderator_sees_challenges_and_cancels_pending_ones(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    pending = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK)
    started = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK)
    services.challenge_accept(challenge_id=started.pk, player=bob)
    moderator = staff_client(make_player, "mod", "view_challenge", "change_challenge")

    listing = moderator.get(reverse("admin:challenges_challenge_changelist"), {"q": "bob"})
    assert listing.status_code == 200
    assert f">{pending.pk}<" in listing.content.decode() and f">{started.pk}<" in listing.content.decode()
    detail = moderator.get(reverse("admin:challenges_challenge_change", args=[pending.pk]))
    assert detail.status_code == 200 and "bob" in detail.content.decode()

    answer = moderator.post(
        reverse("admin:challenges_challenge_changelist"),
        {"action": "cancel_challenges", "_selected_action": [pending.pk, started.pk]},
        follow=True,
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "Cancelled 1 challenge(s)." in page and "challenge_started" in page  # the started one is refused
    assert Challenge.objects.get(pk=pending.pk).status == ChallengeStatus.CANCELLED
    assert Challenge.objects.get(pk=pending.pk).cancel_reason == "cancelled by mod"
    assert Challenge.objects.get(pk=started.pk).status == ChallengeStatus.STARTED


def test_staff_who_may_only_look_cannot_cancel(make_player):
    make_player("alice"), make_player("bob")
    pending = services.challenge_create(creator=make_player("carol"), invitees=["alice"], ruleset=QUICK)
    viewer = staff_client(make_player, "viewer", "view_challenge")
    assert viewer.get(reverse("admin:challenges_challenge_changelist")).status_code == 200
    viewer.post(
        reverse("admin:challenges_challenge_changelist"),
        {"action": "cancel_challenges", "_selected_action": [pending.pk]},
    )
    assert Challenge.objects.get(pk=pending.pk).status == ChallengeStatus.PENDING


def test_a_bot_accounts_policy_is_set_in_the_admin(make_player):
    bot = make_player("ladder-greedy", is_bot=True)
    root = make_player("root")
    root.is_staff = root.is_superuser = True
    root.save(update_fields=["is_staff", "is_superuser"])
    client = Client()
    client.force_login(root)
    answer = client.post(
        reverse("admin:challenges_challengepolicy_add"),
        {
            "user": bot.pk,
            "auto_accept": "on",
            "rated": "on",
            "casual": "on",
            "min_players": 2,
            "max_players": 8,
            "max_games": 10,
            "server_strategy": "greedy",
            "updated_at_0": "2026-01-01",
            "updated_at_1": "00:00:00",
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:3000]
    assert ChallengePolicy.objects.get(user=bot).server_strategy == "greedy"
