"""Two rated matches that share a player finish at the same moment (PostgreSQL,
real threads and connections): both rating updates apply, each exactly once, the
second on top of the first (no lost update), whether the shared player's rating
row exists already or both transactions create it at once.

The race is forced, not hoped for: a receiver of ``match_finished`` connected
before the ratings' one holds both final moves' transactions at a barrier, after
each wrote its game and before either touched a rating."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from games import services as game_services
from games.models import GameStatus
from games.signals import match_finished
from ratings import receivers, skill
from ratings.models import Rating, RatingChange, RatingPool
from tests.api.games_helpers import Table, move, ok
from tests.ratings.helpers import play_until_final_move

UID = "ratings.match_rate"


@pytest.fixture
def ratings_held_at(request: pytest.FixtureRequest) -> Iterator[Callable[[int], threading.Barrier]]:
    """``hold(n)``: until the test ends, each match that finishes waits (inside its
    transaction) for ``n`` of them before the ratings are updated."""
    barriers: list[threading.Barrier] = []

    def wait(sender: Any, **kwargs: Any) -> None:
        barriers[0].wait(timeout=20)

    def hold(parties: int) -> threading.Barrier:
        barriers.append(threading.Barrier(parties))
        match_finished.disconnect(dispatch_uid=UID)
        match_finished.connect(wait, dispatch_uid="test.barrier", weak=False)
        match_finished.connect(receivers.rate_finished_match, dispatch_uid=UID)
        return barriers[0]

    yield hold
    match_finished.disconnect(dispatch_uid="test.barrier")
    match_finished.disconnect(dispatch_uid=UID)
    match_finished.connect(receivers.rate_finished_match, dispatch_uid=UID)


def rated_table(users: list[Any], clients: list[Any]) -> Table:
    game = game_services.game_create(creator=users[0], ruleset={"set_max": 6, "players": 2, "rounds": 1}, rated=True)
    game_services.game_join(game_id=game.pk, player=users[1], seat=1)
    game_services.game_start(game_id=game.pk, by=users[0])
    return Table(game.pk, users, clients)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shared_row", ["new", "existing"])
def test_two_matches_finishing_at_once_for_one_player_both_count_once(people, ratings_held_at, shared_row):
    shared, shared_client = people.player("shared")
    (a, a_client), (b, b_client) = people.player("a"), people.player("b")
    if shared_row == "existing":
        Rating.objects.create(
            user=shared, pool=RatingPool.TWO, mu=30.0, sigma=5.0, ordinal=15.0, games=7, updated_at=timezone.now()
        )
    tables = [rated_table([shared, a], [shared_client, a_client]), rated_table([b, shared], [b_client, shared_client])]
    finals = [play_until_final_move(table, random.Random(n)) for n, table in enumerate(tables)]
    start = Rating.objects.filter(user=shared).values_list("mu", "sigma", "games").first() or (*skill.initial(), 0)

    barrier = ratings_held_at(2)
    answers: list[Any] = [None, None]

    def finish(index: int) -> None:
        table, (seat, final) = tables[index], finals[index]
        try:
            answers[index] = move(table.clients[seat], table.game_id, table.game().seq, final)
        except BaseException as error:  # reported in the test's thread
            answers[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a final move hung"
    assert not barrier.broken, "the two final moves never were inside their transactions at once"
    for answer in answers:
        assert not isinstance(answer, BaseException), answer
        ok(answer, 201)
    assert all(t.game().status == GameStatus.FINISHED for t in tables)

    changes = sorted(RatingChange.objects.filter(user=shared), key=lambda c: c.pk)
    assert len(changes) == 2 and {c.game_id for c in changes} == {t.game_id for t in tables}
    assert RatingChange.objects.count() == 4  # the two opponents once each too
    # Serialised on the shared player's row: one update started where the other ended.
    first, second = sorted(changes, key=lambda c: (c.mu_before, c.sigma_before) != (start[0], start[1]))
    assert (first.mu_before, first.sigma_before) == (start[0], start[1])
    assert (second.mu_before, second.sigma_before) == (first.mu_after, first.sigma_after)
    rating = Rating.objects.get(user=shared, pool=RatingPool.TWO)
    assert (rating.mu, rating.sigma, rating.games) == (second.mu_after, second.sigma_after, start[2] + 2)
