"""Canned texts the moderators start from: warnings (what the warned player
reads) and notes (for moderators only). A warning never says who reported the
player, nor that anyone did: it names the behaviour and the rule."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

#: name -> the warning's text, as the player reads it.
WARNINGS: dict[str, Any] = {
    "abuse": _("Please keep the table friendly: insults and harassment are not allowed."),
    "cheating": _("Play your own game: outside help, collusion and undeclared bots are not allowed."),
    "spam": _("Please do not spam or advertise in the chat."),
    "stalling": _("Please play your turns in good time and finish the games you start."),
    "offensive_name": _("Your username is not allowed here: please choose another one."),
    "other": _("Please follow the rules of the site."),
}

#: name -> a moderators' note to start from.
NOTES: dict[str, Any] = {
    "watch": _("Watch this account: reported again, nothing conclusive yet."),
    "checked_games": _("Checked the recent games: moves and think times look normal."),
    "talked": _("Talked to the player; they promised to do better."),
}

#: The labels of the choices (the select's entries).
WARNING_LABELS: dict[str, Any] = {
    "abuse": _("insults, harassment"),
    "cheating": _("cheating"),
    "spam": _("spam"),
    "stalling": _("stalling, leaving games"),
    "offensive_name": _("offensive username"),
    "other": _("other"),
}
NOTE_LABELS: dict[str, Any] = {
    "watch": _("watch the account"),
    "checked_games": _("games checked"),
    "talked": _("talked to the player"),
}


def warning_for(reason: str) -> Any:
    """The canned warning for a report's reason (the report form's default text)."""
    return WARNINGS.get(reason, WARNINGS["other"])
