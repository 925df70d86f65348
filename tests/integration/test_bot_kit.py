"""The bot kit (clients/python) plays a whole match against server bots on a live
stack: the web server (gunicorn + uvicorn), a real Celery worker, PostgreSQL and
Redis. The kit is not installed: the runner runs as a subprocess with
``PYTHONPATH=clients/python``, exactly as a bot author's machine would run it,
and talks to the server over HTTP only."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from games.models import Game, GameStatus, Move, MoveSource
from tests.integration.test_bots_and_clocks import assert_replays
from tests.integration.web import WebServer, request
from tests.integration.workers import ROOT, WITH_WORKERS

pytestmark = WITH_WORKERS

KIT = ROOT / "clients" / "python"
EXAMPLE = ROOT / "examples" / "kit_bot.py"


def kit_account(port: int, command: str, cwd: Path, *extra: str) -> str:
    """``chickenfoot-bot register|token kitbot``, the password from the environment: the
    token it prints as an ``export`` line (after the server's URL)."""
    run = subprocess.run(
        [sys.executable, "-m", "chickenfoot_bot", command, "kitbot", "--url", f"http://127.0.0.1:{port}", *extra],
        env={**os.environ, "PYTHONPATH": str(KIT), "CHICKENFOOT_PASSWORD": "a long passphrase for a bot"},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # Two lines to paste: the runner then needs neither --url nor --token (docs/bots.md).
    found = re.fullmatch(
        rf"export CHICKENFOOT_URL=http://127.0.0.1:{port}\nexport CHICKENFOOT_TOKEN=(cf_\S+)\n", run.stdout
    )
    assert found, run.stdout
    return found.group(1)


def test_the_example_bot_plays_a_match_against_three_server_bots_to_the_end(
    start_worker, queue_name, broker_url, redis_url, tmp_path
):
    start_worker()
    # The server closes every stream after 0.1 s: the runner must resume it again and
    # again. (A match takes far longer: 3 rounds of four seats, each move a request or
    # a worker's task; with 1 s a quick machine finished the match inside one stream.)
    web = WebServer(
        tmp_path / "web.log",
        redis_url=redis_url,
        broker_url=broker_url,
        env={"CELERY_QUEUE": queue_name, "LIVE_STREAM_MAX_SECONDS": "0.1"},
    )
    try:
        # A newcomer's first steps (docs/bots.md): an account and a token from the kit itself.
        token = kit_account(web.port, "register", tmp_path)
        second = kit_account(web.port, "token", tmp_path, "--name", "laptop")
        assert second != token
        status, me = request(web.port, "GET", "/api/v1/me/", token=second)
        assert status == 200 and me["username"] == "kitbot", me
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "chickenfoot_bot",
                "--url",
                f"http://127.0.0.1:{web.port}",
                "--token",
                token,
                "--new-vs-bots",
                "3",
                "--rounds",
                "3",
                f"{EXAMPLE}:choose",
            ],
            env={**os.environ, "PYTHONPATH": str(KIT)},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        web.stop()
    log = run.stderr
    assert run.returncode == 0, log
    game_id = int(re.search(r"game (\d+) started", log).group(1))  # type: ignore[union-attr]
    game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.FINISHED, log
    assert len(game.state["rounds"]) == 3
    assert_replays(game)
    ours = Move.objects.filter(game=game, seat=0)
    assert ours.exists()
    assert set(ours.values_list("source", flat=True)) == {MoveSource.PLAYER}  # the kit moved, never a clock
    assert f"game {game_id} finished" in log
    assert "resuming" in log  # the stream was closed under it, and it carried on
