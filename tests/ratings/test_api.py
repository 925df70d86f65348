"""GET /api/v1/leaderboard/ and GET /api/v1/players/{username}/ratings/: shapes (checked
against openapi.yaml), filters, paging, ranks, refusals, and the cache."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from players import services as player_services
from ratings import cache as ratings_cache
from ratings import services, skill
from ratings.models import Rating, RatingPool
from tests.api.games_helpers import ok, play_to_end, refused
from tests.ratings.helpers import rematch

BOARD = "/api/v1/leaderboard/"


def ratings_url(username):
    return f"/api/v1/players/{username}/ratings/"


@pytest.fixture
def seeded(make_player):
    """Six rated accounts in pool 3-4 (two of them bots; two humans tied), one in pool 2."""
    rows = [
        ("ann", False, 30.0, 2.0, 25),  # ordinal 24
        ("bob", False, 28.0, 2.0, 3),  # 22 (tied with cyd)
        ("cyd", False, 25.0, 1.0, 12),  # 22
        ("dex", True, 26.0, 3.0, 40),  # 17
        ("eve", False, 20.0, 2.0, 11),  # 14
        ("fox", True, 25.0, 25 / 3, 0),  # 0
    ]
    users = {}
    for name, is_bot, mu, sigma, games in rows:
        users[name] = make_player(name, is_bot=is_bot)
        Rating.objects.create(
            user=users[name],
            pool=RatingPool.SMALL,
            mu=mu,
            sigma=sigma,
            ordinal=skill.ordinal(mu, sigma),
            games=games,
            wins=games // 3,
            is_bot=is_bot,
            updated_at=timezone.now(),
        )
    Rating.objects.create(
        user=users["eve"],
        pool=RatingPool.TWO,
        mu=40,
        sigma=1,
        ordinal=37,
        games=50,
        is_bot=False,
        updated_at=timezone.now(),
    )
    return users


def names(body):
    return [(e["rank"], e["username"]) for e in body["results"]]


@pytest.mark.django_db
def test_the_leaderboard_ranks_best_first_and_ties_share_a_rank(api_client, seeded):
    body = ok(api_client.get(BOARD, {"pool": "3-4"}))
    assert body["count"] == 6 and body["next"] is None
    assert names(body) == [(1, "ann"), (2, "bob"), (2, "cyd"), (4, "dex"), (5, "eve"), (6, "fox")]
    ann = body["results"][0]
    assert ann == {
        "rank": 1,
        "username": "ann",
        "is_bot": False,
        "rating": 24.0,
        "mu": 30.0,
        "sigma": 2.0,
        "games": 25,
        "wins": 8,
        "provisional": False,
    }
    assert [e["provisional"] for e in body["results"]] == [False, True, False, False, False, True]
    assert names(ok(api_client.get(BOARD))) == names(body)  # 3-4 is the default pool


@pytest.mark.django_db
def test_the_leaderboard_filters_humans_and_bots(api_client, seeded):
    assert names(ok(api_client.get(BOARD, {"pool": "3-4", "kind": "humans"}))) == [
        (1, "ann"),
        (2, "bob"),
        (2, "cyd"),
        (4, "eve"),
    ]
    assert names(ok(api_client.get(BOARD, {"pool": "3-4", "kind": "bots"}))) == [(1, "dex"), (2, "fox")]
    assert names(ok(api_client.get(BOARD, {"pool": "2", "kind": "all"}))) == [(1, "eve")]
    assert ok(api_client.get(BOARD, {"pool": "5-8"}))["count"] == 0


@pytest.mark.django_db
def test_the_leaderboard_pages_keep_ranks_across_pages(api_client, seeded):
    first = ok(api_client.get(BOARD, {"pool": "3-4", "limit": 2}))
    assert names(first) == [(1, "ann"), (2, "bob")] and first["count"] == 6 and first["previous"] is None
    second = ok(api_client.get(first["next"]))
    assert names(second) == [(2, "cyd"), (4, "dex")]  # cyd shares bob's rank on the page before
    last = ok(api_client.get(BOARD, {"pool": "3-4", "limit": 2, "offset": 4}))
    assert names(last) == [(5, "eve"), (6, "fox")] and last["next"] is None
    assert ok(api_client.get(BOARD, {"pool": "3-4", "offset": 100}))["results"] == []


@pytest.mark.django_db
def test_a_page_that_starts_in_a_tie_counts_the_tie_not_the_board_above_it(api_client, seeded):
    """The rank of a page's first entry, tied with the entry before the page, is read
    from the tie (the entries with its ordinal before it), not by counting every
    better entry: at half a board of 46,973 that count took 32 ms (docs/performance.md)."""
    with CaptureQueriesContext(connection) as captured:
        second = ok(api_client.get(BOARD, {"pool": "3-4", "limit": 2, "offset": 2}))
    assert names(second) == [(2, "cyd"), (4, "dex")]
    counts = [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper() and "ordinal" in q["sql"]]
    assert counts and all('"ordinal" >' not in sql and '"ordinal" =' in sql for sql in counts), counts
    humans = ok(api_client.get(BOARD, {"pool": "3-4", "kind": "humans", "limit": 1, "offset": 2}))
    assert names(humans) == [(2, "cyd")]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", [{"pool": "4"}, {"pool": "9-14"}, {"kind": "robots"}, {"pool": "2", "kind": "people"}]
)
def test_an_unknown_pool_or_kind_is_a_validation_error(api_client, query):
    body = refused(api_client.get(BOARD, query), 400, "validation_error")
    assert set(body["errors"]) <= set(query) and body["errors"]


@pytest.mark.django_db
def test_a_players_ratings(api_client, make_table):
    table = make_table(players=2, rated=True)
    play_to_end(table, random.Random(11))
    play_to_end(rematch(table), random.Random(12))
    name = table.users[0].username
    body = ok(api_client.get(ratings_url(name.upper())))  # usernames ignore case
    assert body["username"] == name and body["is_bot"] is False
    (pool,) = body["pools"]
    rating = Rating.objects.get(user=table.users[0])
    assert pool["pool"] == "2" and pool["games"] == 2 and pool["provisional"] is True
    assert pool["rating"] == pytest.approx(rating.ordinal) and pool["mu"] == pytest.approx(rating.mu)
    other = Rating.objects.get(user=table.users[1])
    assert pool["rank"] == (1 if rating.ordinal >= other.ordinal else 2)
    assert len(pool["history"]) == 2 and pool["history"][-1]["rating"] == pytest.approx(rating.ordinal)
    newest, oldest = pool["recent_matches"]
    assert newest["game_id"] > oldest["game_id"] and newest["rating_before"] == pytest.approx(oldest["rating_after"])
    assert newest["rating_after"] == pytest.approx(rating.ordinal) and newest["players"] == 2
    assert not newest["voided"]


@pytest.mark.django_db
def test_a_player_without_ratings_has_no_pools_and_an_unknown_player_is_not_found(api_client, make_player):
    make_player("newcomer")
    assert ok(api_client.get(ratings_url("newcomer"))) == {"username": "newcomer", "is_bot": False, "pools": []}
    refused(api_client.get(ratings_url("nobody")), 404, "not_found")


@pytest.mark.django_db
def test_pages_are_cached_until_a_rating_update_of_their_pool(
    api_client, make_table, seeded, django_capture_on_commit_callbacks
):
    before = ok(api_client.get(BOARD, {"pool": "3-4"}))
    # A change behind the services' back is not seen: the page comes from the cache.
    Rating.objects.filter(user=seeded["fox"], pool=RatingPool.SMALL).update(ordinal=99.0)
    assert ok(api_client.get(BOARD, {"pool": "3-4"})) == before
    assert ok(api_client.get(ratings_url("fox")))["pools"][0]["rank"] == 1  # not cached yet: read now
    # A rated match in another pool leaves this pool's pages as they are ...
    table = make_table(players=2, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(table, random.Random(21))
    assert ok(api_client.get(BOARD, {"pool": "3-4"})) == before
    assert ok(api_client.get(BOARD, {"pool": "2"}))["count"] == 3  # eve and the two new players
    # ... and one in this pool makes them stale.
    four = make_table(players=4, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(four, random.Random(22))
    after = ok(api_client.get(BOARD, {"pool": "3-4"}))
    assert after["count"] == 10 and after["results"][0]["username"] == "fox"


@pytest.mark.django_db
def test_a_void_makes_the_pages_stale_too(api_client, make_table, people, django_capture_on_commit_callbacks):
    table = make_table(players=2, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(table, random.Random(31))
    before = ok(api_client.get(BOARD, {"pool": "2"}))
    assert sorted(e["games"] for e in before["results"]) == [1, 1]
    moderator, _ = people.staff()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.match_void(game_id=table.game_id, by=moderator, reason="test").voided == 2
    after = ok(api_client.get(BOARD, {"pool": "2"}))
    assert [(e["games"], e["rating"]) for e in after["results"]] == [(0, pytest.approx(0.0, abs=1e-9))] * 2
    pools = ok(api_client.get(ratings_url(table.users[0].username)))["pools"]
    assert pools[0]["recent_matches"][0]["voided"] is True and pools[0]["history"] == []


@pytest.fixture
def tied_board(make_player):
    """23 accounts in pool 3-4 in runs of ties (ordinals 9 x3, 7 x5, 6, 4 x7, 2 x2, 1 x5),
    every third a bot, created in shuffled order (the tie's order is by account id)."""
    ordinals = [9.0] * 3 + [7.0] * 5 + [6.0] + [4.0] * 7 + [2.0] * 2 + [1.0] * 5
    random.Random(45).shuffle(ordinals)
    for n, ordinal in enumerate(ordinals):
        user = make_player(f"p{n:02d}", is_bot=n % 3 == 0)
        Rating.objects.create(
            user=user,
            pool=RatingPool.SMALL,
            mu=ordinal + 3,
            sigma=1.0,
            ordinal=ordinal,
            games=10,
            is_bot=user.is_bot,
            updated_at=timezone.now(),
        )
    return len(ordinals)


def _follow(api_client, query):
    """Every page of a board, following ``next`` from the first; the pages' bodies."""
    pages = [ok(api_client.get(BOARD, query))]
    while pages[-1]["next"]:
        pages.append(ok(api_client.get(pages[-1]["next"])))
    return pages


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["all", "humans", "bots"])
@pytest.mark.parametrize("limit", [1, 2, 3, 4, 7])
def test_next_links_page_by_cursor_with_the_ranks_of_the_offset_pages(api_client, tied_board, kind, limit):
    """A page's ``next`` link carries a cursor, not an offset: following the links reads
    the whole board once, in order, each entry with the rank the offset page gives it
    (ties across a page's edge share their rank)."""
    query = {"pool": "3-4", "kind": kind, "limit": limit}
    pages = _follow(api_client, query)
    followed = [names(page) for page in pages]
    by_offset = [
        names(ok(api_client.get(BOARD, {**query, "offset": offset}))) for offset in range(0, pages[0]["count"], limit)
    ]
    assert followed == by_offset and sum(map(len, followed)) == pages[0]["count"]
    everyone = names(ok(api_client.get(BOARD, {**query, "limit": 100})))
    assert [entry for page in followed for entry in page] == everyone
    for page in pages[1:]:
        assert page["previous"] and "cursor=" not in page["previous"] and "offset=" not in (page["next"] or "")
    if len(pages) > 1:
        assert "cursor=" in pages[0]["next"] and "offset=" not in pages[0]["next"]
        # The page before, by offset: the same entries as the page the cursor came from.
        assert names(ok(api_client.get(pages[2]["previous"] if len(pages) > 2 else pages[1]["previous"]))) == (
            followed[1] if len(pages) > 2 else followed[0]
        )
    assert pages[-1]["next"] is None


