"""Password log-in, with locks that grow: the one place that decides whether a
password may be tried and what a wrong one costs (docs/security-limits.md).

Two locks, so that a guesser cannot lock an account's owner out:

* The quick lock, per account and address (an IPv4 address, or an IPv6 /64
  network, which one client usually holds whole): after ``LOGIN_FREE_FAILURES``
  wrong passwords in a row from one address, password log-in to the account from
  that address is locked for ``LOGIN_LOCK_SECONDS``, doubling with each further
  wrong one up to ``LOGIN_LOCK_MAX_SECONDS``. A right password from the address
  resets it and makes the address *known* to the account.
* The account-wide ceiling, for a guesser spread over many addresses: wrong
  passwords from addresses that are not known to the account are counted on the
  account too; after ``LOGIN_ACCOUNT_FREE_FAILURES`` of them every such address is
  locked out for ``LOGIN_ACCOUNT_LOCK_SECONDS``, doubling up to
  ``LOGIN_LOCK_MAX_SECONDS``. Known addresses are not: the owner goes on logging in
  from where they did before. A right password from an address that is not known
  (possible only while the ceiling is open) resets the account-wide count.

With a second factor (``players.second_factor``) a wrong code counts as a wrong
password, and only a right code (not a right password alone) resets the counts.

While a lock holds no password is even checked, so guessing gains nothing. Only
password log-in is locked: the account's API tokens and sessions go on working.
The counts live in the database (the account row and ``LoginAddress``, which keeps
a keyed hash of the address, ``players.address_hash``, never the address), changed
under the account's row lock, so concurrent guesses are each counted.

Used by the token endpoint (``players.services.user_authenticate``) and, through
``LockingModelBackend``, by every other password log-in (the admin's, sessions').
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from core import metrics
from players.address_hash import address_hash, address_key
from players.models import LoginAddress, SecondFactor, User

__all__ = ["account_for", "address_key", "locked_for", "record_failure", "record_success"]


def account_for(username: str) -> User | None:
    """The account a log-in with ``username`` would try (usernames ignore case)."""
    return User.objects.filter(username__iexact=username).first()


def _left(until: datetime | None, now: datetime) -> float:
    return max(0.0, (until - now).total_seconds()) if until is not None else 0.0


def locked_for(account: User, *, address: str | None = None, now: datetime | None = None) -> float:
    """Seconds until a password for ``account`` may be tried from ``address`` (0: now)."""
    now = now or timezone.now()
    row = LoginAddress.objects.filter(account=account, address=address_hash(address)).first()
    quick = _left(row.locked_until, now) if row is not None else 0.0
    if row is not None and row.known:
        return quick
    return max(quick, _left(account.login_locked_until, now))


def _growing(failures: int, free: int, first: int) -> float:
    if failures < free:
        return 0.0
    return float(min(settings.LOGIN_LOCK_MAX_SECONDS, first * 2 ** (failures - free)))


def lock_seconds(failures: int) -> float:
    """How long the ``failures``-th wrong password in a row from one address locks it."""
    return _growing(failures, settings.LOGIN_FREE_FAILURES, settings.LOGIN_LOCK_SECONDS)


def account_lock_seconds(failures: int) -> float:
    """How long the ``failures``-th wrong password from unknown addresses locks them all."""
    return _growing(failures, settings.LOGIN_ACCOUNT_FREE_FAILURES, settings.LOGIN_ACCOUNT_LOCK_SECONDS)


def record_failure(account: User, *, address: str | None = None) -> float:
    """Count a wrong password from ``address``; returns the lock it sets there (0: none)."""
    now = timezone.now()
    with transaction.atomic():
        user = User.objects.select_for_update().only("failed_logins", "login_locked_until").get(pk=account.pk)
        row, _ = LoginAddress.objects.select_for_update().get_or_create(account=user, address=address_hash(address))
        row.failures += 1
        lock = lock_seconds(row.failures)
        row.locked_until = now + timedelta(seconds=lock) if lock else None
        row.updated_at = now
        row.save(update_fields=["failures", "locked_until", "updated_at"])
        if not row.known:
            user.failed_logins += 1
            ceiling = account_lock_seconds(user.failed_logins)
            user.login_locked_until = now + timedelta(seconds=ceiling) if ceiling else None
            user.save(update_fields=["failed_logins", "login_locked_until"])
            lock = max(lock, ceiling)
    metrics.LOGIN_FAILURES.inc()
    if lock:
        metrics.LOGIN_LOCKS.inc()
    return lock


def record_success(account: User, *, address: str | None = None) -> None:
    """A right password from ``address``: its count reset, the address known; the
    account-wide count reset too when the address was not known before."""
    key = address_hash(address)
    row = LoginAddress.objects.filter(account=account, address=key).first()
    if row is None or not row.known or row.failures or row.locked_until:
        LoginAddress.objects.update_or_create(
            account=account,
            address=key,
            defaults={"failures": 0, "locked_until": None, "known": True, "updated_at": timezone.now()},
        )
    if (row is None or not row.known) and (account.failed_logins or account.login_locked_until):
        User.objects.filter(pk=account.pk).update(failed_logins=0, login_locked_until=None)


class LockingModelBackend(ModelBackend):
    """Django's username/password backend, under the log-in locks. The address is the
    request's (``REMOTE_ADDR``, as ``core.middleware.ClientAddress`` settled it), or
    ``address=`` given by a caller without a request (``user_authenticate``)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        address = kwargs.pop("address", None)
        if address is None and request is not None:
            address = request.META.get("REMOTE_ADDR")
        if username is None:
            username = kwargs.get(User.USERNAME_FIELD)
        account = account_for(username) if username else None
        if account is not None and locked_for(account, address=address):
            raise PermissionDenied("password log-in is locked")  # stops authenticate(): no password is checked
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if account is not None:
            if user is None:
                record_failure(account, address=address)
            elif not SecondFactor.objects.filter(user=account, confirmed_at__isnull=False).exists():
                record_success(account, address=address)
            # With a second factor the log-in is complete, and the count reset, only
            # with its code (players.second_factor.verify).
        return user
