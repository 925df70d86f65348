"""Input shapes (checked for shape only; the rules are the engine's) and output
shapes of the games API. Names are unique across the project: they become the
OpenAPI component names client authors generate code from."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bots.strategies import STRATEGIES
from core.inputs import validated
from core.serializers import FloatField
from games.engine import EVENT_TYPES, MAX_PLAYERS, SET_SIZES, TIE_BREAKS, tile_count
from games.models import GameStatus, MoveSource

TILE_PATTERN = r"^\d{1,2}-\d{1,2}$"
END_PATTERN = r"^e\d+$"

LOBBY_EVENT_TYPES: dict[str, str] = {
    "game_created": "The table was opened: creator, ruleset, practice and rated flags.",
    "seat_taken": "A player took a seat.",
    "seat_left": "A player left their seat before the start, or a moderator emptied it (moderator: true).",
    "bot_added": "The creator put a server bot (by strategy) in a seat.",
    "game_started": "The creator started the game; round 1 follows.",
    "game_aborted": "The game was aborted (by its creator in the lobby, or by a moderator) with a reason.",
    "seat_resigned": "A player resigned; a server bot plays the seat from now on.",
    "turn_timed_out": "The turn clock ran out; the server moves for the seat.",
    "seat_handed_to_bot": "A server bot plays the seat: after repeated timeouts until its player returns, "
    "or for good when a moderator hands it over (moderator: true).",
    "seat_returned": "The player took their seat back from the bot after timeouts (POST .../return/).",
}
ALL_EVENT_TYPES = {**LOBBY_EVENT_TYPES, **EVENT_TYPES}

# Choice sets, each one enum of the OpenAPI document under its own name
# (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]): one concept, one name.
MOVE_TYPES = ("play", "draw", "pass")
EVENT_TYPE_CHOICES = tuple(sorted(ALL_EVENT_TYPES))
MATCH_STATUSES = ("playing", "ended")
HAND_STATUSES = ("playing", "ended", "abandoned")
ROUND_END_REASONS = ("domino", "blocked")
ROUND_PHASES = ("spinner", "foot", "free")
SPINNER_ARMS = (4, 6)
# Whole-number choices are (value, label) pairs, as the enum override matches them.
SET_SIZE_CHOICES = tuple((size, size) for size in SET_SIZES)
SPINNER_ARM_CHOICES = tuple((arms, arms) for arms in SPINNER_ARMS)


def strategy_choices() -> list[str]:
    """The server-bot strategies, as registered (``bots.strategies``)."""
    return sorted(STRATEGIES)


# -- inputs -------------------------------------------------------------------


def _ruleset_limits() -> dict[str, Any]:
    """What each set size allows (the engine's ``Ruleset`` checks it), as JSON Schema."""
    rules = []
    for size in SET_SIZES:
        chosen: dict[str, Any] = {"properties": {"set_max": {"const": size}}, "required": ["set_max"]}
        if size == RulesetInput.DEFAULT_SET:
            chosen = {"anyOf": [chosen, {"not": {"required": ["set_max"]}}]}
        limits = {
            "players": {"maximum": MAX_PLAYERS[size]},
            "rounds": {"maximum": size + 1},
            "hand_size": {"maximum": tile_count(size) // 2},
        }
        rules.append({"if": chosen, "then": {"properties": limits}})
    return {"allOf": rules}


class RulesetInput(serializers.Serializer):
    """A ruleset: every setting may be left out for its default. What a set allows
    depends on its size: players up to 6/8/10/12/14 and rounds up to N+1 on a double-N
    set; `players` hands of `hand_size` must fit in the set's (N+1)(N+2)/2 tiles."""

    DEFAULT_SET = 9
    set_max = serializers.ChoiceField(choices=SET_SIZE_CHOICES, default=9, help_text="Double-N set.")
    players = serializers.IntegerField(min_value=2, max_value=14, default=4)
    hand_size = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None, help_text="Overrides the default table of RULES.md."
    )
    spinner_arms = serializers.ChoiceField(choices=SPINNER_ARM_CHOICES, default=4)
    rounds = serializers.IntegerField(
        min_value=1,
        max_value=19,
        required=False,
        allow_null=True,
        default=None,
        help_text="Play only the first N rounds (highest doubles).",
    )
    double_blank_points = serializers.IntegerField(min_value=0, max_value=100, default=50)


RulesetInput.schema_extra = _ruleset_limits()  # type: ignore[attr-defined]


class SetupInput(serializers.Serializer):
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.RegexField(TILE_PATTERN)),
        help_text="Round 1's hands, seat 0 first.",
    )
    boneyard = serializers.ListField(
        child=serializers.RegexField(TILE_PATTERN),
        required=False,
        allow_null=True,
        help_text="Draw order, first drawn first; omitted: the rest, shuffled.",
    )


