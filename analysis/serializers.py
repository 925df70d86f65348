"""The analysis app's inputs (strict: ``core.inputs.validated``) and outputs."""

from __future__ import annotations

from rest_framework import serializers

from analysis.models import AnalysisStatus
from bots.analysis import CLASSES
from core.serializers import FloatField
from core.strict import STRICT_OBJECT
from games.engine import MAX_PLAYERS
from games.serializers import MoveBodyOutput

SEAT_HELP = "The seat to analyse (0 to players - 1). Omitted: your own seat (you must have one then)."


class AnalysisSeatInput(serializers.Serializer):
    schema_extra = STRICT_OBJECT  # a misspelt "seat" would ask for your own seat, and spend your budget

    seat = serializers.IntegerField(
        min_value=0, max_value=max(MAX_PLAYERS.values()) - 1, required=False, help_text=SEAT_HELP
    )


class AnalysisQueryInput(serializers.Serializer):
    seat = serializers.IntegerField(
        min_value=0, max_value=max(MAX_PLAYERS.values()) - 1, required=False, help_text=SEAT_HELP
    )


class ProgressOutput(serializers.Serializer):
    done = serializers.IntegerField(help_text="Decisions judged so far.")
    total = serializers.IntegerField(allow_null=True, help_text="Decisions to judge: null until the analysis runs.")


class ThresholdsOutput(serializers.Serializer):
    inaccuracy = FloatField(help_text="A loss of at least this many points is an inaccuracy ...")
    mistake = FloatField(help_text="... a mistake ...")
    blunder = FloatField(help_text="... a blunder.")


class MoveValueOutput(serializers.Serializer):
    move = MoveBodyOutput()
    points = FloatField(
        allow_null=True,
        help_text="Expected points of the hand after this move: the others' average left in hand minus yours "
        "(higher is better); null when it was the only choice.",
    )


class DecisionOutput(serializers.Serializer):
    move_number = serializers.IntegerField(help_text="The move's number in the game (1, 2, ...).")
    hand = serializers.IntegerField(help_text="The hand (round) it was played in.")
    played = MoveBodyOutput()
    played_points = FloatField()
    best = MoveBodyOutput()
    best_points = FloatField()
    loss = FloatField(help_text="Points the move played gave away against the best choice, on average.")
    verdict = serializers.ChoiceField(
        choices=CLASSES, help_text="good, inaccuracy, mistake or blunder (by `thresholds`)."
    )
    accuracy = FloatField(help_text="100 × exp(−loss / 8).")
    moves = MoveValueOutput(many=True, help_text="Every distinct choice, best first.")


class ClassCountsOutput(serializers.Serializer):
    good = serializers.IntegerField()
    inaccuracy = serializers.IntegerField()
    mistake = serializers.IntegerField()
    blunder = serializers.IntegerField()


class SummaryOutput(serializers.Serializer):
    decisions = serializers.IntegerField(help_text="Decisions with two or more choices.")
    counts = ClassCountsOutput()
    points_lost = FloatField()
    accuracy = FloatField(allow_null=True, help_text="Mean accuracy of the decisions (null: none).")


class HandSummaryOutput(SummaryOutput):
    hand = serializers.IntegerField()


class AnalysisResultOutput(serializers.Serializer):
    decisions = DecisionOutput(many=True)
    hands = HandSummaryOutput(many=True, help_text="Per hand with at least one decision.")
    match = SummaryOutput()


class AnalysisOutput(serializers.Serializer):
    game = serializers.IntegerField()
    seat = serializers.IntegerField()
    status = serializers.ChoiceField(choices=AnalysisStatus.choices)
    progress = ProgressOutput()
    requested_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    thresholds = ThresholdsOutput()
    result = AnalysisResultOutput(allow_null=True, help_text="Set once the status is done.")


class HintOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="The game's seq the hint is for (a move needs it as expected_seq).")
    best = MoveBodyOutput()
    moves = MoveValueOutput(many=True, help_text="Every distinct choice, best first.")
