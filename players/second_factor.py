"""The second factor: a TOTP authenticator app (RFC 6238, django-otp's ``oath``),
with one-time recovery codes (docs/security.md).

Required of every staff account and every member of the Moderators group before
any admin page answers (``players.admin_gate``); optional for players, who turn it
on over the API (``/api/v1/me/second-factor/``). Once confirmed, every password
log-in (``POST /tokens/``, ``POST /session/``, the admin's) asks for a code too.

Codes count towards the log-in lock (``players.login``) like passwords: a wrong
code is a failure, and with a second factor a right password alone does not reset
the count (the log-in is complete only with the code). A code is accepted once
(the step it belongs to is remembered) within one step either side of now.
"""

from __future__ import annotations

import base64
import hashlib
import math
import secrets
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django_otp.oath import TOTP
from django_otp.util import random_hex

from core.humanize import duration
from players import login
from players.errors import PlayerCode, PlayerError
from players.models import RecoveryCode, SecondFactor, User

#: The group whose members must have a second factor (moderation.services.MODERATORS_GROUP).
MODERATORS_GROUP = "Moderators"
#: The session key that marks an admin session whose second factor was given (its account's id).
SESSION_KEY = "second_factor_verified"
#: Recovery codes made at confirmation (each works once).
RECOVERY_CODES = 10
#: Steps either side of the server's clock a code may come from (clock skew).
TOLERANCE = 1
#: A recovery code: 12 letters and digits (60 bits) shown as xxxx-xxxx-xxxx.
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


@dataclass(frozen=True)
class Provisioning:
    """What an authenticator app needs: the secret (base32) and the otpauth:// URI
    that carries it (what a QR code would show)."""

    secret: str
    uri: str


def is_required(user: User) -> bool:
    """Staff and moderators may reach no admin page without a confirmed second factor."""
    return bool(user.is_staff or user.is_superuser or user.groups.filter(name=MODERATORS_GROUP).exists())


def device(user: User) -> SecondFactor | None:
    """The account's second factor, confirmed or not."""
    return SecondFactor.objects.filter(user=user).first()


def is_enabled(user: User) -> bool:
    """A confirmed second factor: log-ins ask for a code."""
    return SecondFactor.objects.filter(user=user, confirmed_at__isnull=False).exists()


def recovery_codes_left(user: User) -> int:
    return RecoveryCode.objects.filter(user=user, used_at__isnull=True).count()


def _secret(factor: SecondFactor) -> str:
    return base64.b32encode(bytes.fromhex(factor.key)).decode("ascii").rstrip("=")


def provisioning(factor: SecondFactor) -> Provisioning:
    secret = _secret(factor)
    issuer = settings.SECOND_FACTOR_ISSUER
    label = quote(f"{issuer}:{factor.user.username}")
    query = urlencode({"secret": secret, "issuer": issuer, "algorithm": "SHA1", "digits": 6, "period": 30})
    return Provisioning(secret=secret, uri=f"otpauth://totp/{label}?{query}")


def _normal(code: str) -> str:
    return "".join(code.split()).replace("-", "").lower()


def _digest(code: str) -> str:
    return hashlib.sha256(_normal(code).encode()).hexdigest()


def set_up(*, user: User) -> Provisioning:
    """A new, unconfirmed second factor (replacing an unconfirmed one); refused
    while a confirmed one exists (``second_factor_enabled``: disable it first)."""
    with transaction.atomic():
        User.objects.select_for_update().only("pk").get(pk=user.pk)
        existing = SecondFactor.objects.filter(user=user).first()
        if existing is not None and existing.confirmed_at is not None:
            raise PlayerError(PlayerCode.SECOND_FACTOR_ENABLED, _("A second factor is on already: turn it off first."))
        if existing is not None:
            existing.delete()
        factor = SecondFactor.objects.create(user=user, key=random_hex(20))
    return provisioning(factor)


