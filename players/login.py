"""Password log-in, with a lock that grows: the one place that decides whether a
password may be tried and what a wrong one costs.

After ``LOGIN_FREE_FAILURES`` wrong passwords in a row an account's password
log-in is locked for ``LOGIN_LOCK_SECONDS``, doubling with each further wrong
password up to ``LOGIN_LOCK_MAX_SECONDS``; a right password resets it. While it
is locked no password is even checked, so guessing gains nothing. Only password
log-in is locked: the account's API tokens and sessions go on working, so an
attacker who guesses can slow its owner's next log-in but never lock them out of
what they already hold. The counts live on the account row, changed under its row
lock, so concurrent guesses are each counted.

Used by the token endpoint (``players.services.user_authenticate``) and, through
``LockingModelBackend``, by every other password log-in (the admin, the
browsable API's session log-in).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from core import metrics
from players.models import User


def account_for(username: str) -> User | None:
    """The account a log-in with ``username`` would try (usernames ignore case)."""
    return User.objects.filter(username__iexact=username).first()


def locked_for(account: User, *, now: datetime | None = None) -> float:
    """Seconds until ``account`` may try a password again (0: it may now)."""
    until = account.login_locked_until
    now = now or timezone.now()
    return max(0.0, (until - now).total_seconds()) if until is not None else 0.0


def lock_seconds(failures: int) -> float:
    """How long the ``failures``-th wrong password in a row locks password log-in."""
    free = settings.LOGIN_FREE_FAILURES
    if failures < free:
        return 0.0
    return float(min(settings.LOGIN_LOCK_MAX_SECONDS, settings.LOGIN_LOCK_SECONDS * 2 ** (failures - free)))


def record_failure(account: User) -> float:
    """Count a wrong password; returns the lock it sets (0: none yet)."""
    with transaction.atomic():
        row = User.objects.select_for_update().only("failed_logins", "login_locked_until").get(pk=account.pk)
        row.failed_logins += 1
        lock = lock_seconds(row.failed_logins)
        row.login_locked_until = timezone.now() + timedelta(seconds=lock) if lock else None
        row.save(update_fields=["failed_logins", "login_locked_until"])
    metrics.LOGIN_FAILURES.inc()
    if lock:
        metrics.LOGIN_LOCKS.inc()
    return lock


def record_success(account: User) -> None:
    if account.failed_logins or account.login_locked_until:
        User.objects.filter(pk=account.pk).update(failed_logins=0, login_locked_until=None)


class LockingModelBackend(ModelBackend):
    """Django's username/password backend, under the log-in lock."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(User.USERNAME_FIELD)
        account = account_for(username) if username else None
        if account is not None and locked_for(account):
            raise PermissionDenied("password log-in is locked")  # stops authenticate(): no password is checked
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if account is not None:
            if user is None:
                record_failure(account)
            else:
                record_success(account)
        return user
