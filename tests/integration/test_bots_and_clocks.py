"""Bots and turn clocks, run by real Celery worker processes on a real Redis,
against the real PostgreSQL test database. Nothing here is eager or mocked."""

from __future__ import annotations

import functools
from datetime import timedelta

import psycopg

from games import services
from games.engine import Match, Ruleset
from games.models import Game, GameStatus, Move, MoveSource
from tests.integration.workers import WITH_WORKERS, session_database_url, use_broker, wait_for

pytestmark = WITH_WORKERS

FOUR_PLAYERS = {"set_max": 6, "players": 4}


def bot_table(creator, *, ruleset=FOUR_PLAYERS, strategies=("greedy", "random", "greedy", "random")):
    game = services.game_create(creator=creator, ruleset=ruleset, sit=False)
    for strategy in strategies:
        services.game_add_bot(game_id=game.pk, by=creator, strategy=strategy)
    return game


def finished(game_id: int) -> Game | None:
    game = Game.objects.get(pk=game_id)
    return game if game.status == GameStatus.FINISHED else None


def assert_replays(game: Game) -> None:
    """The stored moves replay to the stored state: no move lost, none doubled."""
    moves = list(Move.objects.filter(game=game).order_by("number").values_list("number", "seat", "payload"))
    assert [n for n, _, _ in moves] == list(range(1, len(moves) + 1))
    replayed = Match.replay(Ruleset.from_dict(game.ruleset), game.seed, [(s, p) for _, s, p in moves], game.setup)
    assert replayed.to_dict() == game.state


def test_four_bots_play_a_full_match(make_player, start_worker):
    # With beat, as every deployment runs (make serve, the Procfile): a follow-up the
    # worker could not send (a broker call that timed out on a machine busy with
    # other work opens the broker's breaker for a moment) waits for the sweep, and
    # without beat it would wait for ever.
    worker = start_worker(beat=True)
    creator = make_player("host")
    game = bot_table(creator)
    services.game_start(game_id=game.pk, by=creator)

    game = wait_for(
        lambda: finished(game.pk), timeout=90, what="the bot match to finish", explain=lambda: worker.log()[-4000:]
    )
    assert game.result["winners"]
    assert len(game.state["rounds"]) == 7  # double-6: 6-6 down to 0-0
    assert set(Move.objects.filter(game=game).values_list("source", flat=True)) == {MoveSource.BOT}
    assert_replays(game)


def test_a_human_and_three_bots_finish_driven_only_by_the_human(make_player, start_worker):
    start_worker(beat=True)  # as in test_four_bots_play_a_full_match
    human = make_player("human")
    game = services.game_create(creator=human, ruleset={**FOUR_PLAYERS, "rounds": 2})
    for strategy in ("random", "greedy", "random"):
        services.game_add_bot(game_id=game.pk, by=human, strategy=strategy)
    services.game_start(game_id=game.pk, by=human)

    def human_turn_or_end() -> Game | None:
        g = Game.objects.get(pk=game.pk)
        return g if g.status == GameStatus.FINISHED or g.turn_seat == 0 else None

    human_moves = 0
    while (
        current := wait_for(human_turn_or_end, timeout=30, what="the human's turn or the end")
    ).status != GameStatus.FINISHED:
        move = Match.from_dict(current.state).legal_moves(0)[-1].to_dict()
        services.move_submit(game_id=game.pk, player=human, move=move, expected_seq=current.seq)
        human_moves += 1
    assert human_moves == Move.objects.filter(game=current, seat=0).count() > 0
    assert_replays(current)


