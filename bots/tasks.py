"""Celery tasks that play server-bot seats."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="bots.play_bot_turn", ignore_result=True)
def play_bot_turn(game_id: int, expected_seq: int) -> None:
    """Play the bot seat to move in ``game_id`` if the game is still at ``expected_seq``."""
    services.bot_move(game_id=game_id, expected_seq=expected_seq)
