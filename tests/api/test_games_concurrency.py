"""Idempotent retries (Idempotency-Key) and concurrent submissions of one turn.

The concurrent tests run real threads, each with its own client and database
connection, against PostgreSQL (row locks are what they test)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.http import HttpResponse

from games.models import Event, Move
from tests.api.games_helpers import PLAY_SETUP, Table, move, ok, play, refused, view
from tests.openapi_check import assert_matches_schema

KEY = "Idempotency-Key"


def retry_ok(response: HttpResponse) -> dict[str, Any]:
    body = ok(response, 200)
    assert response["Idempotent-Replayed"] == "true"
    return body


def assert_log_intact(table: Table, moves: int) -> None:
    """Moves numbered 1..n, events 1..seq with no gap, each move at its first event."""
    game = table.game()
    numbers = list(Move.objects.filter(game=game).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, moves + 1)) == list(range(1, game.state["move_count"] + 1))
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.seq + 1))
    for move_seq, payload in Move.objects.filter(game=game).values_list("seq", "payload"):
        first = Event.objects.get(game=game, seq=move_seq)
        assert first.type == {"play": "tile_played", "draw": "drew", "pass": "passed"}[payload["type"]]


# -- retries, one after the other ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_retry_returns_the_first_answer(make_table):
    table = make_table(setup=PLAY_SETUP)
    seq = table.game().seq
    first = ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "move-1"}), 201)
    again = retry_ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "move-1"}))
    assert again["move"] == first["move"] and again["events"] == first["events"]
    assert again["game"]["game"]["seq"] == first["game"]["game"]["seq"] == seq + 1
    assert Move.objects.filter(game_id=table.game_id).count() == 1
    assert_log_intact(table, 1)


@pytest.mark.django_db
def test_a_retry_after_the_game_moved_on_still_returns_the_first_answer(make_table):
    table = make_table(setup=PLAY_SETUP, turn_time_limit=60)
    seq = table.game().seq
    first = ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "k"}), 201)
    ok(table.clients[0].post(table.action("resign")))  # not a move, but an event after it
    again = retry_ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "k"}))
    assert again["move"] == first["move"]
    assert again["events"] == first["events"]  # the move's events only, not what came after
    assert again["game"]["game"]["seq"] == table.game().seq  # ... and the game as it is now
    assert Move.objects.filter(game_id=table.game_id).count() == 1


@pytest.mark.django_db
def test_a_retry_after_later_moves_returns_only_its_own_events(make_table):
    table = make_table(setup=PLAY_SETUP)
    seq = table.game().seq
    first = ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "k"}), 201)
    ok(move(table.clients[0], table.game_id, table.game().seq, play("6-5", "e2")), 201)
    again = retry_ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "k"}))
    assert again["move"] == first["move"] and again["events"] == first["events"]
    assert_log_intact(table, 2)


@pytest.mark.django_db
def test_a_key_reused_for_another_move_is_refused(make_table):
    table = make_table(setup=PLAY_SETUP)
    seq = table.game().seq
    ok(move(table.clients[1], table.game_id, seq, play("6-1", "e1"), **{KEY: "k"}), 201)
    state = table.game().state
    for other in (play("6-1", "e2"), play("6-2", "e1"), {"type": "draw"}):
        refused(move(table.clients[1], table.game_id, seq, other, **{KEY: "k"}), 422, "idempotency_key_reused")
    assert table.game().state == state and Move.objects.count() == 1


@pytest.mark.django_db
def test_keys_belong_to_one_player(make_table):
    table = make_table(setup=PLAY_SETUP)
    ok(move(table.clients[1], table.game_id, table.game().seq, play("6-1", "e1"), **{KEY: "same"}), 201)
    ok(move(table.clients[0], table.game_id, table.game().seq, play("6-5", "e2"), **{KEY: "same"}), 201)
    assert_log_intact(table, 2)


# -- concurrent submissions (PostgreSQL) ----------------------------------------------------------

THREADS = 6


def race(requests: list[Callable[..., Any]]) -> list[Any]:
    """Run the requests at the same moment, one thread (and connection) each."""
    barrier = threading.Barrier(len(requests))
    responses: list[Any] = [None] * len(requests)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            responses[index] = requests[index]()
        except BaseException as error:  # reported below, in the test's thread
            responses[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a request hung"
    errors = [r for r in responses if isinstance(r, BaseException)]
    assert not errors, errors
    return responses


@pytest.fixture
def raced_table(make_table, people) -> tuple[Table, dict[int, list[Any]]]:
    """A table where seat 1 is to move, and THREADS clients (own tokens) of each seat's player."""
    table = make_table(setup=PLAY_SETUP)
    return table, {seat: [people.token_client(user) for _ in range(THREADS)] for seat, user in enumerate(table.users)}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_turn_submitted_many_times_at_once_is_played_once(raced_table):
    table, clients = raced_table
    seq = table.game().seq
    choices = [play(t, e) for t in ("6-1", "6-2") for e in ("e1", "e2", "e3")]
    responses = race(
        [lambda c=c, m=m: move(c, table.game_id, seq, m) for c, m in zip(clients[1], choices, strict=True)]
    )
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 409: THREADS - 1}, statuses
    winner = next(r for r in responses if r.status_code == 201)
    ok(winner, 201)
    for response in responses:
        if response.status_code == 409:
            problem = refused(response, 409, "stale_seq")
            assert problem["current_seq"] == table.game().seq
    assert_log_intact(table, 1)
    assert Move.objects.get().payload == winner.json()["move"]["move"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_both_seats_racing_for_one_turn(raced_table):
    table, clients = raced_table
    seq = table.game().seq
    requests = [lambda c=c: move(c, table.game_id, seq, play("6-1", "e1")) for c in clients[1][:3]]
    requests += [lambda c=c: move(c, table.game_id, seq, play("6-5", "e1")) for c in clients[0][:3]]
    responses = race(requests)
    codes = Counter(r.status_code if r.status_code == 201 else r.json()["code"] for r in responses)
    assert codes[201] == 1 and set(codes) <= {201, "stale_seq", "not_your_turn"}, codes
    for response in responses:
        if response.status_code != 201:
            assert_matches_schema(response)
    assert_log_intact(table, 1)
    assert Move.objects.get().seat == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_key_sent_many_times_at_once_moves_once(raced_table):
    table, clients = raced_table
    seq = table.game().seq
    responses = race([lambda c=c: move(c, table.game_id, seq, play("6-1", "e1"), **{KEY: "once"}) for c in clients[1]])
    assert Counter(r.status_code for r in responses) == {201: 1, 200: THREADS - 1}
    first = ok(next(r for r in responses if r.status_code == 201), 201)
    for response in responses:
        if response.status_code == 200:
            again = retry_ok(response)
            assert again["move"] == first["move"] and again["events"] == first["events"]
    assert_log_intact(table, 1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_turn_after_turn_under_contention_each_is_played_once(raced_table):
    table, clients = raced_table
    for turn in range(1, 5):
        game = table.game()
        racers = clients[game.turn_seat]
        legal = view(racers[0], table.game_id)["you"]["legal_moves"]
        responses = race(
            [
                lambda c=c, m=m, seq=game.seq: move(c, table.game_id, seq, m)
                for c, m in zip(racers, legal * THREADS, strict=False)
            ]
        )
        assert Counter(r.status_code for r in responses) == {201: 1, 409: THREADS - 1}
        assert_log_intact(table, turn)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_that_waited_for_the_lock_sees_the_seat_as_the_holder_left_it(raced_table):
    """The move reads the seats in the statement that locks the game row, so that read
    is as old as the statement: when another change committed while it waited, it must
    read them again. Forced: a session holds the row, the move waits on it, the session
    resigns the mover's seat (writing the row, as every change does) and commits."""
    import psycopg

    table, clients = raced_table
    seq = table.game().seq
    settings = connection.settings_dict
    conninfo = psycopg.conninfo.make_conninfo(
        dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"], port=settings["PORT"]
    )
    with psycopg.connect(conninfo) as holder:
        holder.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [table.game_id])
        responses: list[Any] = []

        def submit() -> None:
            try:
                responses.append(move(clients[1][0], table.game_id, seq, play("6-1", "e1")))
            finally:
                connection.close()

        mover = threading.Thread(target=submit)
        mover.start()
        waiting = (
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        deadline = threading.Event()
        with psycopg.connect(conninfo, autocommit=True) as watcher:  # a fresh view of pg_stat_activity each time
            for _ in range(200):
                row = watcher.execute(waiting).fetchone()
                if row and row[0]:
                    break
                deadline.wait(0.05)
            else:
                pytest.fail(f"the move never waited for the game row: {responses and responses[0].content!r}")
        holder.execute(
            "UPDATE games_seat SET resigned = true, bot_strategy = 'greedy' WHERE game_id = %s AND number = 1",
            [table.game_id],
        )
        holder.execute("UPDATE games_game SET seq = seq WHERE id = %s", [table.game_id])
        holder.commit()
    mover.join(timeout=30)
    assert responses, "the move hung"
    refused(responses[0], 409, "seat_resigned")
    assert not Move.objects.filter(game_id=table.game_id).exists()