def test_turn_clock_fires_on_time_and_hands_the_seat_to_a_bot_after_three(make_player, start_worker):
    start_worker(beat=True)  # beat runs the turn clock (ops.clock) every CLOCK_INTERVAL_SECONDS
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1}, turn_time_limit=1)
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    game.refresh_from_db()
    deadline = game.turn_deadline
    absent = game.turn_seat

    first = wait_for(
        lambda: Move.objects.filter(game=game, source=MoveSource.TIMEOUT).first(), timeout=10, what="the first timeout"
    )
    lateness = (first.created_at - deadline).total_seconds()
    # Not early: the service refuses a clock before its deadline. Not late: the clock runs every
    # 0.5 s (0.1-0.6 s late measured with both cores busy); 2 s after a 1-s clock is still
    # "on time" to a player.
    assert 0 <= lateness < 2.0, f"the clock fired {lateness:.2f} s after the deadline"
    assert first.seat == absent

    # Nobody moves: both seats time out in turn; the third timeout in a row hands a seat to a bot.
    wait_for(
        lambda: Game.objects.get(pk=game.pk).seats.filter(away=True).exists() or finished(game.pk),
        timeout=30,
        what="a seat handed to a bot",
    )
    types = set(game.events.values_list("type", flat=True))
    assert "turn_timed_out" in types
    if not finished(game.pk):
        assert "seat_handed_to_bot" in types


def test_a_deadline_set_while_the_broker_was_away_fires_on_time(make_player, start_worker):
    # Nothing is sent for a deadline: the clock reads it from the database.
    start_worker(beat=True)
    alice, bob = make_player("alice"), make_player("bob")
    with use_broker("memory://"):  # whatever the move sends goes where no worker listens
        game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1}, turn_time_limit=1)
        services.game_join(game_id=game.pk, player=bob)
        services.game_start(game_id=game.pk, by=alice)
    game.refresh_from_db()

    move = wait_for(
        lambda: Move.objects.filter(game=game, source=MoveSource.TIMEOUT).first(),
        timeout=20,
        what="the clock to fire the deadline",
    )
    lateness = (move.created_at - game.turn_deadline).total_seconds()
    assert 0 <= lateness < 2.0, f"fired {lateness:.2f} s after the deadline"


def clock_ok(client) -> bool:
    return client.get("/api/v1/health/").json()["checks"]["clock"]["ok"]


def test_the_clock_fires_after_its_worker_is_killed_and_another_started(
    make_player, start_worker, api_client, settings
):
    """The worker with beat dies before the deadline: the health report says the clock
    stopped, and the deadline fires once a new one runs (its beat takes the lease over
    once the dead one's runs out, BEAT_LEASE_SECONDS)."""
    settings.HEALTH_CLOCK_STALE_SECONDS = 2
    doomed = start_worker(beat=True, name="doomed")
    wait_for(lambda: clock_ok(api_client), timeout=30, what="the clock to run", explain=doomed.log)
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1}, turn_time_limit=2)
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    game.refresh_from_db()
    doomed.kill()

    wait_for(lambda: not clock_ok(api_client), timeout=10, what="the report to see the clock stopped")
    assert not Move.objects.filter(game=game).exists()
    rescuer = start_worker(beat=True, name="rescuer")
    move = wait_for(
        lambda: Move.objects.filter(game=game, source=MoveSource.TIMEOUT).first(),
        timeout=settings.BEAT_LEASE_SECONDS + 30,
        what="the new worker's clock to fire the deadline",
        explain=rescuer.log,
    )
    late = (move.created_at - game.turn_deadline).total_seconds()
    print(f"fired {late:.2f} s after the deadline, its worker killed before it")
    assert late >= 0
    wait_for(lambda: clock_ok(api_client), timeout=10, what="the report to see the clock again")


def test_two_workers_with_beat_play_each_timeout_once(make_player, start_worker):
    """Two workers, each with beat: one beat sends the clock (the lease), the runs go to
    either worker, and every deadline is played once."""
    first, second = start_worker(beat=True, name="one"), start_worker(beat=True, name="two")
    tables = []
    for n in range(4):
        alice, bob = make_player(f"alice{n}"), make_player(f"bob{n}")
        game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1}, turn_time_limit=1)
        services.game_join(game_id=game.pk, player=bob)
        services.game_start(game_id=game.pk, by=alice)
        tables.append(game)

    def four_timeouts_each() -> bool:
        return all(Move.objects.filter(game=g, source=MoveSource.TIMEOUT).count() >= 4 for g in tables)

    wait_for(four_timeouts_each, timeout=60, what="four timeouts at every table")
    # Three in a row hand a seat to a bot: the bots finish the tables.
    for table in tables:
        game = wait_for(functools.partial(finished, table.pk), timeout=60, what="the bots to finish the table")
        timeouts = Move.objects.filter(game=game, source=MoveSource.TIMEOUT).count()
        assert game.events.filter(type="turn_timed_out").count() == timeouts
        assert_replays(game)
    logs = first.log() + second.log()
    assert logs.count("holds the lease") == 1, "both beats sent"
    assert "ops.clock" in first.log() and "ops.clock" in second.log(), "one worker ran every clock"


