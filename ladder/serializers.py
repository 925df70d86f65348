"""Input and output shapes of the ladder API (uniquely named)."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import FloatField
from games.serializers import strategy_choices
from ladder.models import TABLE_SIZES

#: The table sizes a ladder round plays (``LadderTableSize``).
TABLE_SIZE_CHOICES = tuple((size, size) for size in sorted(TABLE_SIZES))
#: The most ladder games an outside bot may ask to play at once.
MAX_GAMES_AT_ONCE = 10


class LadderEntryInput(serializers.Serializer):
    table_sizes = serializers.ListField(
        child=serializers.ChoiceField(choices=TABLE_SIZE_CHOICES),
        min_length=1,
        max_length=len(TABLE_SIZE_CHOICES),
        default=sorted(TABLE_SIZES),
        help_text="The table sizes (players) the bot plays: 2, 4 or both (the default).",
    )
    max_games = serializers.IntegerField(
        min_value=1,
        max_value=MAX_GAMES_AT_ONCE,
        default=1,
        help_text="The most ladder games it is seated in at once (default 1).",
    )


class LadderParticipantOutput(serializers.Serializer):
    """One bot on the ladder."""

    username = serializers.CharField()
    level = serializers.ChoiceField(
        choices=strategy_choices(),
        allow_null=True,
        help_text="The server strategy that plays it (a built-in level); null: an outside bot, played by its owner.",
    )
    active = serializers.BooleanField(help_text="Rounds seat it (false: it opted out, or the account is suspended).")
    games = serializers.IntegerField(help_text="Its ladder games so far (aborted ones aside), running ones included.")
    games_running = serializers.IntegerField(help_text="Its ladder games still going.")
    table_sizes = serializers.ListField(child=serializers.ChoiceField(choices=TABLE_SIZE_CHOICES))
    max_games = serializers.IntegerField(
        allow_null=True, help_text="The most ladder games it plays at once; null: no limit (a built-in level)."
    )
    joined_at = serializers.DateTimeField(
        allow_null=True, help_text="null: a built-in level whose account the first round makes."
    )


class LadderRoundOutput(serializers.Serializer):
    id = serializers.IntegerField()
    table_size = serializers.ChoiceField(choices=TABLE_SIZE_CHOICES)
    games = serializers.IntegerField(help_text="The matches it opened.")
    created_at = serializers.DateTimeField()


class LadderScheduleOutput(serializers.Serializer):
    interval_seconds = FloatField(help_text="A round every this many seconds; 0: the ladder is off.")
    check_seconds = FloatField(help_text="How often the server looks whether a round is due.")
    turn_seconds = serializers.IntegerField(help_text="The turn clock of a ladder game with an outside bot.")
    next_round_at = serializers.DateTimeField(
        allow_null=True, help_text="When the next round is due (now: at the next check); null: the ladder is off."
    )
    last_round = LadderRoundOutput(allow_null=True)


class LadderOutput(serializers.Serializer):
    participants = LadderParticipantOutput(many=True)
    schedule = LadderScheduleOutput()
