"""Analyses on real Celery workers: the task goes to the analysis queue, a worker of
its own runs it, and bot turns on the default queue go on meanwhile."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import override_settings

from analysis.models import Analysis, AnalysisStatus
from games import services as game_services
from games.models import Game, GameStatus
from tests.api.games_helpers import ok
from tests.integration.workers import WITH_WORKERS, wait_for
from tests.ratings.helpers import finish

pytestmark = WITH_WORKERS


def url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/analysis/"


@pytest.fixture
def analysis_queue(queue_name: str) -> Any:
    queue = f"{queue_name}.analysis"
    with override_settings(ANALYSIS_QUEUE=queue):
        yield queue


def test_an_analysis_runs_on_the_analysis_worker(make_table, start_worker, analysis_queue) -> None:
    table = make_table(2, rounds=1)
    finish(table, random.Random(7))
    worker = start_worker(name="analysis", queue=analysis_queue)
    ok(table.clients[0].post(url(table.game_id), {}, format="json"), 202)

    def done() -> Any:
        body = ok(table.clients[0].get(url(table.game_id)))
        return body if body["status"] == AnalysisStatus.DONE else None

    body = wait_for(done, timeout=120, what="the analysis", explain=lambda: worker.log()[-3000:])
    assert body["progress"]["done"] == body["progress"]["total"] == len(body["result"]["decisions"]) > 0
    assert (Analysis.objects.get(game_id=table.game_id, seat=0).cpu_seconds or 0) > 0


def test_bot_turns_go_on_while_an_analysis_runs(
    make_table, make_player, start_worker, analysis_queue, monkeypatch
) -> None:
    """A long analysis (many deals a decision) holds the analysis worker; a bots' match
    on the default queue is played to its end meanwhile. With one worker for both
    queues it would wait for the analysis."""
    table = make_table(2, rounds=1)
    finish(table, random.Random(7))
    monkeypatch.setenv("ANALYSIS_DEALS", "500000")  # the analysis worker's setting: minutes of work
    analyser = start_worker(name="analysis", queue=analysis_queue)
    start_worker(name="bots", beat=True)
    ok(table.clients[0].post(url(table.game_id), {}, format="json"), 202)
    wait_for(
        lambda: Analysis.objects.get(game_id=table.game_id).status == AnalysisStatus.RUNNING,
        timeout=60,
        what="the analysis to start",
        explain=lambda: analyser.log()[-3000:],
    )

    host = make_player("host")
    game = game_services.game_create(creator=host, ruleset={"set_max": 6, "players": 3, "rounds": 1}, sit=False)
    for _ in range(3):
        game_services.game_add_bot(game_id=game.pk, by=host, strategy="strong")
    game_services.game_start(game_id=game.pk, by=host)
    wait_for(
        lambda: Game.objects.get(pk=game.pk).status == GameStatus.FINISHED,
        timeout=90,
        what="the bots' match to finish",
    )
    assert Analysis.objects.get(game_id=table.game_id).status == AnalysisStatus.RUNNING
