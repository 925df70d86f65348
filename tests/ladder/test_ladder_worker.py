"""The ladder on a live stack: beat schedules the round, a real Celery worker plays
the server's levels and the turn clock of an outside bot, and an outside bot plays
its ladder game with the bot kit over HTTP. Real PostgreSQL, Redis, worker and beat;
the worker sees the ladder's settings through its environment."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from games import selectors as game_selectors
from games.models import Game, GameStatus, Move, MoveSource, Seat
from ladder import services
from ladder.models import LadderGame, LadderRound
from players import services as player_services
from players.models import User
from tests.integration.test_bots_and_clocks import assert_replays
from tests.integration.web import WebServer, sign_up
from tests.integration.workers import ROOT, WITH_WORKERS, wait_for

pytestmark = WITH_WORKERS

KIT = ROOT / "clients" / "python"
EXAMPLE = ROOT / "examples" / "kit_bot.py"
RULESET = '{"set_max": 6, "rounds": 1}'
INTERVAL = 3600  # one scheduled round per hour-long slot ...
CHECK = 0.5  # ... which beat asks about twice a second


@pytest.fixture
def ladder_env(monkeypatch, settings):
    """The ladder's settings, for this process and (through the environment) the worker."""
    values = {
        "LADDER_INTERVAL_SECONDS": str(INTERVAL),
        "LADDER_CHECK_SECONDS": str(CHECK),
        "LADDER_TURN_SECONDS": "1",
        "LADDER_RULESET": RULESET,
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    return values


def slot_now() -> int:
    return int(time.time() // INTERVAL)


def levels_played_once() -> None:
    """Every level gets a ladder game first (a round played here, of 2-player tables):
    an outside bot then has the fewest ladder games, so the next round seats it for
    sure, and that next round is of 2-player tables (the sizes go in turn)."""
    ladder_round = services.round_play(slot=None, seed="before", table_size=2, outside=False)
    assert ladder_round is not None and ladder_round.games.count() == 3


def scheduled_round(worker) -> LadderRound:
    return wait_for(
        lambda: LadderRound.objects.filter(slot__isnull=False).first(),
        timeout=30,
        what="beat's ladder round",
        explain=lambda: worker.log()[-4000:],
    )


def all_finished(ladder_round: LadderRound) -> list[Game] | None:
    games = list(Game.objects.filter(ladder_game__round=ladder_round))
    return games if games and all(g.status == GameStatus.FINISHED for g in games) else None


def test_beat_plays_one_round_per_slot_to_the_end_and_a_dead_bot_times_out(make_player, start_worker, ladder_env):
    first_slot = slot_now()
    dead = make_player("deadbot", is_bot=True)
    services.entry_join(user=dead, table_sizes=[2, 4], max_games=1)
    levels_played_once()
    worker = start_worker(beat=True)

    ladder_round = scheduled_round(worker)
    assert ladder_round.table_size == 2
    games = list(Game.objects.filter(ladder_game__round=ladder_round))
    assert len(games) == 3  # 6 levels and the dead bot: 3 tables of 2, the bot (fewest games) seated
    (dead_game,) = [g for g in games if g.seats.filter(player=dead).exists()]
    assert dead_game.turn_time_limit == 1 and dead_game.rated
    # While it runs, the game is on the bot's account stream (what the stream's snapshot lists).
    listed = [row["game"] for row in game_selectors.account_game_list(user=dead)]
    assert dead_game.pk in listed or Game.objects.get(pk=dead_game.pk).status == GameStatus.FINISHED

    games = wait_for(
        lambda: all_finished(ladder_round),
        timeout=90,
        what="the round's games to end",
        explain=lambda: worker.log()[-4000:],
    )
    for game in games:
        assert game.result["winners"]
        assert_replays(game)
    dead_seat = Seat.objects.get(game=dead_game, player=dead)
    dead_moves = Move.objects.filter(game=dead_game, seat=dead_seat.number)
    assert set(dead_moves.values_list("source", flat=True)) <= {MoveSource.TIMEOUT, MoveSource.BOT}
    assert dead_moves.filter(source=MoveSource.TIMEOUT).exists()  # its clock ran out: the match still ended

    # Beat kept asking; each slot has its one round.
    wait_for(
        lambda: worker.log().count("Sending due task ladder-round") >= 3,
        timeout=20,
        what="beat to ask again",
        explain=worker.log,
    )
    scheduled = list(LadderRound.objects.filter(slot__isnull=False).values_list("slot", flat=True))
    assert len(set(scheduled)) == len(scheduled) == slot_now() - first_slot + 1  # 1 unless the hour turned


def test_an_outside_bot_plays_its_ladder_game_with_the_bot_kit(
    start_worker, broker_url, redis_url, queue_name, tmp_path, ladder_env, monkeypatch
):
    # A clock the kit meets easily on a busy machine: every move of its must be its own.
    monkeypatch.setenv("LADDER_TURN_SECONDS", "30")
    ladder_env["LADDER_TURN_SECONDS"] = "30"
    web = WebServer(
        tmp_path / "web.log", redis_url=redis_url, broker_url=broker_url, env={"CELERY_QUEUE": queue_name, **ladder_env}
    )
    kit = None
    try:
        token = sign_up(web.port, "kitbot")
        bot = User.objects.get(username="kitbot")
        player_services.user_set_bot(user=bot, is_bot=True)  # a moderator marks it a bot
        status, entry = web.request("PUT", "/api/v1/ladder/entry/", {"table_sizes": [2], "max_games": 1}, token=token)
        assert status == 200 and entry["active"], entry
        levels_played_once()
        # The bot's program runs before any round: it learns of its game from its stream.
        kit = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chickenfoot_bot",
                "--url",
                f"http://127.0.0.1:{web.port}",
                "--token",
                token,
                "--games",
                "1",
                f"{EXAMPLE}:choose",
            ],
            env={**os.environ, "PYTHONPATH": str(KIT)},
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        worker = start_worker(beat=True)
        ladder_round = scheduled_round(worker)
        _, log = kit.communicate(timeout=120)
        assert kit.returncode == 0, log
        status, listing = web.request("GET", "/api/v1/ladder/")
        assert status == 200
    finally:
        if kit is not None and kit.poll() is None:
            kit.kill()
        web.stop()
    game = Game.objects.get(ladder_game__round=ladder_round, seats__player=bot)
    assert game.status == GameStatus.FINISHED and game.rated
    assert f"game {game.pk} finished" in log
    ours = Move.objects.filter(game=game, seat=Seat.objects.get(game=game, player=bot).number)
    assert ours.exists()
    assert set(ours.values_list("source", flat=True)) == {MoveSource.PLAYER}, log  # the kit moved, never the clock
    assert_replays(game)
    row = next(p for p in listing["participants"] if p["username"] == "kitbot")
    assert row["games"] == 1 and row["level"] is None
    assert LadderGame.objects.filter(game=game).exists()
