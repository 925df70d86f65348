"""The matching rules, as pure functions over seeks and ratings (no database):
compatibility, first come first served, the rating window that widens with the
wait, what happens when a wait runs out."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from matchmaking.matching import Candidate, RatingWindow, all_groups, next_group, next_timeout

T0 = datetime(2026, 1, 1, tzinfo=UTC)
WINDOW = RatingWindow(base=3.0, per_second=0.5, most=20.0)


def seek(
    id: int,
    *,
    players: int = 2,
    preset: str = "double-6",
    rated: bool = False,
    clock: int | None = None,
    rating: float = 0.0,
    at: float = 0.0,
    wait: float = 60.0,
    on_timeout: str = "bots",
) -> Candidate:
    created = T0 + timedelta(seconds=at)
    return Candidate(
        id=id,
        user_id=100 + id,
        players=players,
        preset=preset,
        rated=rated,
        turn_time_limit=clock,
        rating=rating,
        created_at=created,
        expires_at=created + timedelta(seconds=wait),
        on_timeout=on_timeout,
    )


def ids(group):
    return None if group is None else [c.id for c in group]


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_only_seeks_that_want_the_same_table_meet():
    a = seek(1, players=3)
    others = [
        seek(2, players=2),  # another size
        seek(3, players=3, preset="double-9"),  # another ruleset
        seek(4, players=3, rated=True),  # rated meets rated only
        seek(5, players=3, clock=30),  # another clock
    ]
    assert next_group([a, *others], WINDOW, at(1)) is None
    assert ids(next_group([a, *others, seek(6, players=3, at=5)], WINDOW, at(6))) is None  # two of three
    assert ids(next_group([a, *others, seek(6, players=3, at=5), seek(7, players=3, at=6)], WINDOW, at(7))) == [
        1,
        6,
        7,
    ]


def test_first_come_first_served():
    seeks = [seek(i, players=2, at=10 - i) for i in range(1, 6)]  # 5 is the oldest, 1 the youngest
    assert ids(next_group(seeks, WINDOW, at(20))) == [5, 4]
    rest = [s for s in seeks if s.id not in (5, 4)]
    assert ids(next_group(rest, WINDOW, at(20))) == [3, 2]
    assert next_group([s for s in rest if s.id not in (3, 2)], WINDOW, at(20)) is None


def test_a_younger_table_forms_only_when_the_older_seek_cannot_be_matched():
    old = seek(1, players=4, at=0)  # four players: nobody else wants that yet
    pair = [seek(2, players=2, at=1), seek(3, players=2, at=2)]
    assert ids(next_group([old, *pair], WINDOW, at(3))) == [2, 3]


def test_rated_seeks_meet_within_a_window_that_widens_with_the_wait():
    # window: 3 + 0.5 x waited, at most 20; both must reach the other
    a = seek(1, rated=True, rating=10.0, at=0)
    b = seek(2, rated=True, rating=18.0, at=0)
    assert WINDOW.width(0) == 3.0 and WINDOW.width(10) == 8.0 and WINDOW.width(1000) == 20.0
    assert next_group([a, b], WINDOW, at(9)) is None  # 7.5 < 8
    assert ids(next_group([a, b], WINDOW, at(10))) == [1, 2]  # 8 <= 8, both waited 10 s


def test_a_long_wait_widens_ones_own_reach_not_the_others():
    a = seek(1, rated=True, rating=0.0, at=0)  # waited long: reaches far
    b = seek(2, rated=True, rating=9.0, at=29)  # just came: reaches 3 + 0.5 x waited
    assert next_group([a, b], WINDOW, at(30)) is None  # b reaches 3.5 < 9
    assert ids(next_group([a, b], WINDOW, at(41))) == [1, 2]  # b reaches 9 after 12 s


def test_every_member_of_a_rated_table_fits_every_other():
    # 1 reaches both 2 and 3, but 2 and 3 are too far apart: the table takes 4 instead
    seeks = [
        seek(1, players=3, rated=True, rating=10.0, at=0),
        seek(2, players=3, rated=True, rating=7.0, at=0),
        seek(3, players=3, rated=True, rating=13.0, at=0),
        seek(4, players=3, rated=True, rating=9.0, at=0),
    ]
    group = next_group(seeks, WINDOW, at(1))  # widths 3.5: 1-2 3, 1-3 3, 2-3 6, 2-4 2, 1-4 1
    assert group is not None and ids(group) == [1, 2, 4]
    ratings = [c.rating for c in group]
    assert max(ratings) - min(ratings) <= WINDOW.width(1)


def test_casual_seeks_ignore_ratings():
    assert ids(next_group([seek(1, rating=0.0), seek(2, rating=500.0)], WINDOW, at(0))) == [1, 2]


def test_nothing_times_out_before_its_wait_is_over():
    seeks = [seek(1, players=4, wait=10), seek(2, players=4, wait=10, at=1)]
    assert next_timeout(seeks, WINDOW, at(9.9)) is None


def test_a_wait_that_ran_out_fills_with_bots_and_takes_companions_that_chose_bots():
    seeks = [
        seek(1, players=4, wait=10, at=0),
        seek(2, players=4, wait=60, at=1, on_timeout="expire"),  # does not want bots
        seek(3, players=4, wait=60, at=2),  # wants the same table and takes bots
        seek(4, players=2, wait=60, at=3),  # another table
    ]
    timeout = next_timeout(seeks, WINDOW, at(10))
    assert timeout is not None
    assert (timeout.seek.id, ids(timeout.companions), timeout.bots) == (1, [3], 2)


def test_a_wait_that_ran_out_expires_when_the_player_chose_so():
    seeks = [seek(1, players=2, wait=5, on_timeout="expire"), seek(2, players=3, wait=5, at=1)]
    timeout = next_timeout(seeks, WINDOW, at(7))
    assert timeout is not None and (timeout.seek.id, timeout.companions, timeout.bots) == (1, [], 0)


def test_all_groups_at_once_are_the_groups_one_after_another():
    """The matcher plans a burst's tables in one sweep (``all_groups``): the same
    tables, in the same order, as taking ``next_group`` again and again - with mixed
    pools, rated seeks in and out of each other's windows, and seeks at the same moment."""
    for trial in range(200):
        rng = random.Random(trial)
        seeks = [
            seek(
                number,
                players=rng.choice((2, 3, 4)),
                preset=rng.choice(("double-6", "double-9")),
                rated=rng.random() < 0.5,
                rating=rng.uniform(-15, 15),
                at=rng.choice((0.0, rng.uniform(0, 40))),
            )
            for number in range(rng.randint(0, 60))
        ]
        now = at(rng.uniform(0, 60))
        one_by_one, left = [], list(seeks)
        while (group := next_group(left, WINDOW, now)) is not None:
            one_by_one.append(ids(group))
            left = [c for c in left if c.id not in ids(group)]
        assert [ids(g) for g in all_groups(seeks, WINDOW, now)] == one_by_one, trial
