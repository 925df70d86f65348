"""The ladder's periodic task, run by beat through the workers."""

from __future__ import annotations

from celery import shared_task

from ladder import services


@shared_task(name="ladder.play_round", ignore_result=True)
def play_round() -> int | None:
    """Play the current slot's ladder round if it is due (beat asks every
    ``LADDER_CHECK_SECONDS``; a slot's round is played once, however often this runs).
    Returns the round's id, or None when none was due."""
    played = services.round_due()
    return None if played is None else played.pk
