"""Input shapes and output shapes of the players API (uniquely named)."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players import standing
from players.models import User


class PlayerRegisterInput(serializers.Serializer):
    username = serializers.CharField(max_length=150, validators=[User.username_validator])
    # The part of the password rule (AUTH_PASSWORD_VALIDATORS) a schema can state; the
    # rest (not a common password, not like the username) is said in help_text.
    password = serializers.CharField(
        min_length=8,
        max_length=128,
        write_only=True,
        trim_whitespace=False,
        validators=[RegexValidator(r"^[^\x00]*[^\d\x00][^\x00]*$", message=_("This password is entirely numeric."))],
        help_text="8 to 128 characters, not all digits; a commonly used password, or one too like the "
        "username, is refused too (`weak_password`, 422).",
    )


class PlayerOutput(serializers.Serializer):
    """A player as anyone sees them."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class AccountAppealOutput(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["open", "upheld", "lifted"],
        help_text="open: waiting for a moderator (not the one who imposed the sanction); "
        "upheld: the sanction stays; lifted: it was lifted.",
    )
    text = serializers.CharField(help_text="What you wrote.")
    answer = serializers.CharField(help_text="The moderator's answer (empty while open).")
    created_at = serializers.DateTimeField()


class AccountSanctionOutput(serializers.Serializer):
    """A sanction in force on the account, as its player sees it."""

    id = serializers.IntegerField(help_text="Appeal it with POST /api/v1/me/sanctions/{id}/appeal/.")
    kind = serializers.ChoiceField(
        choices=["suspension", "mute"], help_text="mute: you cannot write in the chat; you still play."
    )
    reason = serializers.CharField(help_text="The moderator's reason, as written.")
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="null: until a moderator lifts it.")
    appeal = AccountAppealOutput(allow_null=True, help_text="Your appeal (one per sanction), or null.")


class AccountEndedSanctionOutput(serializers.Serializer):
    """A sanction on the account that ended lately (within `ENDED_SANCTIONS_WINDOW`,
    30 days), as its player sees it: when and how it ended, and the appeal's answer."""

    id = serializers.IntegerField(help_text="The sanction, as in GET /api/v1/me/sanctions/.")
    kind = serializers.ChoiceField(
        choices=["suspension", "mute"], help_text="mute: you could not write in the chat; you still played."
    )
    reason = serializers.CharField(help_text="The moderator's reason, as written.")
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="The end it was given (null: until a moderator lifted it)."
    )
    ended_at = serializers.DateTimeField(help_text="When it ended: its end, or when a moderator lifted it before.")
    ended_how = serializers.ChoiceField(
        choices=standing.SANCTION_ENDINGS,
        help_text="expired: its time ran out; lifted: a moderator lifted it before its end; "
        "appeal: a moderator lifted it on your appeal (`appeal.answer` says why).",
    )
    appeal = AccountAppealOutput(
        allow_null=True, help_text="Your appeal and the moderator's answer (`status` upheld or lifted), or null."
    )


class AccountOutput(PlayerOutput):
    """The caller's own account."""

    is_staff = serializers.BooleanField(help_text="A moderator (may use the admin).")
    date_joined = serializers.DateTimeField()
    sanctions = serializers.SerializerMethodField(
        help_text="The sanctions in force on the account (a mute: you cannot write in the chat), with the "
        "moderator's reason, the end and your appeal."
    )

    ended_sanctions = serializers.SerializerMethodField(
        help_text="The sanctions that ended in the last 30 days (lifted by a moderator, on appeal or not, or "
        "run out), the latest ended first: when and how each ended, and your appeal with the moderator's answer. "
        "Not in `sanctions` any more."
    )

    @extend_schema_field(AccountSanctionOutput(many=True))
    def get_sanctions(self, user: User) -> Any:
        return AccountSanctionOutput(standing.sanctions(user), many=True).data

    @extend_schema_field(AccountEndedSanctionOutput(many=True))
    def get_ended_sanctions(self, user: User) -> Any:
        return AccountEndedSanctionOutput(standing.ended_sanctions(user), many=True).data


#: A TOTP code (6 digits) or a recovery code (xxxx-xxxx-xxxx); spaces and dashes are ignored.
OTP_MAX_LENGTH = 32
OTP_HELP = (
    "The second factor's code, when the account has one (else `otp_required`): the 6 digits the "
    "authenticator app shows, or an unused recovery code (`xxxx-xxxx-xxxx`)."
)


