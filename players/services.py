"""Every change to accounts and tokens.  Keyword-only, typed, one job each."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from core import notify
from core.errors import CoreCode
from core.humanize import duration
from core.limits import Limit
from players import account_data, login, second_factor, standing
from players.errors import PlayerCode, PlayerError
from players.models import AddressSighting, ApiToken, User
from players.token_cache import CACHE
from players.tokens import token_digest, token_generate

#: ``last_used_at`` is written at most this often, not on every request.
TOKEN_USE_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedToken:
    """A token just created: the row and the secret, which is never stored."""

    token: ApiToken
    secret: str


#: Django's password validators' codes for the rules a schema cannot state.
UNSTATED_PASSWORD_RULES = {"password_too_common", "password_too_similar"}
#: Deleted accounts are renamed ``deleted-<id>``: no new account may take such a name.
DELETED_PREFIX = "deleted-"


def user_register(*, username: str, password: str, is_bot: bool = False) -> User:
    """Create an account.  The password must pass Django's validators."""
    if username.lower().startswith(DELETED_PREFIX):
        raise ValidationError({"username": [_("Usernames starting with “deleted-” are kept for deleted accounts.")]})
    user = User(username=username, is_bot=is_bot)
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        # What the contract cannot state (a list of common passwords, likeness to the
        # username) is weak_password (422); what it states is a validation_error.
        if {e.code for e in error.error_list} <= UNSTATED_PASSWORD_RULES:
            raise PlayerError(
                PlayerCode.WEAK_PASSWORD, " ".join(error.messages), errors={"password": error.messages}
            ) from error
        raise ValidationError({"password": error.messages}) from error
    if User.objects.filter(username__iexact=username).exists():
        raise PlayerError(
            PlayerCode.USERNAME_TAKEN, gettext("The username '%(username)s' is taken.") % {"username": username}
        )
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # registered by someone else since the check above
        raise PlayerError(
            PlayerCode.USERNAME_TAKEN, gettext("The username '%(username)s' is taken.") % {"username": username}
        ) from None
    return user


def user_authenticate(*, username: str, password: str, address: str | None = None, otp: str | None = None) -> User:
    """The active user with these credentials, or ``invalid_credentials``; while the
    account's password log-in from ``address`` (the client's) is locked
    (``players.login``), ``login_locked``. With a confirmed second factor the code
    ``otp`` is needed too (``otp_required`` / ``otp_invalid``, players.second_factor)."""
    account = login.account_for(username)
    if account is not None and (wait := login.locked_for(account, address=address)):
        raise PlayerError(
            PlayerCode.LOGIN_LOCKED,
            _(
                "Too many wrong passwords: password log-in to this account is locked. "
                "Try again in %(duration)s; its API tokens keep working."
            )
            % {"duration": duration(wait)},
            retry_after=math.ceil(wait),
        )
    # Counts the failure (players.login), for the address given.
    user = authenticate(username=username, password=password, address=address)
    if user is None:
        if account is not None and not account.is_active and account.check_password(password):
            # Only the right password (and, when the account has one, the right second
            # factor) learns of the suspension: a guesser learns nothing.
            if second_factor.is_enabled(account):
                second_factor.verify(user=account, code=otp, address=address)
            raise suspended_refusal(account)
        raise PlayerError(PlayerCode.INVALID_CREDENTIALS, gettext("Wrong username or password."))
    if second_factor.is_enabled(user):
        second_factor.verify(user=user, code=otp, address=address)
    return user


#: What an appeal token (``suspended``) is signed with, and how long it serves.
APPEAL_TOKEN_SALT = "players.appeal"
APPEAL_TOKEN_MAX_AGE = 7 * 24 * 3600


def suspended_refusal(account: User) -> PlayerError:
    """``suspended`` for an account whose right password was given: the
    moderator's reason, the end, and a token to appeal with (no log-in needed)."""
    sanction = standing.suspension(account)
    reason = sanction["reason"] if sanction else ""
    until = sanction["ends_at"] if sanction else None
    if until is not None:
        detail = _("Your account is suspended until %(until)s UTC. The moderator's reason: %(reason)s") % {
            "until": f"{until:%Y-%m-%d %H:%M}",
            "reason": reason,
        }
    else:
        detail = _("Your account is suspended until a moderator lifts it. The moderator's reason: %(reason)s") % {
            "reason": reason
        }
    token = (
        signing.dumps({"user": account.pk, "sanction": sanction["id"]}, salt=APPEAL_TOKEN_SALT) if sanction else None
    )
    return PlayerError(
        PlayerCode.SUSPENDED,
        detail,
        reason=reason,
        until=until.isoformat() if until else None,
        sanction=sanction["id"] if sanction else None,
        appeal_token=token,
    )


def appeal_token_read(token: str) -> tuple[int, int] | None:
    """The (account id, sanction id) an appeal token was issued for, or None (forged or too old)."""
    try:
        data = signing.loads(token, salt=APPEAL_TOKEN_SALT, max_age=APPEAL_TOKEN_MAX_AGE)
    except signing.BadSignature:
        return None
    return int(data["user"]), int(data["sanction"])


