"""The production stack while Redis goes away: PostgreSQL holds the games, Redis
only helps. The Procfile's web server, a worker with beat, a Redis of the test's
own that the test stops and restarts, and clients playing over HTTP."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from django.utils import timezone

from games import services
from games.models import Game, GameStatus, Move, MoveSource
from tests.integration.redis_server import RedisServer
from tests.integration.test_bots_and_clocks import assert_replays
from tests.integration.web import SseClient, WebServer, request, sign_up
from tests.integration.workers import WITH_WORKERS, Worker, session_database_url, use_broker, wait_for

pytestmark = WITH_WORKERS

OUTAGE_SECONDS = 20
THINK_SECONDS = 0.1  # a client's pause before each move, so that matches outlast the outage


@pytest.fixture
def own_redis(tmp_path):
    server = RedisServer(tmp_path / "redis")
    yield server
    server.stop()


@pytest.fixture
def stack(tmp_path, own_redis):
    """Web (gunicorn, 2 processes) and a worker with beat, all on ``own_redis``."""
    web = WebServer(tmp_path / "web.log", redis_url=own_redis.url, broker_url=own_redis.url, workers=2)
    worker = Worker(own_redis.url, tmp_path / "worker.log", queue="celery", beat=True, name="w1")
    yield web, worker
    worker.stop()
    web.stop()


@dataclass
class Client:
    """A player over HTTP: reads the game, moves when it is its turn, long-polls otherwise."""

    port: int
    token: str
    game_id: int
    statuses: Counter[int] = field(default_factory=Counter)
    accepted: list[dict[str, Any]] = field(default_factory=list)  # the 201 answers' moves
    errors: list[str] = field(default_factory=list)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        try:
            status, answer = request(self.port, method, f"/api/v1{path}", body, token=self.token, headers=headers)
        except OSError as error:  # the web server did not answer at all: as bad as a 5xx
            self.errors.append(f"{method} {path}: {error!r}")
            return 0, None
        self.statuses[status] += 1
        if status >= 500:
            self.errors.append(f"{method} {path}: {status} {answer}")
        return status, answer

    def play(self, stop: threading.Event) -> None:
        rng = random.Random(self.token)
        while not stop.is_set():
            status, view = self.call("GET", f"/games/{self.game_id}/")
            if status != 200:
                time.sleep(0.2)
                continue
            game = view["game"]
            if game["status"] != "running":
                return
            if not view["you"]["your_turn"]:
                self.call("GET", f"/games/{self.game_id}/events/?after={game['seq']}&wait=2")
                continue
            time.sleep(THINK_SECONDS)
            move = rng.choice(view["you"]["legal_moves"])
            status, answer = self.call(
                "POST",
                f"/games/{self.game_id}/moves/",
                {**move, "expected_seq": game["seq"]},
                headers={"Idempotency-Key": str(uuid.uuid4())},
            )
            if status == 201:
                self.accepted.append({**answer["move"], "at": time.monotonic()})
            elif status != 409:  # stale_seq: re-read; anything else is a failure of the server
                self.errors.append(f"move: {status} {answer}")


@dataclass
class Follower:
    """An SSE client of one game that reconnects with Last-Event-ID until ``end``."""

    port: int
    token: str
    game_id: int
    ids: list[int] = field(default_factory=list)
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)

    def follow(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                stream = SseClient(
                    self.port,
                    f"/api/v1/games/{self.game_id}/stream/",
                    token=self.token,
                    last_event_id=str(self.ids[-1] if self.ids else 0),
                    timeout=10,
                )
                if stream.status != 200:
                    self.errors.append(f"stream: {stream.status}")
                    time.sleep(0.5)
                    continue
                for message in stream.messages():
                    if message.event == "end" or stop.is_set():
                        return
                    if message.id is not None:
                        self.ids.append(int(message.id))
            except OSError:
                pass  # a dropped connection: resume after the last event seen
            self.reconnects += 1


def test_moves_go_on_while_redis_is_down_and_bots_resume_when_it_is_back(make_player, stack, own_redis):
    web, worker = stack
    tokens = [sign_up(web.port, f"p{n}") for n in range(8)]
    games: list[int] = []
    clients: list[Client] = []
    for pair in range(4):  # three duels, and a table of two people and two server bots
        host, guest = tokens[2 * pair], tokens[2 * pair + 1]
        bots = pair == 3
        status, body = request(
            web.port, "POST", "/api/v1/games/", {"ruleset": {"set_max": 6, "players": 4 if bots else 2}}, token=host
        )
        assert status == 201, body
        game_id = body["game"]["id"]
        assert request(web.port, "POST", f"/api/v1/games/{game_id}/join/", {}, token=guest)[0] == 200
        if bots:
            for strategy in ("greedy", "random"):
                assert (
                    request(web.port, "POST", f"/api/v1/games/{game_id}/bots/", {"strategy": strategy}, token=host)[0]
                    == 200
                )
        assert request(web.port, "POST", f"/api/v1/games/{game_id}/start/", token=host)[0] == 200
        games.append(game_id)
        clients += [Client(web.port, host, game_id), Client(web.port, guest, game_id)]
    bot_game = games[3]
    followers = [Follower(web.port, tokens[2 * i], game_id) for i, game_id in enumerate(games)]
    stop = threading.Event()
    threads = [threading.Thread(target=c.play, args=(stop,)) for c in clients]
    threads += [threading.Thread(target=f.follow, args=(stop,)) for f in followers]
    for thread in threads:
        thread.start()
    try:
        wait_for(
            lambda: all(Game.objects.get(pk=g).seq >= 25 for g in games), 60, interval=0.2, what="every match under way"
        )
        assert all(Game.objects.get(pk=g).status == GameStatus.RUNNING for g in games)  # the outage is mid-match

        own_redis.stop()
        down_at = time.monotonic()
        status, health = request(web.port, "GET", "/api/v1/health/")
        assert status == 503 and health["status"] == "degraded"
        assert not health["checks"]["redis"]["ok"] and not health["checks"]["broker"]["ok"]
        assert health["checks"]["database"]["ok"]
        time.sleep(OUTAGE_SECONDS)  # the outage lasts this long: the clients play on meanwhile
        own_redis.start()
        up_at, up_wall = time.monotonic(), timezone.now()

        moved_while_down = [m for c in clients for m in c.accepted if down_at <= m["at"] < up_at]
        assert len(moved_while_down) > 10, "moves were refused or stalled while Redis was down"
        wait_for(
            lambda: Move.objects.filter(game_id=bot_game, source=MoveSource.BOT, created_at__gte=up_wall).exists(),
            10,
            interval=0.1,
            what="the bots to move within 10 s of Redis being back",
            explain=worker.log,
        )
        bots_back = time.monotonic() - up_at
        wait_for(
            lambda: all(Game.objects.get(pk=g).status == GameStatus.FINISHED for g in games),
            240,
            interval=0.5,
            what="every match to finish",
            explain=worker.log,
        )
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)

    statuses = sum((c.statuses for c in clients), Counter())
    assert [e for c in clients for e in c.errors] == []
    assert not [s for s in statuses if s >= 500], statuses
    for game_id in games:
        game = Game.objects.get(pk=game_id)
        assert_replays(game)
    for client in clients:  # every accepted move is there, once, as answered
        for move in client.accepted:
            row = Move.objects.get(game_id=client.game_id, number=move["number"])
            answered = {k: v for k, v in move["move"].items() if v is not None}
            assert (row.seat, row.seq, row.payload) == (move["seat"], move["seq"], answered)
    numbers = Counter((c.game_id, m["number"]) for c in clients for m in c.accepted)
    assert max(numbers.values()) == 1
    assert Move.objects.filter(game_id=bot_game, source=MoveSource.BOT).exists()
    for follower in followers:  # every event once, in order, across reconnections
        final = Game.objects.get(pk=follower.game_id).seq
        assert follower.ids == list(range(1, final + 1)), (follower.game_id, follower.reconnects)
        assert follower.errors == []
    assert worker.process.poll() is None, worker.log()  # the worker survived; it reconnected
    assert "reconnected to the broker" in worker.log()
    wait_for(
        lambda: request(web.port, "GET", "/api/v1/health/")[0] == 200,
        30,
        interval=0.5,
        what="the health report to be all well again",
        explain=lambda: str(request(web.port, "GET", "/api/v1/health/")[1]),
    )
    print(
        f"redis outage: {OUTAGE_SECONDS} s, {len(moved_while_down)} moves accepted during it, "
        f"{sum(statuses.values())} responses, 0 5xx, 0 moves lost or doubled, "
        f"bots moving again {bots_back:.2f} s after Redis was back"
    )


def held_bot_turn(human, redis_url: str, **options: Any) -> Game:
    """A running two-seat game whose server bot (seat 0) is to move."""
    setup = {
        "hands": [["6-5", "6-4", "1-0", "2-0", "3-0", "4-0", "5-0"], ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0"]]
    }
    with use_broker(redis_url, "celery"):
        game = services.game_create(
            creator=human, ruleset={"set_max": 6, "players": 2}, setup=setup, sit=False, **options
        )
        services.game_add_bot(game_id=game.pk, by=human, strategy="greedy", seat=0)
        services.game_join(game_id=game.pk, player=human, seat=1)
        services.game_start(game_id=game.pk, by=human)
    return Game.objects.get(pk=game.pk)


def bot_table(creator, redis_url: str, **options: Any) -> Game:
    with use_broker(redis_url, "celery"):
        game = services.game_create(
            creator=creator, ruleset={"set_max": 6, "players": 4, "rounds": 1}, sit=False, **options
        )
        for strategy in ("greedy", "random", "greedy", "random"):
            services.game_add_bot(game_id=game.pk, by=creator, strategy=strategy)
        services.game_start(game_id=game.pk, by=creator)
    return game


def moves(game: Game) -> int:
    return Move.objects.filter(game=game).count()


def test_an_idle_worker_survives_a_redis_restart(make_player, tmp_path, own_redis):
    worker = Worker(own_redis.url, tmp_path / "worker.log", queue="celery", name="w1")
    try:
        own_redis.restart()
        back = time.monotonic()
        game = bot_table(make_player("host"), own_redis.url)
        wait_for(lambda: moves(game) >= 3, 10, what="bots moving within 10 s of Redis being back", explain=worker.log)
        print(f"bots moving {time.monotonic() - back:.2f} s after the restart")
        assert worker.process.poll() is None
    finally:
        worker.stop()


def test_a_worker_mid_task_and_holding_timed_tasks_survives_a_redis_restart(make_player, tmp_path, own_redis):
    """The case that killed the worker on kombu 5.7.0 (core.brokers.RedisTransport):
    unacknowledged messages when the connection drops - here a task running (held
    inside its transaction by the test's lock on the game row) and paced bot turns
    waiting for their time (countdowns, held unacknowledged by the worker)."""
    worker = Worker(own_redis.url, tmp_path / "worker.log", queue="celery", name="w1")
    human = make_player("human")
    try:
        paced = [bot_table(human, own_redis.url, bot_delay_ms=4000) for _ in range(2)]
        wait_for(lambda: worker.log().count("Task bots.play_bot_turn") >= 2, 10, what="the paced turns held")
        with psycopg.connect(session_database_url(application_name="test-holder")) as holder:
            game = Game.objects.get(pk=held_bot_turn(human, "memory://").pk)  # its task: sent by the test, below
            holder.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", [game.pk])
            with use_broker(own_redis.url, "celery"):
                from live.tasks import play_bot_turn

                play_bot_turn.delay(game.pk, game.seq)
            wait_for(lambda: _waiting(worker), 10, what="the task to be running (waiting for the row)")
            own_redis.restart()
            back = time.monotonic()
            holder.rollback()
        wait_for(lambda: moves(game) == 1, 10, what="the held turn to be played", explain=worker.log)
        wait_for(lambda: all(moves(g) >= 1 for g in paced), 10, what="the paced bots to go on", explain=worker.log)
        print(f"bots moving {time.monotonic() - back:.2f} s after the restart (4 s bot delay)")
        assert worker.process.poll() is None, worker.log()
        assert "Unrecoverable error" not in worker.log()
    finally:
        worker.stop()


def _waiting(worker: Worker) -> bool:
    with psycopg.connect(session_database_url(application_name="test-observer")) as connection:
        return bool(
            connection.execute(
                "SELECT 1 FROM pg_stat_activity WHERE application_name = %s AND datname = current_database() "
                "AND wait_event_type = 'Lock'",
                [worker.name],
            ).fetchone()
        )