@pytest.mark.django_db
def test_a_cursor_page_reads_on_along_the_index_without_an_offset_or_a_count(api_client, tied_board):
    """Reached by its ``next`` link, a deep page costs what the first costs: no statement
    skips entries (OFFSET) or counts the entries above it; the board's count is the
    cached one."""
    first = ok(api_client.get(BOARD, {"pool": "3-4", "limit": 4}))
    second = ok(api_client.get(first["next"]))
    with CaptureQueriesContext(connection) as captured:
        third = ok(api_client.get(second["next"]))
    board = [q["sql"] for q in captured.captured_queries if "ratings_rating" in q["sql"]]  # before the next request
    assert names(third) == names(ok(api_client.get(BOARD, {"pool": "3-4", "limit": 4, "offset": 8})))
    assert board and not [sql for sql in board if "OFFSET" in sql.upper() or "COUNT(" in sql.upper()], board


@pytest.mark.django_db
@pytest.mark.parametrize(
    "cursor",
    [
        "nonsense",
        "MTox",  # "1:1" (two of the four parts)
        "MDoxOjE6MS4w",  # position 0
        "Mjo1OjE6MS4w",  # rank 5 after 2 entries
        "MjoxOjE6bmFu",  # ordinal nan
        "MjoxOjk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OjEuMA",  # an account id past bigint
        "OTk5OTk5OTk5OTk5OjE6MToxLjA",  # a position past any board
        "x" * 200,  # as long as the contract allows, no cursor
    ],
)
def test_a_bad_cursor_is_refused_with_its_own_code(api_client, tied_board, cursor):
    body = refused(api_client.get(BOARD, {"pool": "3-4", "cursor": cursor}), 422, "invalid_cursor")
    assert body["detail"]
    # An empty one is no cursor at all: refused as every empty query value is; so is one
    # the contract's pattern or length forbids (a cursor is base64url, 200 characters at most).
    refused(api_client.get(BOARD, {"pool": "3-4", "cursor": ""}), 400, "validation_error")
    refused(api_client.get(BOARD, {"pool": "3-4", "cursor": "x" * 201}), 400, "validation_error")
    refused(api_client.get(BOARD, {"pool": "3-4", "cursor": "a b"}), 400, "validation_error")


