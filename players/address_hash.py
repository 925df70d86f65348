"""What the server keeps of the addresses accounts sign up and log in from, for
moderators looking for alt accounts (``moderation.alts``; docs/security.md, "Alt
accounts").

Only a keyed hash: HMAC-SHA256 of the address as the lock counts it
(``players.login.address_key``: an IPv4 address, or an IPv6 /64 network), keyed with
``ADDRESS_HASH_KEY`` or, when that is empty, a key derived from ``SECRET_KEY``. The
address is the client's as ``core.middleware.ClientAddress`` settled it
(``REMOTE_ADDR``: ``X-Forwarded-For`` only behind ``NUM_PROXIES`` proxies), the same
the throttles and the log-in lock use. Without the key a hash cannot be turned back
into the address (nor checked against a guessed one); with it, two accounts from one
address have one hash. Rows are kept ``ADDRESS_HASH_DAYS`` (30) after the account was
last seen there; ``purge`` (beat's ``players.address_hashes_purge``) removes older ones.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import salted_hmac

from players.models import AddressSighting


def _key() -> bytes:
    if settings.ADDRESS_HASH_KEY:
        return str(settings.ADDRESS_HASH_KEY).encode()
    # A key of its own, derived from SECRET_KEY (the hash of a purpose string).
    return salted_hmac("players.address_hash", "key", algorithm="sha256").digest()


def address_key(address: str | None) -> str:
    """What is counted as one address: an IPv4 address, an IPv6 address's /64 network
    (one client's, as a rule), or ``""`` when there is no address (a log-in made by
    the server itself)."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return ""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def hash_key(key: str) -> str:
    """The hex HMAC-SHA256 of an ``address_key`` (``""`` stays ``""``)."""
    return hmac.new(_key(), key.encode(), hashlib.sha256).hexdigest() if key else ""


def address_hash(address: str | None) -> str:
    """The hex HMAC-SHA256 of ``address`` (as ``address_key`` counts it), or ``""``
    when there is no usable address (a log-in made by the server itself). The log-in
    lock keeps its counts under it too (``players.login``)."""
    return hash_key(address_key(address))


def retention() -> timedelta:
    return timedelta(days=settings.ADDRESS_HASH_DAYS)


def remember(user: Any, address: str | None, *, now: datetime | None = None) -> None:
    """``user`` signed up or logged in from ``address``: keep (or refresh) its hash."""
    digest = address_hash(address)
    if not digest or user is None or user.pk is None:
        return
    now = now or timezone.now()
    updated = AddressSighting.objects.filter(account_id=user.pk, address_hash=digest).update(seen_at=now)
    if not updated:
        AddressSighting.objects.bulk_create(
            [AddressSighting(account_id=user.pk, address_hash=digest, first_seen_at=now, seen_at=now)],
            ignore_conflicts=True,  # the same log-in twice at once: one row
        )


def purge(*, now: datetime | None = None) -> int:
    """Remove the hashes not seen for ``ADDRESS_HASH_DAYS``; how many."""
    cutoff = (now or timezone.now()) - retention()
    deleted, _ = AddressSighting.objects.filter(seen_at__lt=cutoff).delete()
    return deleted
