"""Durations as a person reads them, in the active language: "47 minutes",
"1 hour and 5 minutes" (for refusals that say when to try again; the machine
field ``retry_after`` keeps the exact seconds)."""

from __future__ import annotations

import math

from django.utils.translation import gettext, ngettext


def _seconds(count: int) -> str:
    return ngettext("%(count)d second", "%(count)d seconds", count) % {"count": count}


def _minutes(count: int) -> str:
    return ngettext("%(count)d minute", "%(count)d minutes", count) % {"count": count}


def _hours(count: int) -> str:
    return ngettext("%(count)d hour", "%(count)d hours", count) % {"count": count}


def duration(seconds: float) -> str:
    """``seconds`` rounded up to what a person needs to know: seconds under a
    minute, whole minutes under an hour, hours and minutes above."""
    whole = max(1, math.ceil(seconds))
    if whole < 60:
        return _seconds(whole)
    minutes = math.ceil(whole / 60)
    if minutes < 60:
        return _minutes(minutes)
    hours, minutes = divmod(minutes, 60)
    if not minutes:
        return _hours(hours)
    return gettext("%(hours)s and %(minutes)s") % {"hours": _hours(hours), "minutes": _minutes(minutes)}


def try_again_in(seconds: float) -> str:
    """ "Too many requests: try again in 47 minutes." in the active language."""
    return gettext("Too many requests: try again in %(duration)s.") % {"duration": duration(seconds)}
