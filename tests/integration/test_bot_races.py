"""Two real worker processes offered the same bot turn move it once.

A bot's turn is a task carrying the game id and the seq it expects; a duplicate
(a redelivery, the sweep re-sending, a second worker) must change nothing. These
tests do not flood the workers and hope for a collision: they force each
interleaving with PostgreSQL's own locks, watched in ``pg_stat_activity``
(every worker names its sessions after itself):

* one worker is paused *inside* its transaction - it holds the game row and waits
  to insert the move, because the test holds a lock on the moves table - while
  the duplicate reaches the other worker, which must then wait for the row;
* both workers wait for the game row, which the test holds, and are let go at once.

Nothing here sleeps: every wait is for a condition, with a deadline.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest

from games import services
from games.models import Game, GameStatus, Move
from live.tasks import play_bot_turn
from tests.integration.test_bots_and_clocks import FOUR_PLAYERS, assert_replays, bot_table, finished
from tests.integration.workers import WITH_WORKERS, Worker, session_database_url, use_broker, wait_for

pytestmark = WITH_WORKERS

# Seat 1 holds the 6-6 and places it: the bot in seat 0 is to move, with a choice.
SETUP = {
    "hands": [["6-5", "6-4", "1-0", "2-0", "3-0", "4-0", "5-0"], ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0"]]
}
WAIT = 30  # seconds: a deadline for conditions that take milliseconds


def bot_to_move(human) -> Game:
    """A running two-seat game whose bot (seat 0) is to move and whose own bot task was
    lost (sent where no worker listens): the test sends that task itself."""
    with use_broker("memory://"):
        game = services.game_create(creator=human, ruleset={"set_max": 6, "players": 2}, setup=SETUP, sit=False)
        services.game_add_bot(game_id=game.pk, by=human, strategy="greedy", seat=0)
        services.game_join(game_id=game.pk, player=human, seat=1)
        services.game_start(game_id=game.pk, by=human)
    game.refresh_from_db()
    assert game.turn_seat == 0 and not Move.objects.filter(game=game).exists()
    return game


@contextmanager
def session() -> Iterator[psycopg.Connection]:
    """A database session of the test's own, outside Django's (and so outside its transactions)."""
    with psycopg.connect(session_database_url(application_name="test-holder")) as connection:
        yield connection


def activity(*workers: Worker) -> str:
    """What the workers' sessions are doing, and the end of their logs (for failure messages)."""
    with session() as connection:
        rows = connection.execute(
            "SELECT application_name, state, wait_event_type, wait_event, left(query, 120) FROM pg_stat_activity "
            "WHERE application_name = ANY(%s) AND datname = current_database()",
            [[w.name for w in workers]],
        ).fetchall()
    logs = "\n".join(f"--- {w.name} log:\n{w.log()[-3000:]}" for w in workers)
    return "pg_stat_activity:\n" + "\n".join(map(str, rows)) + "\n" + logs


def waiting_on_lock(worker: Worker, query_part: str) -> bool:
    """Is ``worker`` blocked on a lock, in a statement that does ``query_part`` (a move's
    insert is a WITH clause of the game row's update: one statement writes the move)?"""
    with session() as connection:
        rows = connection.execute(
            "SELECT query FROM pg_stat_activity WHERE application_name = %s AND datname = current_database() "
            "AND wait_event_type = 'Lock'",
            [worker.name],
        ).fetchall()
    return any(query_part.upper() in query.upper() for (query,) in rows)


def finished_task(worker: Worker, task_id: str) -> bool:
    return f"[{task_id}] succeeded" in worker.log()


def send(worker: Worker, game: Game) -> str:
    """The bot turn of ``game`` at its current seq, to ``worker`` alone."""
    return play_bot_turn.apply_async((game.pk, game.seq), queue=worker.queue).id


@pytest.fixture
def two_workers(start_worker, queue_name) -> tuple[Worker, Worker]:
    return (start_worker(name="w1", queue=f"{queue_name}-w1"), start_worker(name="w2", queue=f"{queue_name}-w2"))