class GameCreateInput(serializers.Serializer):
    # The rule games.services.lobby enforces, stated in the schema: a rated game has no
    # fixed seed and no set-up (those make a practice game).
    schema_extra = {
        "if": {"properties": {"rated": {"const": True}}, "required": ["rated"]},
        "then": {"properties": {"seed": {"type": "null"}, "setup": {"type": "null"}}},
    }
    ruleset = RulesetInput(required=False)
    turn_time_limit = serializers.IntegerField(
        min_value=5,
        max_value=86400,
        required=False,
        allow_null=True,
        help_text="Seconds per turn; the server moves for a seat that runs out, and after three timeouts in a row "
        "the table's bot keeps the seat. Left out: the server's default clock (`DEFAULT_TURN_SECONDS`, 60 s "
        "unless the deployment sets another); null: no clock.",
    )
    bot_delay_ms = serializers.IntegerField(
        min_value=0, max_value=10000, default=0, help_text="Pause before a server bot moves, so people can follow."
    )
    bot_strategy = serializers.ChoiceField(
        choices=strategy_choices(),
        default="greedy",
        help_text="The table's bot level: the strategy (GET /bots/) that plays for a player whose turn clock "
        "runs out, and keeps a seat after repeated timeouts or a resignation.",
    )
    seed = serializers.IntegerField(
        min_value=0,
        max_value=2**53 - 1,  # games.services.MAX_SEED: exact as a JSON number in any language
        required=False,
        allow_null=True,
        help_text="A fixed seed makes a practice game (unrated; the seed is shown to you, and to everyone after the end).",
    )
    setup = SetupInput(required=False, allow_null=True, help_text="A given first-round position (practice game).")
    sit = serializers.BooleanField(default=True, help_text="Take seat 0 yourself.")
    rated = serializers.BooleanField(
        default=False,
        help_text="The final standings change the players' ratings. A practice game (seed or setup) cannot be rated.",
    )


class SeatChoiceInput(serializers.Serializer):
    seat = serializers.IntegerField(
        min_value=0,
        max_value=max(MAX_PLAYERS.values()) - 1,
        required=False,
        allow_null=True,
        help_text="Omitted: the first free seat. Seats run from 0 to the table's players - 1 (beyond: `no_such_seat`).",
    )


class BotAddInput(SeatChoiceInput):
    strategy = serializers.ChoiceField(choices=strategy_choices())


