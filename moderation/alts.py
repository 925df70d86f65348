"""Alt accounts: which other accounts signed up or logged in from one of an account's
addresses within the last ``ADDRESS_HASH_DAYS`` (``players.address_hash`` keeps only
keyed hashes). For moderators only: the admin's account page shows it; no API, no
player, and not the data download (docs/security.md, "Alt accounts")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from players.address_hash import retention
from players.models import AddressSighting, User


@dataclass(frozen=True)
class SharedAccount:
    account: User
    addresses: int  # how many of the account's address hashes it shares
    first_seen_at: datetime  # its first sighting at a shared address (in the kept window)
    last_seen_at: datetime  # its latest


def shared_accounts(*, user: Any, now: datetime | None = None) -> list[SharedAccount]:
    """Other accounts seen at any address ``user`` was seen at, both within the kept
    window; most shared addresses first, then the latest seen."""
    since = (now or timezone.now()) - retention()
    mine = AddressSighting.objects.filter(account_id=user.pk, seen_at__gte=since).values("address_hash")
    counts: dict[int, tuple[int, datetime, datetime]] = {}
    for sighting in AddressSighting.objects.filter(address_hash__in=mine, seen_at__gte=since).exclude(
        account_id=user.pk
    ):
        number, first, last = counts.get(sighting.account_id, (0, sighting.first_seen_at, sighting.seen_at))
        counts[sighting.account_id] = (
            number + 1,
            min(first, sighting.first_seen_at),
            max(last, sighting.seen_at),
        )
    accounts = User.objects.in_bulk(list(counts))
    found = [
        SharedAccount(account=accounts[pk], addresses=number, first_seen_at=first, last_seen_at=last)
        for pk, (number, first, last) in counts.items()
        if pk in accounts
    ]
    return sorted(found, key=lambda s: (-s.addresses, -s.last_seen_at.timestamp(), s.account.username))
