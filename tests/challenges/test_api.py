"""Challenges through the API: the flow (all accept -> a started table with the
right seats and settings; one decline; cancel; lazy expiry), bot accounts'
automatic answers within their limits, server-played accounts, every refusal
with its documented code, and the policy operations."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from challenges import services
from challenges.models import Challenge, ChallengeStatus
from games.models import Game, GameStatus
from tests.api.games_helpers import ok, refused
from tests.challenges.helpers import CHALLENGES, POLICY, challenge_url, create, policy

pytestmark = pytest.mark.django_db


def test_everyone_accepts_and_the_table_starts_with_the_seats_and_settings(people):
    (alice, a), (bob, b), (carol, c) = people.player(), people.player(), people.player()
    body = create(
        a,
        [bob.username.upper(), carol.username],  # usernames ignore case
        ruleset={"set_max": 6, "rounds": 2},
        rated=True,
        turn_time_limit=60,
        bot_strategy="random",
    )
    assert body["status"] == "pending" and body["role"] == "sent" and body["your_invite"] is None
    assert [(i["player"]["username"], i["seat"], i["status"]) for i in body["invites"]] == [
        (bob.username, 1, "pending"),
        (carol.username, 2, "pending"),
    ]
    assert body["ruleset"]["players"] == 3 and body["game"] is None
    url = challenge_url(body["id"])

    seen = ok(b.get(url))
    assert seen["role"] == "received" and seen["your_invite"] == "pending"
    after_bob = ok(b.post(challenge_url(body["id"], "accept")))
    assert after_bob["status"] == "pending" and after_bob["your_invite"] == "accepted"
    started = ok(c.post(challenge_url(body["id"], "accept")))
    assert started["status"] == "started" and started["game"] is not None

    game = Game.objects.get(pk=started["game"])
    assert game.status == GameStatus.RUNNING
    assert game.rated and game.turn_time_limit == 60 and game.bot_strategy == "random"
    assert game.ruleset["players"] == 3 and game.ruleset["rounds"] == 2 and game.ruleset["set_max"] == 6
    assert game.creator_id == alice.pk
    seats = list(game.seats.order_by("number").values_list("number", "player_id", "bot_strategy"))
    assert seats == [(0, alice.pk, ""), (1, bob.pk, ""), (2, carol.pk, "")]
    # the invitee sees its seat in the game
    assert ok(c.get(f"/api/v1/games/{game.pk}/"))["you"]["seat"] == 2


def test_one_decline_ends_it_and_no_table_is_made(people):
    (alice, a), (bob, b), (carol, c) = people.player(), people.player(), people.player()
    body = create(a, [bob.username, carol.username])
    ok(b.post(challenge_url(body["id"], "accept")))
    refused(b.post(challenge_url(body["id"], "accept")), 409, "already_answered")  # answer twice
    refused(b.post(challenge_url(body["id"], "decline")), 409, "already_answered")
    declined = ok(c.post(challenge_url(body["id"], "decline")))
    assert declined["status"] == "declined" and declined["game"] is None
    assert not Game.objects.filter(creator=alice).exists()
    refused(c.post(challenge_url(body["id"], "accept")), 409, "challenge_closed")
    refused(a.delete(challenge_url(body["id"])), 409, "challenge_closed")


def test_lists_sent_and_received(people):
    (alice, a), (bob, b) = people.player(), people.player()
    sent = create(a, [bob.username])
    other = create(b, [alice.username])
    assert [x["id"] for x in ok(a.get(CHALLENGES))["results"]] == [other["id"], sent["id"]]
    assert [x["id"] for x in ok(a.get(CHALLENGES, {"role": "sent"}))["results"]] == [sent["id"]]
    assert [x["id"] for x in ok(a.get(CHALLENGES, {"role": "received"}))["results"]] == [other["id"]]
    ok(b.post(challenge_url(sent["id"], "decline")))
    assert [x["id"] for x in ok(a.get(CHALLENGES, {"status": "declined"}))["results"]] == [sent["id"]]
    refused(a.get(CHALLENGES, {"role": "everyone"}), 400, "validation_error")


def test_the_creator_cancels_and_then_nobody_can_answer(people):
    (_alice, a), (bob, b) = people.player(), people.player()
    body = create(a, [bob.username])
    refused(b.delete(challenge_url(body["id"])), 403, "not_challenge_creator")
    cancelled = ok(a.delete(challenge_url(body["id"])))
    assert cancelled["status"] == "cancelled"
    refused(b.post(challenge_url(body["id"], "accept")), 409, "challenge_closed")


def test_a_started_challenge_cannot_be_cancelled_or_answered_again(people):
    (_alice, a), (bob, b) = people.player(), people.player()
    body = create(a, [bob.username])
    started = ok(b.post(challenge_url(body["id"], "accept")))
    problem = refused(a.delete(challenge_url(body["id"])), 409, "challenge_started")
    assert problem["game_id"] == started["game"]
    refused(b.post(challenge_url(body["id"], "accept")), 409, "challenge_started")


def test_an_expired_challenge_is_refused_and_reads_as_expired(people):
    (_alice, a), (bob, b) = people.player(), people.player()
    body = create(a, [bob.username], expires_in=60)
    Challenge.objects.filter(pk=body["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    refused(b.post(challenge_url(body["id"], "accept")), 409, "challenge_expired")
    # the refusal's lazy expiry was kept (committed), not rolled back with the refusal
    assert Challenge.objects.get(pk=body["id"]).status == ChallengeStatus.EXPIRED
    refused(b.post(challenge_url(body["id"], "decline")), 409, "challenge_expired")
    refused(a.delete(challenge_url(body["id"])), 409, "challenge_expired")

    late = create(a, [bob.username])
    Challenge.objects.filter(pk=late["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert ok(b.get(challenge_url(late["id"])))["status"] == "expired"  # a read expires it too


def test_refusals_when_creating(people, make_player):
    (alice, a), (bob, _) = people.player(), people.player()
    suspended = make_player("sleepy", is_active=False)
    refused(a.post(CHALLENGES, {"invitees": [suspended.username]}, format="json"), 409, "account_suspended")
    problem = refused(a.post(CHALLENGES, {"invitees": [bob.username, "nobody-here"]}, format="json"), 404, "not_found")
    assert problem["usernames"] == ["nobody-here"]
    refused(a.post(CHALLENGES, {"invitees": [alice.username.upper()]}, format="json"), 422, "challenge_yourself")
    refused(
        a.post(CHALLENGES, {"invitees": [bob.username, bob.username.upper()]}, format="json"), 422, "duplicate_invitee"
    )
    refused(
        a.post(CHALLENGES, {"invitees": [bob.username], "ruleset": {"players": 4}}, format="json"),
        422,
        "players_mismatch",
    )
    refused(
        a.post(CHALLENGES, {"invitees": [bob.username], "ruleset": {"set_max": 6, "hand_size": 20}}, format="json"),
        422,
        "invalid_ruleset",
    )
    refused(a.post(CHALLENGES, {"invitees": []}, format="json"), 400, "validation_error")
    # The same name twice is against the contract's uniqueItems: a validation_error.
    refused(a.post(CHALLENGES, {"invitees": [bob.username, bob.username]}, format="json"), 400, "validation_error")
    refused(
        a.post(CHALLENGES, {"invitees": [bob.username], "bot_strategy": "nope"}, format="json"), 400, "validation_error"
    )
    assert not Challenge.objects.exists()
    # anonymous
    refused(APIClient().post(CHALLENGES, {"invitees": [bob.username]}, format="json"), 401, "not_authenticated")


def test_refusals_when_answering(people):
    (_alice, a), (bob, b), (_eve, e) = people.player(), people.player(), people.player()
    body = create(a, [bob.username])
    refused(e.get(challenge_url(body["id"])), 404, "not_found")  # not yours to see
    refused(e.post(challenge_url(body["id"], "accept")), 404, "not_found")
    refused(e.delete(challenge_url(body["id"])), 404, "not_found")
    refused(a.post(challenge_url(body["id"], "accept")), 403, "not_invited")  # the creator does not answer
    refused(b.post(challenge_url(999999, "accept")), 404, "not_found")


def test_a_bot_account_auto_accepts_within_its_limits(people):
    (_alice, a) = people.player()
    bot, _ = people.player("bot", is_bot=True)
    policy(bot, auto_accept=True, rated=False, casual=True, min_players=2, max_players=3, max_games=1)

    started = create(a, [bot.username])  # casual, 2 players: within the limits -> started at once
    assert started["status"] == "started" and started["invites"][0]["auto"] is True
    game = Game.objects.get(pk=started["game"])
    assert game.status == GameStatus.RUNNING and game.seats.get(number=1).player_id == bot.pk

    # max_games=1: it now sits at a running table -> the next one waits for its program's answer
    busy = create(a, [bot.username])
    assert busy["status"] == "pending" and busy["invites"][0]["status"] == "pending"


@pytest.mark.parametrize(
    ("limits", "body"),
    [
        ({"rated": False}, {"rated": True}),
        ({"casual": False}, {"rated": False}),
        ({"max_players": 2}, {"extra_human": True}),
        ({"min_players": 3}, {}),
    ],
)
def test_a_bot_account_does_not_auto_accept_outside_its_limits(people, limits, body):
    (_alice, a), (bob, _) = people.player(), people.player()
    bot, bot_client = people.player("bot", is_bot=True)
    policy(bot, auto_accept=True, **limits)
    invitees = [bot.username, *([bob.username] if body.pop("extra_human", False) else [])]
    pending = create(a, invitees, **body)
    assert pending["status"] == "pending"
    assert pending["invites"][0]["status"] == "pending"
    # its own program may still answer
    ok(bot_client.post(challenge_url(pending["id"], "decline")))


def test_auto_accept_counts_challenges_accepted_but_not_started(people):
    (_alice, a), (bob, _) = people.player(), people.player()
    bot, _ = people.player("bot", is_bot=True)
    policy(bot, auto_accept=True, max_games=1)
    first = create(a, [bot.username, bob.username])  # the bot accepts; bob has not answered
    assert first["invites"][0]["status"] == "accepted" and first["status"] == "pending"
    second = create(a, [bot.username])
    assert second["invites"][0]["status"] == "pending"  # one game at once: the first counts


def test_a_server_played_account_is_seated_as_a_server_bot(people):
    (_alice, a), (bob, b) = people.player(), people.player()
    ladder, _ = people.player("ladder-greedy", is_bot=True)
    policy(ladder, auto_accept=True, server_strategy="greedy")
    body = create(a, [ladder.username, bob.username])
    assert body["invites"][0]["status"] == "accepted"
    started = ok(b.post(challenge_url(body["id"], "accept")))
    game = Game.objects.get(pk=started["game"])
    seat = game.seats.get(number=1)
    # player set + bot_strategy set + not resigned, not away: a server-played bot account
    assert (seat.player_id, seat.bot_strategy, seat.resigned, seat.away) == (ladder.pk, "greedy", False, False)
    assert game.seats.get(number=2).player_id == bob.pk and game.seats.get(number=2).bot_strategy == ""


def test_a_server_played_account_declines_at_once_what_it_may_not_accept(people):
    (_alice, a) = people.player()
    ladder, _ = people.player("ladder-random", is_bot=True)
    policy(ladder, auto_accept=True, rated=False, server_strategy="random")
    body = create(a, [ladder.username], rated=True)
    assert body["status"] == "declined" and body["invites"][0]["status"] == "declined"


def test_the_policy_operations_are_for_bot_accounts_only(people):
    (_human, h) = people.player()
    bot, b = people.player("bot", is_bot=True)
    refused(h.get(POLICY), 403, "not_a_bot")
    refused(h.put(POLICY, {"auto_accept": True}, format="json"), 403, "not_a_bot")
    assert ok(b.get(POLICY))["auto_accept"] is False  # the defaults
    saved = ok(
        b.put(POLICY, {"auto_accept": True, "rated": False, "max_players": 4, "server_strategy": "x"}, format="json")
    )
    assert saved["auto_accept"] is True and saved["rated"] is False and saved["max_players"] == 4
    assert saved["server_strategy"] == ""  # the server's to set, not the account's
    assert ok(b.get(POLICY)) == saved
    refused(
        b.put(POLICY, {"auto_accept": True, "min_players": 5, "max_players": 3}, format="json"), 400, "validation_error"
    )
    refused(b.put(POLICY, {}, format="json"), 400, "validation_error")

    # and it is what answers: a casual 2-player challenge is accepted, a rated one is not
    (_alice, a) = people.player()
    assert create(a, [bot.username])["status"] == "started"
    assert create(a, [bot.username], rated=True)["status"] == "pending"


def test_the_expiry_service_only_takes_what_is_due(people):
    (_alice, a), (bob, _) = people.player(), people.player()
    due = create(a, [bob.username], expires_in=10)
    later = create(a, [bob.username], expires_in=3600)
    assert services.challenges_expire(now=timezone.now() + timedelta(seconds=60)) == 1
    statuses = dict(Challenge.objects.values_list("pk", "status"))
    assert statuses == {due["id"]: "expired", later["id"]: "pending"}
    assert services.challenges_expire(now=timezone.now() + timedelta(seconds=60)) == 0
