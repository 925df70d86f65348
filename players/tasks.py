"""Periodic upkeep of the accounts, run by beat through the workers (also in ``manage.py serve``)."""

from __future__ import annotations

from celery import shared_task

from players import address_hash


@shared_task(name="players.address_hashes_purge", ignore_result=True)
def address_hashes_purge() -> int:
    """Remove the address hashes older than ``ADDRESS_HASH_DAYS``; how many."""
    return address_hash.purge()
