"""Quick play's rulesets: a small named set a seek chooses from, so that seeks with
the same name are sure to want the same game. Each is an engine ruleset without
``players`` (the seek gives it); what is not set is the engine's default
(``games.engine.Ruleset``: one round per double, four spinner arms ...)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop

from games.engine import MAX_PLAYERS


@dataclass(frozen=True)
class Preset:
    name: str
    #: For people: in English here (marked for the catalogue), translated where it is
    #: served (``GET /presets/`` answers it in the request's language).
    description: str
    ruleset: dict[str, Any]

    @property
    def max_players(self) -> int:
        return MAX_PLAYERS[self.ruleset["set_max"]]

    def ruleset_for(self, players: int) -> dict[str, Any]:
        """The full ruleset of a table of ``players``."""
        return {**self.ruleset, "players": players}


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            "double-6",
            gettext_noop("A double-6 set (2-6 players), seven rounds, the engine's defaults."),
            {"set_max": 6},
        ),
        Preset(
            "double-6-quick",
            gettext_noop("A double-6 set (2-6 players), one round only: a game of a few minutes."),
            {"set_max": 6, "rounds": 1},
        ),
        Preset(
            "double-9",
            gettext_noop("A double-9 set (2-8 players), ten rounds, the engine's defaults."),
            {"set_max": 9},
        ),
        Preset(
            "double-12",
            gettext_noop("A double-12 set (2-8 here), thirteen rounds, the engine's defaults."),
            {"set_max": 12},
        ),
    )
}

#: The choices of ``preset`` (the ``SeekPreset`` enum of the contract).
PRESET_CHOICES = list(PRESETS)
