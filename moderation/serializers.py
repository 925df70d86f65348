"""Input and output shapes of the moderation API: players' reports and warnings."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from moderation.models import AppealStatus, ReportOutcome, ReportReason, ReportStatus, ReportTarget, SanctionKind
from moderation.selectors import sanction_ending
from players.standing import SANCTION_ENDINGS

# Each one enum of the OpenAPI document under its own name (ENUM_NAME_OVERRIDES).
REPORT_REASONS = tuple(ReportReason.values)
REPORT_STATUSES = tuple(ReportStatus.values)
REPORT_TARGETS = tuple(ReportTarget.values)
REPORT_OUTCOMES = tuple(ReportOutcome.values)
SANCTION_KINDS = tuple(SanctionKind.values)
APPEAL_STATUSES = tuple(AppealStatus.values)


class ReportCreateInput(serializers.Serializer):
    """Exactly one target: `account` (a username), `game` (an id) or `message` (a chat message's id)."""

    schema_extra = {"oneOf": [{"required": ["account"]}, {"required": ["game"]}, {"required": ["message"]}]}

    account = serializers.CharField(max_length=150, required=False, help_text="The username of the account reported.")
    game = serializers.IntegerField(min_value=1, required=False, help_text="The id of the game reported.")
    message = serializers.IntegerField(
        min_value=1, required=False, help_text="The id of the chat message reported (one you can read)."
    )
    reason = serializers.ChoiceField(choices=REPORT_REASONS)
    text = serializers.CharField(
        max_length=2000, required=False, default="", allow_blank=True, help_text="What happened, for the moderators."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if sum(key in attrs for key in ("account", "game", "message")) != 1:
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("Give exactly one of account, game and message.")]}
            )
        return attrs


class ReportOutput(serializers.Serializer):
    """A report as its reporter sees it (never who handles it)."""

    id = serializers.IntegerField()
    target_kind = serializers.ChoiceField(choices=REPORT_TARGETS)
    account = serializers.CharField(source="account.username", allow_null=True, default=None)
    game = serializers.IntegerField(source="game_id", allow_null=True, help_text="For a message: its game.")
    message = serializers.IntegerField(source="message_id", allow_null=True, help_text="The chat message reported.")
    reason = serializers.ChoiceField(choices=REPORT_REASONS)
    text = serializers.CharField()
    status = serializers.ChoiceField(choices=REPORT_STATUSES)
    outcome = serializers.ChoiceField(
        choices=REPORT_OUTCOMES, allow_null=True, source="outcome_or_none", help_text="Set once resolved."
    )
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)


class WarningOutput(serializers.Serializer):
    """A warning from the moderators (never who reported what)."""

    id = serializers.IntegerField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    acknowledged_at = serializers.DateTimeField(allow_null=True, help_text="When you said you had read it.")


class AppealOutput(serializers.Serializer):
    """A player's appeal against a sanction (never who answered)."""

    id = serializers.IntegerField()
    sanction = serializers.IntegerField(source="sanction_id")
    text = serializers.CharField(help_text="What the player wrote.")
    status = serializers.ChoiceField(
        choices=APPEAL_STATUSES, help_text="open: waiting; upheld: the sanction stays; lifted: it was lifted."
    )
    answer = serializers.CharField(help_text="The moderator's answer (empty while open).")
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


class AppealCreateInput(serializers.Serializer):
    text = serializers.CharField(max_length=2000, help_text="Why the sanction should be lifted, for the moderators.")


class AppealTokenInput(AppealCreateInput):
    appeal_token = serializers.CharField(
        max_length=500, help_text="From the log-in refusal `suspended` (valid for a week)."
    )


class SanctionOutput(serializers.Serializer):
    """A mute or a suspension as its player sees it (never which moderator)."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SANCTION_KINDS)
    reason = serializers.CharField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="None: until a moderator lifts it.")
    lifted_at = serializers.DateTimeField(allow_null=True, help_text="Lifted (or ended) then.")
    ended_at = serializers.SerializerMethodField(
        help_text="When it ended: its end, or when a moderator lifted it before (null: in force)."
    )
    ended_how = serializers.SerializerMethodField(
        help_text="How it ended (null: in force): expired, its time ran out; lifted, a moderator lifted it "
        "before its end; appeal, a moderator lifted it on your appeal."
    )
    appeal = serializers.SerializerMethodField(help_text="Your appeal against it (one per sanction), or null.")

    def to_representation(self, sanction: Any) -> dict[str, Any]:
        # How it ended, worked out once for both fields (a list serializer's child
        # represents its items one after the other).
        self._ending = sanction_ending(sanction)
        return super().to_representation(sanction)

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_ended_at(self, sanction: Any) -> str | None:
        return serializers.DateTimeField().to_representation(self._ending[0]) if self._ending else None

    @extend_schema_field(serializers.ChoiceField(choices=SANCTION_ENDINGS, allow_null=True))
    def get_ended_how(self, sanction: Any) -> str | None:
        return self._ending[1] if self._ending else None

    @extend_schema_field(AppealOutput(allow_null=True))
    def get_appeal(self, sanction: Any) -> dict[str, Any] | None:
        appeal = sanction.appeal_or_none
        return AppealOutput(appeal).data if appeal is not None else None
