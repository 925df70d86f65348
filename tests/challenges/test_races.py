"""Answers, a cancel and the expiry arriving together: the challenge row's lock
lets exactly one of them decide the outcome. Real PostgreSQL, one thread (and
connection) per contender, all let go at once by a barrier."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from challenges import services
from challenges.models import Challenge, ChallengeStatus
from core.errors import ApiError
from games.models import Game, GameStatus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 4
QUICK = {"set_max": 6, "rounds": 1}


def race(contenders: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Run every contender in its own thread, released together; name -> its result or the ApiError."""
    barrier = threading.Barrier(len(contenders))
    results: dict[str, Any] = {}

    def run(name: str, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            results[name] = call()
        except ApiError as error:
            results[name] = error
        except BaseException as error:
            results[name] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in contenders.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(not t.is_alive() for t in threads), "a contender hung"
    return results


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_accept_decline_cancel_and_expiry_at_once_have_one_outcome(make_player, round_):
    creator, early, last = make_player(f"host{round_}"), make_player(f"early{round_}"), make_player(f"last{round_}")
    other = make_player(f"other{round_}")
    challenge = services.challenge_create(
        creator=creator,
        invitees=[early.username, last.username, other.username],
        ruleset={"set_max": 6, "players": 4, "rounds": 1},
    )
    services.challenge_accept(challenge_id=challenge.pk, player=early)
    services.challenge_accept(challenge_id=challenge.pk, player=other)
    later = timezone.now() + timedelta(hours=1)  # the sweep sees it as due; the answers do not
    Challenge.objects.filter(pk=challenge.pk).update(expires_at=timezone.now() + timedelta(minutes=30))

    results = race(
        {
            "accept": lambda: services.challenge_accept(challenge_id=challenge.pk, player=last),
            "decline": lambda: services.challenge_decline(challenge_id=challenge.pk, player=last),
            "cancel": lambda: services.challenge_cancel(challenge_id=challenge.pk, by=creator),
            "expire": lambda: services.challenges_expire(now=later),
        }
    )
    unexpected = {k: v for k, v in results.items() if isinstance(v, BaseException) and not isinstance(v, ApiError)}
    assert not unexpected, unexpected

    final = Challenge.objects.get(pk=challenge.pk)
    won = [name for name, result in results.items() if isinstance(result, Challenge) or result == 1]
    assert len(won) == 1, results
    expected_status = {
        "accept": ChallengeStatus.STARTED,
        "decline": ChallengeStatus.DECLINED,
        "cancel": ChallengeStatus.CANCELLED,
        "expire": ChallengeStatus.EXPIRED,
    }[won[0]]
    assert final.status == expected_status
    # every loser was refused with the code of what won (the expiry just found nothing due)
    code = {"accept": "challenge_started", "expire": "challenge_expired"}.get(won[0], "challenge_closed")
    for name, result in results.items():
        if name == won[0]:
            continue
        if name == "expire":
            assert result == 0
        else:
            assert isinstance(result, ApiError) and result.code == code, (name, result)
    games = Game.objects.filter(creator=creator)
    if final.status == ChallengeStatus.STARTED:
        assert final.game_id is not None and games.count() == 1
        assert games.get().status == GameStatus.RUNNING
        assert sorted(games.get().seats.values_list("player_id", flat=True)) == sorted(
            [creator.pk, early.pk, last.pk, other.pk]
        )
    else:
        assert final.game_id is None and not games.exists()


def test_two_last_acceptances_at_once_start_one_table(make_player):
    creator, one, two = make_player("host"), make_player("one"), make_player("two")
    challenge = services.challenge_create(creator=creator, invitees=[one.username, two.username], ruleset=QUICK)
    results = race(
        {
            "one": lambda: services.challenge_accept(challenge_id=challenge.pk, player=one),
            "two": lambda: services.challenge_accept(challenge_id=challenge.pk, player=two),
        }
    )
    assert all(isinstance(r, Challenge) for r in results.values()), results
    final = Challenge.objects.get(pk=challenge.pk)
    assert final.status == ChallengeStatus.STARTED
    assert Game.objects.filter(creator=creator).count() == 1
