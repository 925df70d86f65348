"""The standings of a finished match, as ratings reads them (pure: no database)."""

from __future__ import annotations

from ratings import skill
from ratings.models import RatingPool, pool_for


def places(**kwargs):
    return [(p.seat, p.rank, p.won, p.forfeit) for p in skill.standings(**kwargs)]


def test_winners_first_then_lower_totals_and_equal_totals_share_a_place():
    # Seat 2 won on a tie-break over seat 0 (equal totals): the winner is first anyway.
    assert places(rated_seats=[0, 1, 2, 3], totals=[10, 30, 10, 30], winners={2}, forfeits=set()) == [
        (0, 2, False, False),
        (1, 3, False, False),
        (2, 1, True, False),
        (3, 3, False, False),
    ]


def test_a_shared_win_is_a_shared_first_place():
    assert places(rated_seats=[0, 1, 2], totals=[7, 7, 9], winners={0, 1}, forfeits=set()) == [
        (0, 1, True, False),
        (1, 1, True, False),
        (2, 3, False, False),
    ]


def test_forfeits_are_last_together_even_with_the_best_score():
    assert places(rated_seats=[0, 1, 2, 3], totals=[0, 20, 40, 5], winners={0}, forfeits={0, 3}) == [
        (0, 3, False, True),
        (1, 1, False, False),
        (2, 2, False, False),
        (3, 3, False, True),
    ]


def test_seats_left_out_of_the_rating_do_not_take_places():
    # Seat 1 is a nameless server bot: it won, but only seats 0 and 2 are ranked.
    assert places(rated_seats=[0, 2], totals=[12, 0, 30], winners={1}, forfeits=set()) == [
        (0, 1, False, False),
        (2, 2, False, False),
    ]


def test_pools_by_table_size():
    assert [pool_for(n) for n in (2, 3, 4, 5, 8, 14)] == [
        RatingPool.TWO,
        RatingPool.SMALL,
        RatingPool.SMALL,
        RatingPool.LARGE,
        RatingPool.LARGE,
        RatingPool.LARGE,
    ]


def test_ordinal_is_mu_minus_three_sigma():
    assert skill.ordinal(25.0, 25.0 / 3) == 0.0
    assert skill.ordinal(30.0, 2.0) == 24.0
