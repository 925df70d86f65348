"""The one receiver: a finished match is rated inside its final move's
transaction (``games.signals.match_finished``), so the rating changes commit with
the move or not at all. The work is ``ratings.services.match_rate``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.dispatch import receiver

from games.models import Game, Seat
from games.signals import match_finished
from ratings import services


@receiver(match_finished, dispatch_uid="ratings.match_rate")
def rate_finished_match(sender: Any, *, game: Game, seats: Sequence[Seat], **kwargs: Any) -> None:
    services.match_rate(game=game, seats=seats)
