"""Celery tasks about games: turn clocks (the sweep that re-sends lost ones is ``ops.tasks.sweep``)."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.turn_timeout", ignore_result=True)
def turn_timeout(game_id: int, expected_seq: int) -> None:
    """The turn clock of ``game_id`` at ``expected_seq`` may have run out."""
    services.turn_timeout(game_id=game_id, expected_seq=expected_seq)
