"""Accounts and their API tokens (persistence only: behaviour is in services)."""

from __future__ import annotations

from typing import ClassVar

from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
from django.db.models.functions import Lower, Upper
from django.utils import timezone


class UserManager(DjangoUserManager["User"]):
    def get_by_natural_key(self, username: str | None) -> User:
        # Usernames are unique regardless of case, so log-ins ignore case too.
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player.  Suspending one means ``is_active = False``."""

    is_bot = models.BooleanField(
        default=False,
        help_text="A bot account: its moves are made by a program, and it is shown as a bot everywhere.",
    )
    failed_logins = models.PositiveIntegerField(
        default=0,
        help_text="Wrong passwords in a row (players.login); a right one resets it.",
    )
    login_locked_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="No password log-in until then (API tokens keep working).",
    )
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The player deleted the account: this row is an anonymous placeholder for its finished games.",
    )

    objects: ClassVar[UserManager] = UserManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(Lower("username"), name="players_user_username_ci_unique"),
        ]
        indexes = [
            # What Django's username__iexact (UPPER(username) = UPPER(%s)) reads: every
            # log-in and player page looks an account up by its name, regardless of case;
            # without it that is a scan of the accounts (docs/performance.md, "Hot paths").
            models.Index(Upper("username"), name="players_user_username_upper"),
        ]


class ApiToken(models.Model):
    """A bearer token.  Only a SHA-256 digest of it is stored; the token itself
    is shown once, when it is created."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=64, help_text="What the owner calls it, e.g. 'laptop' or 'my bot'.")
    prefix = models.CharField(max_length=8, db_index=True, help_text="Public part of the token, for recognising it.")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True, help_text="Updated at most once a minute.")
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=("user", "revoked_at"), name="players_token_user_active")]

    def __str__(self) -> str:
        return f"{self.name} (cf_{self.prefix}_…)"


class LoginAddress(models.Model):
    """Password log-ins to one account from one address (an IPv4 address, or an IPv6
    /64 network): the quick lock's counts (``players.login``), and whether a right
    password ever came from there (a known address, exempt from the account-wide
    ceiling)."""

    account = models.ForeignKey(User, on_delete=models.CASCADE, related_name="login_addresses")
    address = models.CharField(
        max_length=64, help_text="A keyed hash of the address (players.address_hash), never the address."
    )
    failures = models.PositiveIntegerField(default=0, help_text="Wrong passwords in a row from this address.")
    locked_until = models.DateTimeField(null=True, blank=True)
    known = models.BooleanField(default=False, help_text="A right password came from this address.")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("account", "address"), name="players_login_address_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.account_id} from {self.address[:12]}"


class SecondFactor(models.Model):
    """An account's authenticator app (TOTP, RFC 6238: 6 digits, 30-second steps),
    ``players.second_factor``. Unconfirmed until a code from the app proves it was
    set up; only a confirmed one is asked for at log-in. The key is needed to check
    codes, so it is stored as it is (like the app stores it)."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="second_factor")
    key = models.CharField(max_length=40, help_text="The shared secret, hex (20 bytes).")
    created_at = models.DateTimeField(default=timezone.now)
    confirmed_at = models.DateTimeField(null=True, blank=True, help_text="Empty until a first code is given.")
    last_step = models.BigIntegerField(
        default=-1, help_text="The last 30-second step whose code was accepted: no code is accepted twice."
    )

    def __str__(self) -> str:
        return f"second factor of {self.user_id}"


class RecoveryCode(models.Model):
    """A one-time code that stands in for the authenticator app (a lost phone).
    Only a SHA-256 digest is stored; the codes are shown once, when made."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="recovery_codes")
    digest = models.CharField(max_length=64, editable=False)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=("user", "digest"), name="players_recovery_code_unique")]

    def __str__(self) -> str:
        return f"recovery code {self.pk} of {self.user_id}"


class AddressSighting(models.Model):
    """An account signed up or logged in from an address (``players.address_hash``):
    only a keyed hash of the address (HMAC-SHA256, never the address), one row per
    account and hash, ``seen_at`` the latest time. Moderators see which other accounts
    share a hash (alt accounts, ``moderation.alts``); rows older than
    ``ADDRESS_HASH_DAYS`` are purged (``players.address_hashes_purge``)."""

    account = models.ForeignKey(User, on_delete=models.CASCADE, related_name="address_sightings")
    address_hash = models.CharField(max_length=64, db_index=True)
    first_seen_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("account", "address_hash"), name="players_address_sighting_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.account_id} from {self.address_hash[:12]}"
