"""Celery tasks about games: turn clocks and the periodic sweep."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.turn_timeout", ignore_result=True)
def turn_timeout(game_id: int, expected_seq: int) -> None:
    """The turn clock of ``game_id`` at ``expected_seq`` may have run out."""
    services.turn_timeout(game_id=game_id, expected_seq=expected_seq)


@shared_task(name="games.sweep", ignore_result=True)
def sweep() -> int:
    """Re-send the work of every game whose deadline passed or whose bot is late
    (a lost task, a restarted broker, a killed worker). Returns how many it sent."""
    from bots.tasks import play_bot_turn

    overdue = services.overdue_games()
    for game_id, seq, kind in overdue:
        task = turn_timeout if kind == "timeout" else play_bot_turn
        task.delay(game_id, seq)
    return len(overdue)