class GameAbortInput(serializers.Serializer):
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class MoveSubmitInput(serializers.Serializer):
    """A move as sent. The contract describes it as a ``oneOf`` of a play (with
    ``tile`` and ``end``), a draw and a pass (``live.schema``, ``MoveSubmit``);
    ``move_submit_input`` drops a draw's or a pass's ``tile`` and ``end``, members
    their shapes do not have."""

    type = serializers.ChoiceField(choices=MOVE_TYPES)
    tile = serializers.RegexField(TILE_PATTERN, required=False, help_text='For a play: the tile, e.g. "9-4".')
    end = serializers.RegexField(END_PATTERN, required=False, help_text='For a play: the open end id, e.g. "e3".')
    expected_seq = serializers.IntegerField(min_value=0, help_text="The game's seq you decided on; stale -> 409.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["type"] == "play" and ("tile" not in attrs or "end" not in attrs):
            raise serializers.ValidationError({"tile": [gettext("A play needs a tile and an end.")]})
        return attrs


NOT_PLAYS = ("draw", "pass")
_TILE = re.compile(TILE_PATTERN)
_END = re.compile(END_PATTERN)


def move_shape(data: Any) -> Any:
    """``data`` as its move type's shape has it: a draw's or a pass's ``tile`` and
    ``end`` (members those shapes do not have) left out, as any unknown member is."""
    if type(data) is dict and data.get("type") in NOT_PLAYS and ("tile" in data or "end" in data):
        return {key: value for key, value in data.items() if key not in ("tile", "end")}
    return data


def move_submit_input(data: Any) -> dict[str, Any]:
    """``MoveSubmitInput``'s validated data, or its ``ValidationError``. A well-formed
    move (nearly every one) is checked here, with the serializer's own patterns and
    the same result, without building the serializer (about a tenth of a move's
    CPU); anything else goes to the serializer, which words the refusal
    (``tests/api/test_games_play.py`` holds the two to the same answers)."""
    data = move_shape(data)
    if type(data) is dict:
        kind, seq = data.get("type"), data.get("expected_seq")
        if type(kind) is str and kind in MOVE_TYPES and type(seq) is int and seq >= 0:
            move: dict[str, Any] = {"type": kind}
            for name, pattern in (("tile", _TILE), ("end", _END)):
                if name not in data:
                    continue
                value = data[name]
                if type(value) is not str or value != value.strip() or not pattern.search(value):
                    return validated(MoveSubmitInput, data)
                move[name] = value
            if kind != "play" or ("tile" in move and "end" in move):
                move["expected_seq"] = seq
                return move
    return validated(MoveSubmitInput, data)


class AfterQueryInput(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, default=0)


class GameListQueryInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=GameStatus.choices, required=False)
    mine = serializers.BooleanField(required=False, default=False)
    player = serializers.CharField(
        required=False,
        max_length=150,
        help_text="Only the finished games this player (a username) sat in, practice games left out: "
        "anyone may list them (a profile's recent games). With another `status` than `finished` the list "
        "is empty; an unknown name answers 404 `not_found`.",
    )


#: The longest long-poll a client may ask for: the contract's bound, the same on every
#: server; a server set to wait less (LONG_POLL_MAX_SECONDS) answers sooner.
WAIT_MAX_SECONDS = 30


class EventsQueryInput(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0, max_value=2**31 - 1, default=0, help_text="Return events with seq greater than this."
    )
    wait = FloatField(
        min_value=0,
        max_value=WAIT_MAX_SECONDS,
        default=0,
        help_text="If nothing is newer than `after`, wait up to this many seconds for it (long-poll); "
        "an empty list means nothing happened meanwhile. A server may answer sooner than asked: it waits "
        "at most its own limit (LONG_POLL_MAX_SECONDS, 30 unless set lower).",
    )


# -- outputs ------------------------------------------------------------------


class RulesetOutput(serializers.Serializer):
    set_max = serializers.IntegerField()
    players = serializers.IntegerField()
    hand_size = serializers.IntegerField(allow_null=True)
    spinner_arms = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True)
    double_blank_points = serializers.IntegerField()


class SeatPlayerOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class SeatOutput(serializers.Serializer):
    number = serializers.IntegerField()
    player = SeatPlayerOutput(allow_null=True)
    bot_strategy = serializers.CharField(allow_blank=True, help_text="Set when a server bot plays the seat.")
    is_bot = serializers.SerializerMethodField()
    resigned = serializers.BooleanField()

    def get_is_bot(self, seat: Any) -> bool:
        return bool(seat.bot_strategy) or bool(seat.player and seat.player.is_bot)


class ResultOutput(serializers.Serializer):
    totals = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(
        child=serializers.IntegerField(), help_text="Winning seat numbers (several: shared)."
    )
    tie_break = serializers.ChoiceField(choices=TIE_BREAKS)


class GameSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    creator = serializers.CharField(source="creator.username")
    ruleset = RulesetOutput()
    practice = serializers.BooleanField()
    rated = serializers.BooleanField(help_text="The final standings change the seated accounts' ratings.")
    turn_time_limit = serializers.IntegerField(allow_null=True)
    bot_delay_ms = serializers.IntegerField()
    bot_strategy = serializers.ChoiceField(
        choices=strategy_choices(), help_text="The table's bot level (plays for absent and resigned players)."
    )
    seq = serializers.IntegerField(help_text="Sequence number of the game's last event.")
    turn_seat = serializers.IntegerField(allow_null=True)
    turn_deadline = serializers.DateTimeField(allow_null=True)
    seats = SeatOutput(many=True)
    result = ResultOutput(allow_null=True)
    abort_reason = serializers.CharField(allow_blank=True)
    moderated = serializers.BooleanField(
        help_text="A moderator acted on this game (aborted it, handed a seat to a bot, removed a player); "
        'the events concerned say "moderator": true.'
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


@extend_schema_field({"$ref": "#/components/schemas/LayoutNode"})
class LayoutField(serializers.JSONField):
    """The layout tree (see the ``LayoutNode`` schema)."""


@extend_schema_field({"$ref": "#/components/schemas/EventData"})
class EventDataField(serializers.JSONField):
    pass


class RoundInfoOutput(serializers.Serializer):
    number = serializers.IntegerField()
    of = serializers.IntegerField()
    starting_double = serializers.CharField()
    starter = serializers.IntegerField(help_text="The seat that placed the spinner.")
    phase = serializers.ChoiceField(
        choices=ROUND_PHASES, help_text="spinner/foot: only the playable ends may be played on."
    )
    drawn_tile_pending = serializers.BooleanField(help_text="The seat to move drew a playable tile: play it or pass.")


class OpenEndOutput(serializers.Serializer):
    id = serializers.CharField(help_text="Stable for the whole round.")
    pip = serializers.IntegerField(help_text="The pip a tile must show to go here.")
    playable = serializers.BooleanField()


class RoundSummaryOutput(serializers.Serializer):
    number = serializers.IntegerField()
    starting_double = serializers.CharField()
    starter = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=ROUND_END_REASONS)
    went_out = serializers.IntegerField(allow_null=True)
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Every hand as it was at the round's end (revealed).",
    )
    scores = serializers.ListField(child=serializers.IntegerField())


class MatchResultOutput(ResultOutput):
    seed = serializers.IntegerField()


class MatchStateOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=MATCH_STATUSES)
    ruleset = RulesetOutput()
    move_count = serializers.IntegerField()
    round = RoundInfoOutput()
    turn = serializers.IntegerField(allow_null=True)
    hand_sizes = serializers.ListField(child=serializers.IntegerField())
    boneyard_size = serializers.IntegerField()
    layout = LayoutField(allow_null=True)
    open_ends = OpenEndOutput(many=True)
    history = serializers.ListField(child=EventDataField(), help_text="This round's public events.")
    rounds = RoundSummaryOutput(many=True)
    totals = serializers.ListField(child=serializers.IntegerField())
    result = MatchResultOutput(allow_null=True)


class MoveBodyOutput(serializers.Serializer):
    type = serializers.ChoiceField(choices=MOVE_TYPES)
    tile = serializers.CharField(required=False)
    end = serializers.CharField(required=False)


class YouOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    resigned = serializers.BooleanField()
    hand = serializers.ListField(child=serializers.CharField(), allow_null=True)
    drawn_tile = serializers.CharField(allow_null=True, help_text="The playable tile you drew: play it or pass.")
    legal_moves = MoveBodyOutput(many=True)
    your_turn = serializers.BooleanField()
    turn_deadline = serializers.DateTimeField(allow_null=True)