class TokenCreateInput(serializers.Serializer):
    """Either username and password, or nothing but a name when already authenticated."""

    schema_extra = {
        "dependentRequired": {"username": ["password"], "password": ["username"], "otp": ["username", "password"]}
    }

    name = serializers.CharField(max_length=64, help_text="A name to recognise the token by.")
    username = serializers.CharField(max_length=150, required=False)
    password = serializers.CharField(max_length=128, required=False, write_only=True, trim_whitespace=False)
    otp = serializers.CharField(
        max_length=OTP_MAX_LENGTH,
        required=False,
        write_only=True,
        help_text=OTP_HELP,
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("username" in attrs) != ("password" in attrs):
            missing = "password" if "username" in attrs else "username"
            raise serializers.ValidationError({missing: [gettext("Send username and password together.")]})
        if "otp" in attrs and "username" not in attrs:
            raise serializers.ValidationError({"username": [gettext("Send the code with username and password.")]})
        return attrs


class SessionCreateInput(serializers.Serializer):
    """A browser's password log-in (the web client's)."""

    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, write_only=True, trim_whitespace=False)
    otp = serializers.CharField(max_length=OTP_MAX_LENGTH, required=False, write_only=True, help_text=OTP_HELP)
    remember = serializers.BooleanField(
        default=False,
        help_text="Keep the session for `SESSION_COOKIE_AGE` (two weeks); else it ends when the browser closes.",
    )


class SessionOutput(serializers.Serializer):
    """The browser's session: its account, and the CSRF token its unsafe requests send."""

    account = AccountOutput()
    csrf_token = serializers.CharField(
        help_text="Send it as the `X-CSRFToken` header on every POST, PUT, PATCH and DELETE of this session."
    )


class TokenOutput(serializers.Serializer):
    """A token as listed: never its secret."""

    id = serializers.IntegerField()
    name = serializers.CharField(
        help_text="The name given when the token was made (`name` of POST /tokens/); a browser's session "
        "(POST /session/) is named by the server from its User-Agent, in that request's language."
    )
    prefix = serializers.CharField(help_text="The token starts with `cf_<prefix>_`.")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="Precise to about a minute.")
    current = serializers.SerializerMethodField(help_text="The token this request was made with.")

    @extend_schema_field(serializers.BooleanField())
    def get_current(self, token: Any) -> bool:
        return bool(token.pk == self.context.get("token_id"))


class TokenCreatedOutput(serializers.Serializer):
    """A token just created: `token` is shown this once and never again."""

    id = serializers.IntegerField(source="token.id")
    name = serializers.CharField(source="token.name")
    prefix = serializers.CharField(source="token.prefix")
    created_at = serializers.DateTimeField(source="token.created_at")
    token = serializers.CharField(source="secret", help_text="Send as `Authorization: Bearer <token>`.")


class PasswordChangeInput(serializers.Serializer):
    current_password = serializers.CharField(max_length=128, write_only=True, trim_whitespace=False)
    new_password = serializers.CharField(
        max_length=128, write_only=True, trim_whitespace=False, help_text="Must pass the server's password rules."
    )
    revoke_other_tokens = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also sign out every other device: revoke every active token but the one of this request.",
    )


class PasswordChangedOutput(serializers.Serializer):
    revoked_tokens = serializers.IntegerField(help_text="How many other tokens were revoked.")


class AccountDeleteInput(serializers.Serializer):
    password = serializers.CharField(
        max_length=128, write_only=True, trim_whitespace=False, help_text="The current password, to confirm."
    )


# -- the second factor (players.second_factor) ----------------------------------------


class SecondFactorOutput(serializers.Serializer):
    """The account's second factor, never its secret."""

    enabled = serializers.BooleanField(help_text="Confirmed: every password log-in asks for a code.")
    pending = serializers.BooleanField(help_text="Set up but not confirmed yet (not asked for at log-in).")
    required_by_admin = serializers.BooleanField(
        help_text="Staff and moderators: the admin answers only with a confirmed second factor."
    )
    confirmed_at = serializers.DateTimeField(allow_null=True)
    recovery_codes_left = serializers.IntegerField(help_text="Unused recovery codes.")


class SecondFactorSetupInput(serializers.Serializer):
    password = serializers.CharField(
        max_length=128, write_only=True, trim_whitespace=False, help_text="The current password, to confirm."
    )


class SecondFactorSetupOutput(serializers.Serializer):
    """What the authenticator app needs; shown this once."""

    secret = serializers.CharField(help_text="The shared secret, base32 (to type into the app).")
    otpauth_uri = serializers.CharField(
        source="uri", help_text="The same as an `otpauth://totp/...` URI (what a QR code for the app holds)."
    )


class SecondFactorConfirmInput(serializers.Serializer):
    code = serializers.CharField(max_length=OTP_MAX_LENGTH, help_text="The 6 digits the app shows now.")


class SecondFactorConfirmedOutput(serializers.Serializer):
    recovery_codes = serializers.ListField(
        child=serializers.CharField(),
        help_text="One-time codes that stand in for the app (a lost phone): shown this once, keep them safe.",
    )


class SecondFactorDisableInput(serializers.Serializer):
    password = serializers.CharField(
        max_length=128, write_only=True, trim_whitespace=False, help_text="The current password."
    )
    code = serializers.CharField(
        max_length=OTP_MAX_LENGTH, help_text="A code from the app, or an unused recovery code."
    )
