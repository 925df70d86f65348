"""Input and output shapes of the challenges API (component names are unique
across the project: they become the OpenAPI component names)."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from challenges.models import ChallengeStatus, InviteStatus
from challenges.services import MAX_INVITEES
from core.serializers import UniqueListField
from games.serializers import RulesetInput, RulesetOutput, SeatPlayerOutput, strategy_choices

CHALLENGE_ROLES = ("sent", "received")


class ChallengeRulesetInput(RulesetInput):
    """A ruleset as for a table, but ``players`` follows from the invitees: leave it
    out, or give 1 + their number."""

    players = serializers.IntegerField(
        min_value=2, max_value=14, required=False, help_text="1 + the number of invitees (the default)."
    )


class ChallengeCreateInput(serializers.Serializer):
    invitees = UniqueListField(
        child=serializers.CharField(max_length=150),
        min_length=1,
        max_length=MAX_INVITEES,
        help_text="Usernames (any case) of the accounts invited, humans or bots; invitee n takes seat n, "
        "you take seat 0.",
    )
    ruleset = ChallengeRulesetInput(required=False)
    rated = serializers.BooleanField(default=False, help_text="The final standings change the players' ratings.")
    turn_time_limit = serializers.IntegerField(
        min_value=5,
        max_value=86400,
        required=False,
        allow_null=True,
        help_text="Seconds per turn. Left out: the server's default clock (`DEFAULT_TURN_SECONDS`, 60 s unless the "
        "deployment sets another); null: no clock.",
    )
    bot_delay_ms = serializers.IntegerField(min_value=0, max_value=10000, default=0)
    bot_strategy = serializers.ChoiceField(
        choices=strategy_choices(),
        default="greedy",
        help_text="The table's bot level (plays for absent and resigned players).",
    )
    expires_in = serializers.IntegerField(
        min_value=10,
        max_value=7 * 86400,
        required=False,
        help_text=f"Seconds the invitees have to accept (default {settings.CHALLENGE_EXPIRES_SECONDS}).",
    )


class ChallengeListQueryInput(serializers.Serializer):
    role = serializers.ChoiceField(
        choices=CHALLENGE_ROLES,
        required=False,
        help_text="sent: yours; received: those you are invited to; left out: both.",
    )
    status = serializers.ChoiceField(choices=ChallengeStatus.choices, required=False)


class ChallengeInviteOutput(serializers.Serializer):
    player = SeatPlayerOutput()
    seat = serializers.IntegerField(help_text="The seat the invitee takes at the table.")
    status = serializers.ChoiceField(choices=InviteStatus.choices)
    answered_at = serializers.DateTimeField(allow_null=True)
    auto = serializers.BooleanField(help_text="Answered by the bot account's challenge policy.")


class ChallengeOutput(serializers.Serializer):
    """A challenge, as its creator or an invitee sees it."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ChallengeStatus.choices)
    role = serializers.ChoiceField(
        choices=CHALLENGE_ROLES, help_text="sent: you created it; received: you are invited."
    )
    creator = SeatPlayerOutput(help_text="Takes seat 0.")
    invites = ChallengeInviteOutput(many=True)
    your_invite = serializers.ChoiceField(
        choices=InviteStatus.choices, allow_null=True, help_text="Your answer so far; null: you sent it."
    )
    ruleset = RulesetOutput()
    rated = serializers.BooleanField()
    turn_time_limit = serializers.IntegerField(allow_null=True)
    bot_delay_ms = serializers.IntegerField()
    bot_strategy = serializers.ChoiceField(choices=strategy_choices())
    game = serializers.IntegerField(allow_null=True, help_text="The table, once everyone accepted (started).")
    cancel_reason = serializers.CharField(allow_blank=True)
    expires_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ChallengePolicyInput(serializers.Serializer):
    auto_accept = serializers.BooleanField(help_text="Accept challenges within the limits below at once.")
    rated = serializers.BooleanField(default=True, help_text="Accept rated challenges.")
    casual = serializers.BooleanField(default=True, help_text="Accept casual (unrated) challenges.")
    min_players = serializers.IntegerField(min_value=2, max_value=14, default=2)
    max_players = serializers.IntegerField(min_value=2, max_value=14, default=14)
    max_games = serializers.IntegerField(
        min_value=1, max_value=100, default=4, help_text="Games at once (tables plus accepted challenges)."
    )


class ChallengePolicyOutput(serializers.Serializer):
    auto_accept = serializers.BooleanField()
    rated = serializers.BooleanField()
    casual = serializers.BooleanField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    max_games = serializers.IntegerField()
    server_strategy = serializers.CharField(
        allow_blank=True, help_text="Set by the server: it plays this account's seats with that strategy."
    )