class GameOutput(serializers.Serializer):
    """A game as the caller may see it (``GameView``)."""

    game = GameSummaryOutput()
    seed = serializers.IntegerField(
        allow_null=True,
        help_text="Shown after the end (and to the creator of a practice game, who chose it); null before.",
    )
    state = MatchStateOutput(allow_null=True, help_text="The public match state; null before the start.")
    you = YouOutput(allow_null=True, help_text="Your seat, hand and legal moves; null if you have no seat.")


class EventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.ChoiceField(choices=EVENT_TYPE_CHOICES)
    data = EventDataField()  # type: ignore[assignment]  # a field named like Serializer.data
    created_at = serializers.DateTimeField()


class EventPageOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The game's current seq.")
    status = serializers.ChoiceField(
        choices=GameStatus.choices, help_text="The game's status (stop waiting once it is over)."
    )
    events = EventOutput(many=True)
    has_more = serializers.BooleanField(help_text="More events follow: ask again with after = the last seq.")


class AccountGameOutput(serializers.Serializer):
    """One of an account's games, as its stream (GET /me/stream/) sends it."""

    game = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    your_turn = serializers.BooleanField()
    turn_deadline = serializers.DateTimeField(allow_null=True)
    result = ResultOutput(allow_null=True, help_text="Once the game is finished; null before (and if aborted).")


class MoveOutput(serializers.Serializer):
    number = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="Sequence number of the move's first event.")
    round = serializers.IntegerField()
    seat = serializers.IntegerField()
    move = MoveBodyOutput(source="payload")
    source = serializers.ChoiceField(choices=MoveSource.choices)  # type: ignore[assignment]  # a field named source
    created_at = serializers.DateTimeField()


class MovePageOutput(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The game's current seq.")
    moves = MoveOutput(many=True)
    has_more = serializers.BooleanField()


class MoveResultOutput(serializers.Serializer):
    move = MoveOutput()
    events = EventOutput(many=True)
    game = GameOutput()


class HandOutput(serializers.Serializer):
    number = serializers.IntegerField()
    starting_double = serializers.CharField()
    starter = serializers.IntegerField(help_text="The seat that placed the starting double.")
    status = serializers.ChoiceField(choices=HAND_STATUSES)
    reason = serializers.ChoiceField(choices=ROUND_END_REASONS, allow_null=True)
    went_out = serializers.IntegerField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)


class HandDetailOutput(HandOutput):
    revealed_hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="Every player's tiles at the hand's end; null while it runs.",
    )
    moves = MoveOutput(many=True)


class RecordMoveOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    move = MoveBodyOutput()


class SetupOutput(serializers.Serializer):
    """A given first-round position, as it was set (practice games)."""

    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Round 1's hands, seat 0 first."
    )
    boneyard = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="Draw order, first drawn first; null: shuffled."
    )


class GameRecordOutput(serializers.Serializer):
    ruleset = RulesetOutput()
    seed = serializers.IntegerField()
    setup = SetupOutput(allow_null=True, help_text="The given first-round position; null: dealt from the seed.")
    moves = RecordMoveOutput(many=True)
    result = ResultOutput(allow_null=True)


class BotStrengthOutput(serializers.Serializer):
    """How strong a strategy is, as the arena measured it (``docs/bots.md``)."""

    against = serializers.CharField(help_text='The line-up it was measured against, e.g. "3 greedy".')
    matches = serializers.IntegerField(help_text="Matches played (every deal once per seat rotation).")
    win_rate = FloatField(help_text="Share of matches it won (a shared win counts by its share).")
    win_rate_low = FloatField(help_text="Lower end of the 95% confidence interval.")
    win_rate_high = FloatField(help_text="Upper end of the 95% confidence interval.")
    cpu_ms_mean = FloatField(help_text="Mean CPU time of a decision (two or more legal moves), ms.")
    cpu_ms_p99 = FloatField(help_text="99th percentile of that CPU time, ms.")


class BotStrategyOutput(serializers.Serializer):
    name = serializers.ChoiceField(choices=strategy_choices())
    description = serializers.CharField(help_text="What the strategy does, in the request's language.")
    strength = BotStrengthOutput(allow_null=True, help_text="As the arena measured it; null: not measured.")
