"""A rated match that finishes changes its players' ratings, once, inside the final
move's transaction; practice, unrated and aborted games change nothing; a seat that
resigned, was handed to a bot or timed out is ranked last."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from games import services as game_services
from games.models import GameStatus
from ratings import services, skill
from ratings.models import Rating, RatingChange, RatingPool
from tests.api.games_helpers import play_to_end
from tests.ratings.helpers import finish

DEFAULT_MU, DEFAULT_SIGMA = 25.0, 25.0 / 3


def expected_ranks(result, seats, forfeits=()):
    """The places the rules give, worked out here independently of ratings.skill."""
    playing = [s for s in seats if s not in forfeits]
    key = {s: (s not in result["winners"], result["totals"][s]) for s in playing}
    ranks = {s: 1 + sum(1 for o in playing if key[o] < key[s]) for s in playing}
    ranks.update({s: len(playing) + 1 for s in forfeits})
    return [ranks[s] for s in seats]


def changes_by_seat(table):
    users = {u.pk: n for n, u in enumerate(table.users)}
    return {users[c.user_id]: c for c in RatingChange.objects.filter(game_id=table.game_id)}


# -- openskill's published figures ---------------------------------------------------


def rate_as_finished(table, totals, winners):
    """What the receiver of ``match_finished`` gets for a table that ended with
    ``totals`` and ``winners`` (the result set on the game in memory, as the final
    move's change sets it before sending the signal)."""
    game = table.game()
    game.status, game.result = GameStatus.FINISHED, {"totals": totals, "winners": winners, "tie_break": "lowest_total"}
    seats = list(game.seats.select_related("player").order_by("number"))
    return services.match_rate(game=game, seats=seats)


@pytest.mark.django_db
def test_a_four_player_match_moves_ratings_by_openskills_published_figures(make_table, monkeypatch):
    """openskill.py's README ("Artificial Ranks", the same example as openskill.js's
    README): four default ratings, ``rate([[a1], [b1], [c1], [d1]], rank=[4, 1, 3, 2])``
    -> a 20.96265504062538 / 8.083731307186588, b 27.795084971874736 / 8.263160757613477,
    c 24.68943500312503 / 8.083731307186588, d 26.552824984374855 / 8.179213704945203.
    Those figures predate openskill's ``tau`` (default 25/300 since 5.x), so the model
    is taken with tau = 0 here."""
    monkeypatch.setattr(skill, "MODEL", PlackettLuce(tau=0))
    table = make_table(players=4, rated=True)
    # Seat 1 wins, seat 3 second, seat 2 third, seat 0 last: ranks [4, 1, 3, 2] by seat.
    changes = rate_as_finished(table, totals=[40, 5, 22, 13], winners=[1])
    assert len(changes) == 4
    published = {
        0: (20.96265504062538, 8.083731307186588),
        1: (27.795084971874736, 8.263160757613477),
        2: (24.68943500312503, 8.083731307186588),
        3: (26.552824984374855, 8.179213704945203),
    }
    by_seat = changes_by_seat(table)
    for seat, (mu, sigma) in published.items():
        change = by_seat[seat]
        assert (change.mu_before, change.sigma_before) == (DEFAULT_MU, DEFAULT_SIGMA)
        assert change.mu_after == pytest.approx(mu, abs=1e-9) and change.sigma_after == pytest.approx(sigma, abs=1e-9)
        rating = Rating.objects.get(user=table.users[seat], pool=RatingPool.SMALL)
        assert (rating.mu, rating.sigma, rating.games) == (change.mu_after, change.sigma_after, 1)
        assert rating.ordinal == pytest.approx(mu - 3 * sigma)
    assert [by_seat[s].rank for s in range(4)] == [4, 1, 3, 2]
    assert [by_seat[s].won for s in range(4)] == [False, True, False, False]


@pytest.mark.django_db
def test_a_tie_moves_ratings_by_openskills_published_figures(make_table, monkeypatch):
    """openskill.py's README, ties: ``rate([[a1], [b1], [c1], [d1]], score=[37, 19, 37, 42])``
    -> a and c 24.68943500312503 / 8.179213704945203, b 22.826045021875203 /
    8.179213704945203, d 27.795084971874736 / 8.263160757613477 (tau = 0, as above)."""
    monkeypatch.setattr(skill, "MODEL", PlackettLuce(tau=0))
    table = make_table(players=4, rated=True)
    rate_as_finished(table, totals=[20, 30, 20, 5], winners=[3])  # seats 0 and 2 share second place
    by_seat = changes_by_seat(table)
    assert [by_seat[s].rank for s in range(4)] == [2, 4, 2, 1]
    published = {
        0: (24.68943500312503, 8.179213704945203),
        1: (22.826045021875203, 8.179213704945203),
        2: (24.68943500312503, 8.179213704945203),
        3: (27.795084971874736, 8.263160757613477),
    }
    for seat, (mu, sigma) in published.items():
        assert by_seat[seat].mu_after == pytest.approx(mu, abs=1e-9)
        assert by_seat[seat].sigma_after == pytest.approx(sigma, abs=1e-9)


# -- real matches --------------------------------------------------------------------


@pytest.mark.django_db
def test_a_rated_match_played_to_the_end_rates_every_player_once(make_table):
    table = make_table(players=4, rated=True)
    play_to_end(table, random.Random(17))
    game = table.game()
    assert game.status == GameStatus.FINISHED
    by_seat = changes_by_seat(table)
    assert sorted(by_seat) == [0, 1, 2, 3]
    ranks = expected_ranks(game.result, [0, 1, 2, 3])
    expected = PlackettLuce().rate([[PlackettLuce().rating()] for _ in range(4)], ranks=ranks)
    for seat in range(4):
        change = by_seat[seat]
        assert change.rank == ranks[seat] and change.pool == RatingPool.SMALL and change.players == 4
        assert change.mu_after == pytest.approx(expected[seat][0].mu)
        assert change.sigma_after == pytest.approx(expected[seat][0].sigma)
        rating = Rating.objects.get(user=table.users[seat])
        assert rating.games == 1 and rating.wins == int(seat in game.result["winners"])
    # The signal was sent once: calling the service again (a replay) adds nothing.
    assert services.match_rate(game=game, seats=list(game.seats.select_related("player"))) == []
    assert RatingChange.objects.filter(game=game).count() == 4


@pytest.mark.django_db
def test_pools_follow_the_table_size(make_table):
    for players, pool in ((2, RatingPool.TWO), (5, RatingPool.LARGE)):
        table = make_table(players=players, rated=True, set_max=9)
        play_to_end(table, random.Random(players))
        assert set(Rating.objects.filter(user__in=table.users).values_list("pool", flat=True)) == {pool}


@pytest.mark.django_db
def test_unrated_and_practice_matches_change_no_rating(make_table):
    unrated = make_table(players=2)
    practice = make_table(players=2, seed=42)
    assert practice.game().practice and not practice.game().rated
    for table in (unrated, practice):
        play_to_end(table, random.Random(3))
        assert table.game().status == GameStatus.FINISHED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@pytest.mark.django_db
def test_an_aborted_rated_game_changes_no_rating(make_table, people):
    moderator, _ = people.staff()
    open_table = make_table(players=2, rated=True, start=False)
    game_services.game_abort(game_id=open_table.game_id, by=open_table.users[0], reason="changed my mind")
    running = make_table(players=2, rated=True)
    game_services.game_abort_as_moderator(game_id=running.game_id, by=moderator, reason="abuse")
    assert {open_table.game().status, running.game().status} == {GameStatus.ABORTED}
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def forfeit_test(make_table, how, seed=5):
    """A 3-player rated match in which seat 0 forfeits (``how``), played to the end."""
    table = make_table(players=3, rated=True)
    how(table)
    game = finish(table, random.Random(seed), time_out=0 if how is time_out else None)
    assert game.status == GameStatus.FINISHED
    by_seat = changes_by_seat(table)
    assert by_seat[0].forfeit and by_seat[0].rank == 3 and not by_seat[0].won
    assert expected_ranks(game.result, [0, 1, 2], forfeits={0}) == [by_seat[s].rank for s in range(3)]
    assert not by_seat[1].forfeit and not by_seat[2].forfeit
    assert by_seat[0].mu_after < by_seat[0].mu_before  # last place always loses mu
    return game


def resign(table):
    game_services.game_resign(game_id=table.game_id, player=table.users[0])


def time_out(table):
    """Nothing now: ``finish`` runs out seat 0's clock on its first turn."""


@pytest.mark.django_db
def test_a_player_who_resigned_is_ranked_last(make_table):
    forfeit_test(make_table, resign)


@pytest.mark.django_db
def test_a_player_who_timed_out_once_is_ranked_last(make_table):
    table_game = forfeit_test(make_table, time_out)
    assert table_game.moves.filter(source="timeout", seat=0).count() == 1
    assert not table_game.seats.get(number=0).away  # one timeout: the seat stayed the player's


@pytest.mark.django_db
def test_a_seat_handed_to_a_bot_by_a_moderator_is_ranked_last(make_table, people):
    moderator, _ = people.staff()

    def hand_over(table):
        game_services.seat_hand_to_bot(
            game_id=table.game_id, seat_number=0, by=moderator, reason="abuse", strategy="greedy"
        )

    forfeit_test(make_table, hand_over)


@pytest.mark.django_db
def test_bot_accounts_are_rated_and_nameless_server_bots_are_not(make_table, make_player):
    account = make_player("ladder-bot", is_bot=True)
    table = make_table(players=3, seated=1, start=False, rated=True)
    game_services.game_add_bot(game_id=table.game_id, by=table.users[0], strategy="greedy", account=account)
    game_services.game_add_bot(game_id=table.game_id, by=table.users[0], strategy="random")  # nameless
    game_services.game_start(game_id=table.game_id, by=table.users[0])
    game = finish(table, random.Random(9))
    changes = list(RatingChange.objects.filter(game=game).select_related("user"))
    assert sorted(c.user.username for c in changes) == sorted([table.users[0].username, "ladder-bot"])
    assert all(c.players == 2 and not c.forfeit for c in changes)
    assert Rating.objects.get(user=account).is_bot and not Rating.objects.get(user=table.users[0]).is_bot


@pytest.mark.django_db
def test_a_match_with_one_account_rates_nobody(make_table):
    table = make_table(players=2, seated=1, start=False, rated=True)
    game_services.game_add_bot(game_id=table.game_id, by=table.users[0], strategy="random")
    game_services.game_start(game_id=table.game_id, by=table.users[0])
    assert finish(table, random.Random(2)).status == GameStatus.FINISHED
    assert not RatingChange.objects.exists()
