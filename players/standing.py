"""An account's sanctions as the player meets them (``/me/``, the log-in refusal),
told by the app that keeps them. players imports no such app: moderation registers
its sources when it starts (``AppConfig.ready``)::

    standing.register(sanctions_in_force_for_player)
    standing.register_ended(sanctions_ended_for_player)

A source takes an account and answers the sanctions in force on it, each a dict
with ``id``, ``kind`` (``suspension`` or ``mute``), ``reason``, ``starts_at``,
``ends_at`` (None: until a moderator lifts it) and ``appeal`` (None, or a dict with
``status``, ``text``, ``answer``, ``created_at``).

An ended source takes an account and two times, ``since`` and ``now``, and answers
the sanctions that ended in between: the same dict, with ``ended_at`` (when it
ended: its end, or when a moderator lifted it before) and ``ended_how`` (one of
``SANCTION_ENDINGS``). ``/me/`` shows those of the last ``ENDED_SANCTIONS_WINDOW``,
so a player reads how a sanction ended - and the answer to their appeal - after it
is no longer in force."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

Source = Callable[[Any], list[dict[str, Any]]]
EndedSource = Callable[[Any, datetime, datetime], list[dict[str, Any]]]

#: How long ``/me/`` keeps showing a sanction after it ended (``ended_sanctions``).
ENDED_SANCTIONS_WINDOW = timedelta(days=30)

#: How a sanction ended: ``expired`` its time ran out; ``lifted`` a moderator lifted
#: it before its end; ``appeal`` a moderator lifted it on the player's appeal.
SANCTION_ENDINGS = ("expired", "lifted", "appeal")

_SOURCES: list[Source] = []
_ENDED_SOURCES: list[EndedSource] = []


def register(source: Source) -> None:
    if source not in _SOURCES:
        _SOURCES.append(source)


def register_ended(source: EndedSource) -> None:
    if source not in _ENDED_SOURCES:
        _ENDED_SOURCES.append(source)


def sanctions(user: Any) -> list[dict[str, Any]]:
    """Every sanction in force on ``user``, as the sources tell them."""
    return [row for source in _SOURCES for row in source(user)]


def ended_sanctions(user: Any, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """The sanctions on ``user`` that ended within ``ENDED_SANCTIONS_WINDOW`` of
    ``now``, the latest ended first."""
    now = now or timezone.now()
    since = now - ENDED_SANCTIONS_WINDOW
    rows = [row for source in _ENDED_SOURCES for row in source(user, since, now)]
    return sorted(rows, key=lambda row: (row["ended_at"], row["id"]), reverse=True)


def suspension(user: Any) -> dict[str, Any] | None:
    """The suspension in force on ``user`` that ends last (None: none is known)."""
    rows = [row for row in sanctions(user) if row["kind"] == "suspension"]
    if not rows:
        return None
    return max(rows, key=lambda row: (row["ends_at"] is None, row["ends_at"] or row["starts_at"]))
