"""A moderator voids a rated match's rating effect: through moderation.services
(audited) or the games admin's action; idempotent."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from core.errors import ApiError
from moderation import services as moderation
from moderation.models import AuditAction, AuditEntry
from ratings import services
from ratings.models import Rating, RatingChange
from tests.api.games_helpers import play_to_end
from tests.moderation.conftest import MODERATE, VIEW_PERMISSIONS, grant
from tests.ratings.helpers import rematch


@pytest.fixture
def moderator(make_player):
    user = make_player("mod")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    grant(user, *VIEW_PERMISSIONS, MODERATE)
    return type(user).objects.get(pk=user.pk)


def snapshot(users):
    return {r.user_id: (r.mu, r.sigma, r.ordinal, r.games, r.wins) for r in Rating.objects.filter(user__in=users)}


@pytest.mark.django_db
def test_a_void_restores_the_ratings_once_and_is_audited(make_table, moderator):
    first = make_table(players=2, rated=True)
    play_to_end(first, random.Random(1))
    before_second = snapshot(first.users)
    # A second match between the same players, the one voided.
    second = rematch(first)
    play_to_end(second, random.Random(2))
    assert snapshot(first.users) != before_second

    outcome = moderation.moderation_rating_void(game_id=second.game_id, by=moderator, reason="collusion")
    assert outcome.voided == 2
    after = snapshot(first.users)
    for user_id, (mu, sigma, ordinal, games, wins) in before_second.items():
        assert after[user_id][0] == pytest.approx(mu) and after[user_id][1] == pytest.approx(sigma)
        assert after[user_id][2] == pytest.approx(ordinal) and after[user_id][3:] == (games, wins)
    assert RatingChange.objects.filter(game_id=second.game_id, voided_at__isnull=False).count() == 2
    assert RatingChange.objects.filter(game_id=first.game_id, voided_at__isnull=True).count() == 2
    (entry,) = AuditEntry.objects.filter(action=AuditAction.RATING_VOID)
    assert entry.game_id == second.game_id and entry.moderator == moderator and entry.reason == "collusion"
    assert entry.details == {"voided": 2, "players": sorted(u.username for u in first.users)}

    again = moderation.moderation_rating_void(game_id=second.game_id, by=moderator, reason="twice")
    assert again.voided == 0 and snapshot(first.users) == after
    assert AuditEntry.objects.filter(action=AuditAction.RATING_VOID).count() == 1


@pytest.mark.django_db
def test_a_void_after_later_matches_takes_back_only_that_matchs_change(make_table, moderator):
    first = make_table(players=2, rated=True)
    play_to_end(first, random.Random(4))
    later = rematch(first)
    play_to_end(later, random.Random(5))
    now = snapshot(first.users)
    moderation.moderation_rating_void(game_id=first.game_id, by=moderator, reason="bug")
    for change in RatingChange.objects.filter(game_id=first.game_id):
        mu, sigma, _, games, _ = now[change.user_id]
        rating = Rating.objects.get(user_id=change.user_id)
        assert rating.mu == pytest.approx(mu - (change.mu_after - change.mu_before))
        assert rating.sigma == pytest.approx((sigma**2 + change.sigma_before**2 - change.sigma_after**2) ** 0.5)
        assert rating.games == games - 1


@pytest.mark.django_db
def test_void_refusals(make_table, moderator, people):
    unrated = make_table(players=2)
    with pytest.raises(ApiError) as refused:
        moderation.moderation_rating_void(game_id=unrated.game_id, by=moderator, reason="x")
    assert refused.value.code == "game_not_rated"
    with pytest.raises(ApiError) as refused:
        moderation.moderation_rating_void(game_id=10**9, by=moderator, reason="x")
    assert refused.value.code == "not_found"
    with pytest.raises(ApiError) as refused:  # a reason is required
        moderation.moderation_rating_void(game_id=unrated.game_id, by=moderator, reason="  ")
    assert refused.value.code == "validation_error"
    staff_only, _ = people.staff()  # staff without the moderate permission
    with pytest.raises(ApiError) as refused:
        moderation.moderation_rating_void(game_id=unrated.game_id, by=staff_only, reason="x")
    assert refused.value.code == "permission_denied"
    # A rated game that changed nothing (still running) voids nothing, quietly.
    running = make_table(players=2, rated=True)
    assert services.match_void(game_id=running.game_id, by=moderator, reason="x").voided == 0
    assert not AuditEntry.objects.exists()


@pytest.mark.django_db
def test_the_games_admin_action_voids_and_audits(make_table, moderator):
    table = make_table(players=2, rated=True)
    play_to_end(table, random.Random(8))
    client = Client()
    client.force_login(moderator)
    url = reverse("admin:games_game_changelist")
    form = {"action": "void_rating_selected", "_selected_action": [str(table.game_id)]}
    page = client.post(url, form)
    assert page.status_code == 200 and b"Void the rating effect" in page.content  # asks for a reason
    done = client.post(url, {**form, "apply": "1", "reason": "a bot in disguise"}, follow=True)
    assert done.status_code == 200 and b"rating effect voided" in done.content
    assert all(r.games == 0 for r in Rating.objects.filter(user__in=table.users))
    assert AuditEntry.objects.get(action=AuditAction.RATING_VOID).reason == "a bot in disguise"


@pytest.mark.django_db
def test_the_rating_admin_pages_are_read_only(make_table, make_player):
    table = make_table(players=2, rated=True)
    play_to_end(table, random.Random(13))
    root = make_player("root")
    root.is_staff = root.is_superuser = True
    root.save(update_fields=["is_staff", "is_superuser"])
    client = Client()
    client.force_login(root)
    rating, change = Rating.objects.first(), RatingChange.objects.first()
    assert rating is not None and change is not None
    for model, obj in (("rating", rating), ("ratingchange", change)):
        listing = client.get(reverse(f"admin:ratings_{model}_changelist"), {"pool": "2"})
        assert listing.status_code == 200 and table.users[0].username.encode() in listing.content
        page = client.get(reverse(f"admin:ratings_{model}_change", args=[obj.pk]))
        assert page.status_code == 200 and b'name="_save"' not in page.content
        assert client.get(reverse(f"admin:ratings_{model}_add")).status_code == 403
        assert client.post(reverse(f"admin:ratings_{model}_delete", args=[obj.pk]), {"post": "yes"}).status_code == 403
    assert Rating.objects.filter(pk=rating.pk).exists() and RatingChange.objects.filter(pk=change.pk).exists()