@pytest.mark.django_db
def test_a_cursor_with_an_offset_is_refused(api_client, tied_board):
    first = ok(api_client.get(BOARD, {"pool": "3-4", "limit": 2}))
    refused(api_client.get(first["next"] + "&offset=4"), 422, "invalid_cursor")


@pytest.mark.django_db
def test_a_bad_cursor_is_refused_in_estonian_too(api_client, tied_board):
    english = refused(api_client.get(BOARD, {"cursor": "nonsense"}), 422, "invalid_cursor")
    estonian = refused(api_client.get(BOARD, {"cursor": "nonsense"}, HTTP_ACCEPT_LANGUAGE="et"), 422, "invalid_cursor")
    assert estonian["detail"] != english["detail"] and estonian["title"] != english["title"]


@pytest.mark.django_db
def test_a_new_member_moves_the_cached_count_on_without_counting_the_board(
    api_client, make_table, seeded, django_capture_on_commit_callbacks, monkeypatch
):
    """The board's count is kept: a rated match that adds accounts to the pool adds them
    to the cached counts when it commits (everyone's and the human board's), so the next
    page counts nothing - however large the pool."""
    # Without Redis the count lives LOCAL_PAGE_SECONDS (5 s) in this process's memory:
    # playing the match may take longer on a busy machine; its lifetime is not tested here.
    monkeypatch.setattr(ratings_cache, "LOCAL_PAGE_SECONDS", 3600)
    assert [ok(api_client.get(BOARD, {"pool": "3-4", "kind": k}))["count"] for k in ("all", "humans", "bots")] == [
        6,
        4,
        2,
    ]
    four = make_table(players=4, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(four, random.Random(22))
    with CaptureQueriesContext(connection) as captured:
        counts = [ok(api_client.get(BOARD, {"pool": "3-4", "kind": k}))["count"] for k in ("all", "humans", "bots")]
    assert counts == [10, 8, 2]
    assert not [q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"].upper()]
    # A rematch of the same four adds nobody: the counts stay.
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(rematch(four), random.Random(23))
    assert [ok(api_client.get(BOARD, {"pool": "3-4", "kind": k}))["count"] for k in ("all", "humans", "bots")] == [
        10,
        8,
        2,
    ]


@pytest.mark.django_db
def test_an_account_marked_a_bot_moves_between_the_counted_boards(
    api_client, make_table, django_capture_on_commit_callbacks
):
    table = make_table(players=2, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(table, random.Random(41))
    assert [ok(api_client.get(BOARD, {"pool": "2", "kind": k}))["count"] for k in ("humans", "bots")] == [2, 0]
    player_services.user_set_bot(user=table.users[1], is_bot=True)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(rematch(table), random.Random(42))
    counts = [ok(api_client.get(BOARD, {"pool": "2", "kind": k}))["count"] for k in ("all", "humans", "bots")]
    assert counts == [2, 1, 1]
    assert counts == [
        Rating.objects.filter(pool="2").count(),
        *(Rating.objects.filter(pool="2", is_bot=b).count() for b in (False, True)),
    ]