def test_a_duplicate_that_arrives_while_the_first_is_inside_its_transaction_waits_and_does_nothing(
    make_player,
    two_workers,
):
    first, second = two_workers
    game = bot_to_move(make_player("human"))

    with session() as holder:
        holder.execute("LOCK TABLE games_move IN SHARE MODE")  # no move can be inserted until we let go
        first_task = send(first, game)
        # The first worker has locked the game row, chosen its move and is stopped at the insert.
        wait_for(
            lambda: waiting_on_lock(first, 'INSERT INTO "games_move"'),
            WAIT,
            what="w1 paused at its insert",
            explain=lambda: activity(first, second),
        )
        second_task = send(second, game)
        # The duplicate reaches the other worker, which waits for the row w1 holds.
        wait_for(
            lambda: waiting_on_lock(second, "SELECT"),
            WAIT,
            what="w2 waiting for the game row",
            explain=lambda: activity(first, second),
        )
        assert Move.objects.filter(game=game).count() == 0
        holder.rollback()  # let go: w1 commits, then w2 gets the row

    wait_for(
        lambda: finished_task(first, first_task) and finished_task(second, second_task),
        WAIT,
        what="both tasks to finish",
        explain=lambda: activity(first, second),
    )
    assert Move.objects.filter(game=game).count() == 1
    assert Move.objects.get(game=game).seq == game.seq + 1
    assert f"at seq {game.seq} is stale" in second.log()
    assert "is stale" not in first.log()
    after = Game.objects.get(pk=game.pk)
    assert after.turn_seat == 1 and after.seq > game.seq


def test_two_workers_waiting_for_the_same_row_move_once(make_player, two_workers):
    first, second = two_workers
    game = bot_to_move(make_player("human"))

    with session() as holder:
        holder.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
        tasks = {worker.name: send(worker, game) for worker in two_workers}
        wait_for(
            lambda: waiting_on_lock(first, "SELECT") and waiting_on_lock(second, "SELECT"),
            WAIT,
            what="both workers waiting for the game row",
            explain=lambda: activity(first, second),
        )
        holder.rollback()  # both are let go at once: whichever wins moves, the other finds it stale

    wait_for(
        lambda: all(finished_task(worker, tasks[worker.name]) for worker in two_workers),
        WAIT,
        what="both tasks to finish",
        explain=lambda: activity(first, second),
    )
    assert Move.objects.filter(game=game).count() == 1
    stale = [worker.name for worker in two_workers if f"at seq {game.seq} is stale" in worker.log()]
    assert len(stale) == 1, stale


def test_a_duplicate_delivered_after_the_move_changes_nothing(make_player, two_workers):
    first, second = two_workers
    game = bot_to_move(make_player("human"))
    first_task = send(first, game)
    wait_for(lambda: finished_task(first, first_task), WAIT, what="the first task")
    moved = Game.objects.get(pk=game.pk)

    late = [send(worker, game) for worker in (first, second, second)]
    wait_for(
        lambda: finished_task(first, late[0]) and all(finished_task(second, t) for t in late[1:]),
        WAIT,
        what="the late duplicates",
    )
    assert Move.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).seq == moved.seq


def test_a_whole_match_with_every_turn_offered_to_both_workers_replays_exactly(make_player, start_worker, queue_name):
    """Beside the forced interleavings above: a full four-bot match in which every
    turn's task is also sent once more to each of two workers (a bounded number of
    duplicates - two per turn - so the match's pace does not depend on the machine's)."""
    workers = [start_worker(name=name, queue=f"{queue_name}-{name}") for name in ("w1", "w2")]
    start_worker(name="w0")  # takes the game's own tasks, from the test's queue
    creator = make_player("host")
    game = bot_table(creator, ruleset={**FOUR_PLAYERS, "rounds": 3})
    done = threading.Event()
    offered: list[int] = []

    def offer_every_turn_twice() -> None:
        from django.db import connection

        try:
            while not done.is_set():
                current = Game.objects.filter(pk=game.pk).values_list("seq", "status").first()
                if current is None or current[1] != GameStatus.RUNNING:
                    return
                if not offered or offered[-1] != current[0]:
                    offered.append(current[0])
                    for worker in workers:
                        play_bot_turn.apply_async((game.pk, current[0]), queue=worker.queue)
                done.wait(0.005)
        finally:
            connection.close()

    pusher = threading.Thread(target=offer_every_turn_twice)
    services.game_start(game_id=game.pk, by=creator)
    pusher.start()
    try:
        game = wait_for(lambda: finished(game.pk), timeout=120, what="the match to finish")
    finally:
        done.set()
        pusher.join(10)
    assert_replays(game)
    assert len(offered) > 20  # the duplicates did meet the match, turn after turn
