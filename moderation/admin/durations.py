"""How long a mute or a suspension lasts, as the admin's forms ask it: a period to
pick (1 hour to 30 days, or until lifted) or a custom length in minutes (from one
minute up), which wins when given."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

#: Periods (hours; 0: until lifted).
PERIODS = [
    (1, _("1 hour")),
    (24, _("24 hours")),
    (72, _("3 days")),
    (168, _("7 days")),
    (720, _("30 days")),
    (0, _("until lifted")),
]
#: Ten years: longer is "until lifted".
MAX_MINUTES = 10 * 365 * 24 * 60


def minutes_field() -> forms.IntegerField:
    return forms.IntegerField(
        label=_("Or minutes"),
        required=False,
        min_value=1,
        max_value=MAX_MINUTES,
        help_text=_("A custom length in minutes (e.g. 15 or 90); it replaces the period when given."),
    )


def until(hours: int, minutes: int | None, *, now: datetime | None = None) -> Any:
    """The end of a sanction from a form's period and custom minutes (None: until lifted)."""
    now = now or timezone.now()
    if minutes:
        return now + timedelta(minutes=minutes)
    return now + timedelta(hours=hours) if hours else None


#: "Also remove their recent chat messages" with a suspension (hours; 0: no).
REMOVE_MESSAGES = [
    (0, _("no")),
    (1, _("of the last hour")),
    (24, _("of the last 24 hours")),
    (168, _("of the last 7 days")),
]


def remove_messages_field() -> forms.TypedChoiceField:
    """The suspension's chat clean-up (moderation.chat_cleanup), on every form that suspends."""
    return forms.TypedChoiceField(
        label=_("Also remove their recent chat messages"),
        coerce=int,
        choices=REMOVE_MESSAGES,
        initial=0,
        required=False,
        help_text=_("For a suspension: readers see them removed at once; each can be restored."),
    )
