"""DRF throttles on ``core.limits``: atomic counters, keyed on the client address
that ``core.middleware.ClientAddress`` settled (never on a header a client sends).

DRF's own throttles read the request history, append and write it back: under a
burst, concurrent requests all read the same history and all get through. These
count with one atomic increment each. Rates come from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` by scope, read on every request.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from core.limits import Limit


def client_address(request: Request) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


class AtomicRateThrottle(BaseThrottle):
    scope = ""
    store = "cache"

    def __init__(self) -> None:
        self._wait: float | None = None

    def get_key(self, request: Request, view: Any) -> str | None:
        """Whom to count this request against; None: this throttle does not apply."""
        raise NotImplementedError

    def get_scope(self, view: Any) -> str:
        return self.scope

    def allow_request(self, request: Request, view: Any) -> bool:
        key = self.get_key(request, view)
        scope = self.get_scope(view)
        if key is None or not scope:
            return True
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope)
        if rate is None:
            return True
        self._wait = Limit(scope, str(rate), store=self.store).hit(key)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


class AnonRateThrottle(AtomicRateThrottle):
    """Requests without credentials, per address (``THROTTLE_ANON``)."""

    scope = "anon"

    def get_key(self, request: Request, view: Any) -> str | None:
        return None if request.user.is_authenticated else client_address(request)


class UserRateThrottle(AtomicRateThrottle):
    """Requests with credentials, per account (``THROTTLE_USER``)."""

    scope = "user"

    def get_key(self, request: Request, view: Any) -> str | None:
        return str(request.user.pk) if request.user.is_authenticated else None


class ScopedRateThrottle(AtomicRateThrottle):
    """The view's ``throttle_scope`` (e.g. ``moves``), per account or else per address."""

    def get_scope(self, view: Any) -> str:
        return getattr(view, "throttle_scope", "")

    def get_key(self, request: Request, view: Any) -> str | None:
        return str(request.user.pk) if request.user.is_authenticated else client_address(request)


class AddressRateThrottle(AtomicRateThrottle):
    """The view's ``throttle_scope``, per address, in the database: for the limits
    that guard accounts (registration, password log-in), which must hold with
    Redis away and across every web process."""

    store = "database"

    def get_scope(self, view: Any) -> str:
        return getattr(view, "throttle_scope", "")

    def get_key(self, request: Request, view: Any) -> str | None:
        return client_address(request)
