"""Celery tasks about games: turn clocks (the sweep that re-sends lost ones is ``ops.tasks.sweep``)."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.turn_timeout", ignore_result=True)
def turn_timeout(game_id: int, expected_seq: int) -> None:
    """The turn clock of ``game_id`` at ``expected_seq`` may have run out."""
    services.turn_timeout(game_id=game_id, expected_seq=expected_seq)


@shared_task(name="bots.play_bot_turn", ignore_result=True)
def play_bot_turn(game_id: int, expected_seq: int) -> None:
    """Play the bot seat to move in ``game_id`` if the game is still at ``expected_seq``
    (the task keeps its name from when it lived in the ``bots`` app: queued ones still run)."""
    services.bot_move(game_id=game_id, expected_seq=expected_seq)
