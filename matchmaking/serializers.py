"""The shapes of quick play's API: the seek asked for, the seek shown, the presets."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import serializers

from core.serializers import FloatField
from games.serializers import strategy_choices
from matchmaking import services
from matchmaking.models import OnTimeout, Seek, SeekEndReason, SeekStatus
from matchmaking.presets import PRESET_CHOICES, PRESETS, Preset


def _default_wait() -> int:
    return int(settings.MATCHMAKING_DEFAULT_WAIT_SECONDS)


class SeekCreateInput(serializers.Serializer):
    players = serializers.IntegerField(
        min_value=services.MIN_PLAYERS,
        max_value=services.MAX_PLAYERS,
        help_text="Seats at the table, yours included (at most the preset's: GET /presets/).",
    )
    preset = serializers.ChoiceField(choices=PRESET_CHOICES, help_text="The ruleset (GET /presets/).")
    rated = serializers.BooleanField(default=False, help_text="Only rated seeks meet rated seeks.")
    turn_time_limit = serializers.IntegerField(
        min_value=5,
        max_value=86400,
        required=False,
        allow_null=True,
        help_text="Seconds per turn. Left out: the server's default clock (`DEFAULT_TURN_SECONDS`, 60 s unless the "
        "deployment sets another); null: no clock. Only seeks with the same clock meet.",
    )
    wait_seconds = serializers.IntegerField(
        min_value=services.MIN_WAIT_SECONDS,
        max_value=services.MAX_WAIT_SECONDS,
        default=_default_wait,
        help_text="How long to wait for other players before `on_timeout`. Omitted: the server's default "
        "(`MATCHMAKING_DEFAULT_WAIT_SECONDS`, 60 unless its operator changed it).",
    )
    on_timeout = serializers.ChoiceField(
        choices=OnTimeout.choices,
        default=OnTimeout.BOTS,
        help_text="When the wait runs out: `bots` - server bots take the empty seats (with any waiting seeks "
        "that fit and chose bots too) and the game starts; `expire` - the seek ends unmatched.",
    )
    bot_level = serializers.ChoiceField(
        choices=strategy_choices(),
        required=False,
        allow_null=True,
        help_text="The server bots' strategy (GET /bots/), for the fill and as the table's bot level. "
        "Omitted: chosen for your level.",
    )

    # The rule validate() enforces, stated in the schema: each preset's most players.
    schema_extra = {
        "allOf": [
            {
                "if": {"properties": {"preset": {"const": name}}, "required": ["preset"]},
                "then": {"properties": {"players": {"maximum": preset.max_players}}},
            }
            for name, preset in sorted(PRESETS.items())
            if preset.max_players < services.MAX_PLAYERS
        ]
    }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # A preset's set holds so many players (double-6: 6).
        preset = PRESETS[attrs["preset"]]
        if attrs["players"] > preset.max_players:
            raise serializers.ValidationError(
                {
                    "players": [
                        gettext("The preset %(name)s takes at most %(max_players)s players.")
                        % {"name": preset.name, "max_players": preset.max_players}
                    ]
                }
            )
        return attrs


class RatingWindowOutput(serializers.Serializer):
    base = FloatField(help_text="The reach at first, in rating points (ordinal) either side.")
    per_second = FloatField(help_text="How much the reach grows per second waited.")
    most = FloatField(help_text="The widest it gets.")


class SeekOutput(serializers.Serializer):
    id = serializers.IntegerField()
    players = serializers.IntegerField()
    preset = serializers.ChoiceField(choices=PRESET_CHOICES)
    rated = serializers.BooleanField()
    turn_time_limit = serializers.IntegerField(allow_null=True)
    wait_seconds = serializers.IntegerField()
    on_timeout = serializers.ChoiceField(choices=OnTimeout.choices)
    bot_level = serializers.ChoiceField(choices=strategy_choices())
    status = serializers.ChoiceField(choices=SeekStatus.choices)
    reason = serializers.ChoiceField(
        choices=SeekEndReason.choices,
        allow_null=True,
        help_text="Why the seek ended as it did; null while it waits.",
    )
    game = serializers.IntegerField(allow_null=True, help_text="The table it was matched to (GET /games/{id}/).")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="When the wait runs out.")
    matched_at = serializers.DateTimeField(allow_null=True)
    rating_window = RatingWindowOutput(
        allow_null=True,
        help_text="A rated seek meets seeks whose players' ratings (the ordinal of GET /players/{username}/ratings/ "
        "in the pool of this table size; 0 without one) are within `min(base + per_second * seconds waited, most)` "
        "of the seeker's, and the other way round. Null for a casual seek (any rating).",
    )


class SeekListQueryInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=SeekStatus.choices, required=False, help_text="Only seeks in this state.")


class PresetOutput(serializers.Serializer):
    name = serializers.ChoiceField(choices=PRESET_CHOICES)
    description = serializers.CharField(help_text="What the preset plays, in the request's language.")
    set_max = serializers.IntegerField(help_text="The domino set: double-`set_max`.")
    rounds = serializers.IntegerField(allow_null=True, help_text="Rounds in a match (null: one per double).")
    max_players = serializers.IntegerField(help_text="The most players its set seats (and quick play's 8).")


def _window() -> dict[str, float]:
    window = services.rating_window()
    return {"base": window.base, "per_second": window.per_second, "most": window.most}


def seek_output(seek: Seek) -> dict[str, Any]:
    """A seek as the API and the account stream show it."""
    return SeekOutput(
        {
            "id": seek.pk,
            "players": seek.players,
            "preset": seek.preset,
            "rated": seek.rated,
            "turn_time_limit": seek.turn_time_limit,
            "wait_seconds": seek.wait_seconds,
            "on_timeout": seek.on_timeout,
            "bot_level": seek.bot_level,
            "status": seek.status,
            "reason": seek.reason or None,
            "game": seek.game_id,
            "created_at": seek.created_at,
            "updated_at": seek.updated_at,
            "expires_at": seek.expires_at,
            "matched_at": seek.matched_at,
            "rating_window": _window() if seek.rated else None,
        }
    ).data


def preset_output(preset: Preset) -> dict[str, Any]:
    return PresetOutput(
        {
            "name": preset.name,
            "description": gettext(preset.description),  # marked in matchmaking.presets
            "set_max": preset.ruleset["set_max"],
            "rounds": preset.ruleset.get("rounds"),
            "max_players": min(preset.max_players, services.MAX_PLAYERS),
        }
    ).data