def token_issue(*, user: User, name: str) -> IssuedToken:
    """A new token asked for over the API: within ``MAX_TOKENS_PER_ACCOUNT`` active
    tokens and ``THROTTLE_TOKENS`` new ones per account."""
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= settings.MAX_TOKENS_PER_ACCOUNT:
        raise PlayerError(
            PlayerCode.TOO_MANY_TOKENS,
            gettext(
                "You hold %(max_tokens_per_account)s active tokens, the most an account may: revoke one you no longer use (DELETE /api/v1/tokens/{id}/)."
            )
            % {"max_tokens_per_account": settings.MAX_TOKENS_PER_ACCOUNT},
        )
    wait = Limit("tokens", settings.THROTTLE_TOKENS, store="database").hit(str(user.pk))
    if wait is not None:
        raise PlayerError(
            CoreCode.RATE_LIMITED,
            _("Too many new tokens for this account: try again in %(duration)s.") % {"duration": duration(wait)},
            retry_after=math.ceil(wait),
        )
    return token_create(user=user, name=name)


def token_create(*, user: User, name: str, now: datetime | None = None) -> IssuedToken:
    secret, prefix = token_generate()
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=prefix,
        digest=token_digest(secret),
        created_at=now or timezone.now(),
    )
    return IssuedToken(token=token, secret=secret)


def credentials_changed(user_id: int) -> None:
    """The account's tokens or standing changed: this process forgets its cached
    tokens at once; once committed, every web process does, and the account's open
    streams re-check that they may go on (and close if not). Every save of an
    account or a token calls it (``players.signals``); a bulk update must too."""
    CACHE.forget(user_id)

    def tell() -> None:
        CACHE.forget(user_id)  # again: a request may have read the old row meanwhile
        notify.publish([notify.auth_channel(user_id), notify.AUTH], messages={notify.AUTH: user_id})

    transaction.on_commit(tell)


def token_revoke(*, token: ApiToken, now: datetime | None = None) -> None:
    token.revoked_at = now or timezone.now()
    token.save(update_fields=["revoked_at"])  # credentials_changed, by players.signals


def token_mark_used(*, token: ApiToken, now: datetime | None = None) -> None:
    """Record a use, at most once per ``TOKEN_USE_RESOLUTION`` (no write per request)."""
    now = now or timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < TOKEN_USE_RESOLUTION:
        return
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    token.last_used_at = now


# -- moderation (called by moderation.services, which records the audit trail) --


def user_set_active(*, user: User, is_active: bool) -> None:
    """Suspend (``False``) or reinstate an account. A suspended account cannot
    log in, and its sessions and tokens are refused (``ApiTokenAuthentication``)."""
    user.is_active = is_active
    user.save(update_fields=["is_active"])  # credentials_changed, by players.signals


def tokens_revoke_all(*, user: User, now: datetime | None = None) -> int:
    """Revoke every active token of ``user``; returns how many there were."""
    revoked = ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now or timezone.now())
    credentials_changed(user.pk)
    return revoked


def user_set_bot(*, user: User, is_bot: bool) -> None:
    """Mark (or unmark) an account as a bot: it is shown as a bot everywhere."""
    user.is_bot = is_bot
    user.save(update_fields=["is_bot"])


# -- the player's own account: password, deletion ------------------------------------


def password_confirm(*, user: User, password: str) -> None:
    """Check the account's own password before a change only its owner may make:
    ``wrong_password`` (403) if wrong, ``login_locked`` while the log-in lock holds.
    A wrong one counts towards the lock (``players.login``), as at log-in, so a
    stolen token cannot be used to guess the password."""
    if wait := login.locked_for(user):
        raise PlayerError(
            PlayerCode.LOGIN_LOCKED,
            _("Too many wrong passwords: try again in %(seconds)s s.") % {"seconds": math.ceil(wait)},
            retry_after=math.ceil(wait),
        )
    if authenticate(username=user.username, password=password) is None:
        raise PlayerError(PlayerCode.WRONG_PASSWORD, _("That is not your current password."))


def password_change(
    *, user: User, current_password: str, new_password: str, keep_token_id: int | None, revoke_others: bool
) -> int:
    """Set a new password (Django's validators apply); with ``revoke_others``, revoke
    every other active token of the account (``keep_token_id``: the caller's own, if
    any). Answers how many tokens were revoked."""
    password_confirm(user=user, password=current_password)
    try:
        validate_password(new_password, user=user)
    except ValidationError as error:
        raise ValidationError({"new_password": error.messages}) from error
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        locked.set_password(new_password)
        locked.save(update_fields=["password"])  # credentials_changed, by players.signals
        revoked = 0
        if revoke_others:
            others = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
            if keep_token_id is not None:
                others = others.exclude(pk=keep_token_id)
            revoked = others.update(revoked_at=timezone.now())
            credentials_changed(user.pk)
    user.password = locked.password
    return revoked


def account_delete(*, user: User, password: str, now: datetime | None = None) -> None:
    """Delete the player's account, as docs/account.md says: refused while a section
    objects (e.g. a game in play); otherwise every section erases its part (ratings,
    chat, reports made, warnings) and the row becomes an anonymous placeholder
    (``deleted-<id>``, no password, no tokens, inactive) that keeps the seats of its
    finished games, so they still replay. Its open streams close (credentials_changed)."""
    password_confirm(user=user, password=password)
    if (refusal := account_data.refusal(user)) is not None:
        raise refusal
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        account_data.erase(locked)
        ApiToken.objects.filter(user=locked).delete()
        AddressSighting.objects.filter(account=locked).delete()  # its address hashes (alt accounts)
        locked.username = f"{DELETED_PREFIX}{locked.pk}"
        locked.first_name = locked.last_name = locked.email = ""
        locked.set_unusable_password()
        locked.is_active = False
        locked.is_staff = locked.is_superuser = False
        locked.failed_logins = 0
        locked.login_locked_until = None
        locked.deleted_at = now
        locked.save()  # credentials_changed, by players.signals: streams close, caches forget
        locked.groups.clear()
        locked.user_permissions.clear()