def _totp_step(factor: SecondFactor, code: str) -> int | None:
    """The step of a right TOTP code not used before, else None."""
    if not (len(code) == 6 and code.isdigit()):
        return None
    totp = TOTP(bytes.fromhex(factor.key), step=30, digits=6)
    if totp.verify(int(code), tolerance=TOLERANCE, min_t=factor.last_step + 1):
        return int(totp.t())
    return None


def _new_recovery_codes(user: User) -> list[str]:
    RecoveryCode.objects.filter(user=user).delete()
    codes = ["".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(12)) for _ in range(RECOVERY_CODES)]
    RecoveryCode.objects.bulk_create(RecoveryCode(user=user, digest=_digest(code)) for code in codes)
    return [f"{c[:4]}-{c[4:8]}-{c[8:]}" for c in codes]


def confirm(*, user: User, code: str) -> list[str]:
    """Confirm the unconfirmed second factor with a code from the app; answers the
    recovery codes, shown this once (only their digests are kept)."""
    with transaction.atomic():
        factor = SecondFactor.objects.select_for_update().filter(user=user).first()
        if factor is None or factor.confirmed_at is not None:
            raise PlayerError(
                PlayerCode.SECOND_FACTOR_NOT_PENDING,
                _("There is no second factor waiting for confirmation: set one up first."),
            )
        step = _totp_step(factor, _normal(code))
        if step is None:
            raise PlayerError(
                PlayerCode.OTP_INVALID, _("That code is wrong or expired: enter the one the app shows now.")
            )
        factor.confirmed_at = timezone.now()
        factor.last_step = step
        factor.save(update_fields=["confirmed_at", "last_step"])
        return _new_recovery_codes(user)


def check(*, user: User, code: str) -> bool:
    """Whether ``code`` is a right, unused code of the confirmed second factor: a
    TOTP code, or a recovery code (then used up). Counts nothing: see ``verify``."""
    normal = _normal(code)
    with transaction.atomic():
        factor = SecondFactor.objects.select_for_update().filter(user=user, confirmed_at__isnull=False).first()
        if factor is None:
            return False
        step = _totp_step(factor, normal)
        if step is not None:
            factor.last_step = step
            factor.save(update_fields=["last_step"])
            return True
        if len(normal) != 12:
            return False
        return bool(
            RecoveryCode.objects.filter(user=user, digest=_digest(normal), used_at__isnull=True).update(
                used_at=timezone.now()
            )
        )


def _locked(wait: float) -> PlayerError:
    return PlayerError(
        PlayerCode.LOGIN_LOCKED,
        _(
            "Too many wrong passwords or codes: log-in to this account is locked. "
            "Try again in %(duration)s; its API tokens keep working."
        )
        % {"duration": duration(wait)},
        retry_after=math.ceil(wait),
    )


def verify(*, user: User, code: str | None, address: str | None) -> None:
    """The second step of a log-in whose password was right (or of an admin session):
    ``otp_required`` without a code, ``otp_invalid`` for a wrong one (a failure for
    the log-in lock), ``login_locked`` while the lock holds; a right one completes
    the log-in (the lock's count reset, ``players.login.record_success``)."""
    if not code:
        raise PlayerError(
            PlayerCode.OTP_REQUIRED,
            _("This account has a second factor: send the code from your authenticator app (or a recovery code)."),
        )
    if wait := login.locked_for(user, address=address):
        raise _locked(wait)
    if not check(user=user, code=code):
        login.record_failure(user, address=address)
        raise PlayerError(PlayerCode.OTP_INVALID, _("That code is wrong, expired or used already."))
    login.record_success(user, address=address)


def disable(*, user: User) -> None:
    """Turn the second factor off (the caller checked password and code)."""
    with transaction.atomic():
        SecondFactor.objects.filter(user=user).delete()
        RecoveryCode.objects.filter(user=user).delete()


def reset(*, user: User) -> bool:
    """Remove an account's second factor and recovery codes (a moderator's reset,
    ``moderation.second_factor``, which audits it). Answers whether there was one."""
    with transaction.atomic():
        had = SecondFactor.objects.filter(user=user).exists()
        disable(user=user)
    return had
