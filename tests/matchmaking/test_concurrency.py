"""Many seeks at once, on real PostgreSQL: 32 accounts post their seeks at the same
instant (threads released by one barrier, through the API) while two matchers run
side by side, as two workers would; every account ends in exactly one seat of one
game of the size it asked for. And one account's two seeks at once: one is refused."""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from games.models import Game, GameStatus, Seat
from matchmaking import services
from matchmaking.models import Seek, SeekStatus
from tests.api.games_helpers import People

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SEEKERS = 32
DEADLINE_SECONDS = 60


def in_threads(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Run ``jobs`` in threads released together by one barrier; their results (or
    exceptions), in order."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(index: int, job: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = job()
        except BaseException as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=DEADLINE_SECONDS + 30)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    return results


def test_32_concurrent_seeks_place_each_account_exactly_once(people: People):
    seekers = [people.player("seeker") for _ in range(SEEKERS)]
    size = {user.pk: 2 if i % 2 else 4 for i, (user, _) in enumerate(seekers)}

    def post(client: Any, players: int) -> Callable[[], Any]:
        return lambda: client.post(
            "/api/v1/seeks/", {"players": players, "preset": "double-6-quick", "wait_seconds": 600}, format="json"
        )

    def matcher() -> int:
        """Run the matcher until every seek is matched (or the deadline)."""
        opened = 0
        deadline = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < deadline:
            opened += len(services.seeks_match().games)
            done = Seek.objects.filter(status=SeekStatus.MATCHED).count()
            if done == SEEKERS:
                return opened
        raise AssertionError("not every seek was matched in time")

    results = in_threads([post(client, size[user.pk]) for user, client in seekers] + [matcher, matcher])
    responses, opened = results[:SEEKERS], results[SEEKERS:]
    errors = [r for r in results if isinstance(r, BaseException)]
    assert not errors, errors
    assert [r.status_code for r in responses] == [201] * SEEKERS
    assert sum(opened) == 16 // 2 + 16 // 4  # 8 tables of two, 4 of four: each opened once

    seats = list(Seat.objects.filter(player_id__in=size).select_related("game"))
    assert Counter(s.player_id for s in seats) == Counter(dict.fromkeys(size, 1))  # one seat each
    for seek in Seek.objects.filter(user_id__in=size):
        assert seek.status == SeekStatus.MATCHED and seek.game_id is not None
        seat = next(s for s in seats if s.player_id == seek.user_id)
        assert seat.game_id == seek.game_id  # the seat is in the game the seek names
    games = Game.objects.filter(pk__in={s.game_id for s in seats})
    assert games.count() == 12
    for game in games:
        players = [s.player_id for s in seats if s.game_id == game.pk]
        assert game.status == GameStatus.RUNNING
        assert len(players) == game.ruleset["players"] == game.seats.count()  # a full table, no bots
        assert {size[p] for p in players} == {game.ruleset["players"]}  # all of them asked for that size


def test_one_accounts_two_seeks_at_once_one_is_refused(people: People):
    accounts = [people.player() for _ in range(8)]
    body = {"players": 3, "preset": "double-9"}
    jobs: list[Callable[[], Any]] = [
        functools.partial(client.post, "/api/v1/seeks/", body, format="json") for _, client in accounts for _ in (1, 2)
    ]
    responses = in_threads(jobs)
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] * 8 + [409] * 8
    assert all(r.json()["code"] == "seek_exists" for r in responses if r.status_code == 409)
    assert Seek.objects.filter(status=SeekStatus.WAITING).count() == 8
