"""One account's games (a player's record, ``/games/?player=``, and the lobby's "my
games", ``/games/?mine=true``) are paged from the account's own index entries: the
page's ids read backwards along ``seat_player_game`` (and ``game_creator``), each
seat's game looked up in ``game_listed`` for the record, then those games by key.
The rows a page reads do not grow with the account's history (at the full-size
seed the busiest account's first page walked 1,816 games backwards by key to meet
its 50: docs/performance.md, "Hot paths on a large database")."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors
from games.engine.ruleset import Ruleset
from games.models import Game, GameStatus, Seat
from tests.api.games_helpers import GAMES, ok

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

RULESET = Ruleset.from_dict({"players": 2, "set_max": 6}).to_dict()


def _history(player, other, games: int) -> list[int]:
    """``games`` finished games of ``player`` against ``other`` (every seventh a practice
    game, every fifth created by ``other``, every eleventh still running), oldest first."""
    made = Game.objects.bulk_create(
        Game(
            creator=other if n % 5 == 0 else player,
            status=GameStatus.RUNNING if n % 11 == 0 else GameStatus.FINISHED,
            practice=n % 7 == 0,
            ruleset=RULESET,
            seed=n,
        )
        for n in range(games)
    )
    Seat.objects.bulk_create(
        Seat(game=game, number=number, player=who) for game in made for number, who in enumerate((player, other))
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game")
        cursor.execute("ANALYZE games_seat")
    return [game.pk for game in made]


def _explain_rows(sql: str) -> int:
    """The rows the statement's plan nodes read (the sum of their actual rows x loops)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT TEXT) {sql}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return sum(int(rows) * int(loops) for rows, loops in re.findall(r"actual time=\S+ rows=(\d+) loops=(\d+)", plan))


def _page(client, query) -> tuple[dict, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        body = ok(client.get(GAMES, query))
    return body, [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize("query", [{"player": "alice"}, {"player": "alice", "status": "finished"}, {"mine": "true"}])
def test_an_accounts_page_reads_the_same_whatever_its_history(api_client, make_player, token_client, query):
    alice, bob = make_player("alice"), make_player("bob")
    carol, dan = make_player("carol"), make_player("dan")
    _history(carol, dan, 80)
    _history(alice, bob, 3000)
    reads = {}
    for who in (carol, alice):
        client = token_client(who)
        ask = {**query, "player": who.username} if "player" in query else query
        body, statements = _page(client, ask)
        # The same page as the list itself, newest first, with the list's count.
        listed = selectors.game_list(
            status=query.get("status"),
            mine_of=who if "mine" in query else None,
            player=who if "player" in query else None,
        )
        assert [g["id"] for g in body["results"]] == list(listed.values_list("pk", flat=True)[:50])
        assert body["count"] == listed.count() and len(body["results"]) == 50
        page = [sql for sql in statements if "ORDER BY" in sql and "LIMIT" in sql and "COUNT(" not in sql.upper()]
        assert page, statements
        reads[who.username] = (len(statements), max(_explain_rows(sql) for sql in page))
    # As many statements for 3,000 games as for 60, and each page statement reads about a page.
    assert reads["alice"][0] == reads["carol"][0], reads
    assert reads["alice"][1] <= 2 * reads["carol"][1] + 20 and reads["alice"][1] < 400, reads


def test_a_deeper_page_and_the_last_are_the_lists_too(make_player, token_client):
    alice, bob = make_player("alice"), make_player("bob")
    _history(alice, bob, 130)
    client = token_client(alice)
    for query in ({"player": "alice"}, {"mine": "true"}):
        listed = selectors.game_list(
            mine_of=alice if "mine" in query else None, player=None if "mine" in query else alice
        )
        ids = list(listed.values_list("pk", flat=True))
        for offset in (0, 37, 100, len(ids) - 3, len(ids), len(ids) + 5):
            body = ok(client.get(GAMES, {**query, "limit": 20, "offset": offset}))
            assert [g["id"] for g in body["results"]] == ids[offset : offset + 20], (query, offset)
            assert body["count"] == len(ids)
            assert (body["next"] is None) == (offset + 20 >= len(ids))
