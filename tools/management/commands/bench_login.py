"""``manage.py bench_login [--logins 40]``: what a password log-in costs with the
password hasher before (Django's default, PBKDF2-SHA256) and after (Argon2id, the
first of ``PASSWORD_HASHERS``), side by side in one run, alternating.

For each hasher a throwaway account is made with its hash (deleted afterwards), then
logged in ``--logins`` times through ``django.contrib.auth.authenticate`` - the path
of every password log-in (the token endpoint, the admin, the session log-in: the
log-in lock's backend, its row reads, the hash). Printed per hasher: the median and
90th percentile wall time and the process CPU time of one log-in, and the hash's own
time (``check_password`` alone); then the ratio after/before. "Before" runs with
Django's default ``PASSWORD_HASHERS`` (so its PBKDF2 hash is current and never
re-hashed), "after" with the project's."""

from __future__ import annotations

import statistics
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.hashers import check_password, get_hasher, make_password
from django.core.management.base import BaseCommand
from django.db import transaction
from django.test.utils import override_settings

from players.models import User

PASSWORD = "a benchmark passphrase 42"
HASHERS = (("before", "pbkdf2_sha256"), ("after", "argon2"))
# PASSWORD_HASHERS as they were (Django's default list) and as they are now.
BEFORE = [
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]


class Rollback(Exception):
    """Undoes the throwaway accounts."""


class Command(BaseCommand):
    help = "Time a password log-in with PBKDF2 (before) and Argon2 (after), alternating, in one run."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--logins", type=int, default=40, help="Log-ins per hasher (default 40).")

    def handle(self, *args: Any, **options: Any) -> None:
        logins = options["logins"]
        wall: dict[str, list[float]] = {label: [] for label, _ in HASHERS}
        cpu: dict[str, list[float]] = {label: [] for label, _ in HASHERS}
        hash_only: dict[str, list[float]] = {label: [] for label, _ in HASHERS}
        try:
            with transaction.atomic():
                accounts = {}
                for label, algorithm in HASHERS:
                    username = f"bench-login-{label}"
                    User.objects.filter(username=username).delete()
                    encoded = make_password(PASSWORD, hasher=algorithm)
                    accounts[label] = (username, encoded)
                    User.objects.create(username=username, password=encoded)
                for _ in range(logins):
                    for label, _algorithm in HASHERS:
                        username, encoded = accounts[label]
                        hashers = BEFORE if label == "before" else settings.PASSWORD_HASHERS
                        with override_settings(PASSWORD_HASHERS=hashers):
                            started, started_cpu = time.perf_counter(), time.process_time()
                            user = authenticate(username=username, password=PASSWORD)
                            wall[label].append(time.perf_counter() - started)
                            cpu[label].append(time.process_time() - started_cpu)
                        assert user is not None, f"{username} did not log in"
                        started = time.perf_counter()
                        assert check_password(PASSWORD, encoded, setter=None)
                        hash_only[label].append(time.perf_counter() - started)
                raise Rollback
        except Rollback:
            pass
        write = self.stdout.write
        write(f"password log-in, {logins} each, alternating (ms; p50 / p90)")
        write(f"{'':8} {'hasher':36} {'log-in wall':>15} {'log-in CPU':>15} {'hash alone':>15}")
        for label, algorithm in HASHERS:
            write(
                f"{label:8} {_describe(algorithm):36} {_pair(wall[label]):>15} {_pair(cpu[label]):>15} "
                f"{_pair(hash_only[label]):>15}"
            )
        ratio = statistics.median(wall["after"]) / statistics.median(wall["before"])
        write(f"after / before (median wall): {ratio:.2f}")


def _describe(algorithm: str) -> str:
    hasher: Any = get_hasher(algorithm)
    if algorithm == "argon2":
        return f"argon2id t={hasher.time_cost} m={hasher.memory_cost} KiB p={hasher.parallelism}"
    return f"{algorithm} {hasher.iterations} iterations"


def _pair(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"{statistics.median(ordered) * 1000:.1f} / {p90 * 1000:.1f}"