def blocked_on_a_lock(worker_name: str) -> bool:
    """Is a database session of the worker named ``worker_name`` waiting for a lock?"""
    with psycopg.connect(session_database_url(application_name="test-holder")) as session:
        row = session.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
            "AND datname = current_database() AND wait_event_type = 'Lock'",
            [worker_name],
        ).fetchone()
    return row is not None and row[0] > 0


def test_killing_the_worker_mid_match_and_starting_another_finishes_it(make_player, start_worker):
    first = start_worker(beat=True, name="doomed")
    creator = make_player("host")
    game = services.game_create(creator=creator, ruleset={**FOUR_PLAYERS, "rounds": 3}, bot_delay_ms=20, sit=False)
    for strategy in ("greedy", "random", "greedy", "random"):
        services.game_add_bot(game_id=game.pk, by=creator, strategy=strategy)
    services.game_start(game_id=game.pk, by=creator)

    wait_for(lambda: Move.objects.filter(game=game).count() >= 10, timeout=30, what="ten moves")
    # The test holds the game row: the worker's next bot turn stops inside its transaction, and
    # the worker is killed there - mid-task, the task unacknowledged, the match certainly unfinished.
    with psycopg.connect(session_database_url(application_name="test-holder")) as holder:
        holder.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
        wait_for(
            lambda: blocked_on_a_lock(first.name),
            timeout=30,
            what="the worker to wait for the game row",
            explain=lambda: first.log()[-3000:],
        )
        first.kill()
        holder.rollback()
    moves_at_kill = Move.objects.filter(game=game).count()
    assert not finished(game.pk)

    start_worker(beat=True, name="rescuer")
    game = wait_for(lambda: finished(game.pk), timeout=90, what="the match to finish after the crash")
    assert Move.objects.filter(game=game).count() > moves_at_kill
    assert_replays(game)


def test_clocks_fire_on_time_while_the_worker_is_busy_with_strong_bots(make_player, start_worker):
    """One worker process, three tables of four `strong` bots playing at once, and a
    table whose two players never move (1-s clock, level `strong`): every timeout still
    comes within 2 s of its deadline, while the bots keep playing."""
    start_worker(beat=True)
    host = make_player("host")
    busy = [
        bot_table(host, ruleset={"set_max": 6, "players": 4, "rounds": 2}, strategies=("strong",) * 4) for _ in range(3)
    ]
    alice, bob = make_player("alice"), make_player("bob")
    clock = services.game_create(
        creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1}, turn_time_limit=1, bot_strategy="strong"
    )
    services.game_join(game_id=clock.pk, player=bob)
    for game in busy:
        services.game_start(game_id=game.pk, by=host)
    services.game_start(game_id=clock.pk, by=alice)
    clock.refresh_from_db()
    assert clock.turn_deadline is not None
    started = clock.turn_deadline - timedelta(seconds=1)

    def four_timeouts() -> list[Move] | None:
        found = list(Move.objects.filter(game=clock, source=MoveSource.TIMEOUT).order_by("number")[:4])
        return found if len(found) == 4 else None

    timeouts = wait_for(four_timeouts, timeout=40, what="four timeouts")
    previous = started
    for move in timeouts:
        moves_before = Move.objects.filter(game=clock, number__lt=move.number).order_by("-number").first()
        since = moves_before.created_at if moves_before is not None else previous
        lateness = (move.created_at - since).total_seconds() - 1
        assert 0 <= lateness < 2.0, f"timeout {move.number} came {lateness:.2f} s after its deadline"
    window = (timeouts[0].created_at, timeouts[-1].created_at)
    bot_moves = Move.objects.filter(game__in=busy, source=MoveSource.BOT, created_at__range=window).count()
    assert bot_moves > 0, "the strong bots did not play while the clocks ran"
