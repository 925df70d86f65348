"""Saves of accounts and tokens, wherever they come from (a service, the admin, a
shell): the account's credentials may have changed, so ``credentials_changed``
(token caches forget it, its streams re-check). A new account or token changes
nobody's credentials.

Every log-in through Django's ``login()`` (the API's session log-in, the admin's)
keeps a hash of the client's address (``players.address_hash``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from players import address_hash
from players.models import ApiToken, User
from players.services import credentials_changed


@receiver(post_save, sender=User, dispatch_uid="players.user_saved")
@receiver(post_delete, sender=User, dispatch_uid="players.user_deleted")
def user_changed(sender: Any, instance: User, created: bool = False, **kwargs: Any) -> None:
    if not created:
        credentials_changed(instance.pk)


@receiver(post_save, sender=ApiToken, dispatch_uid="players.token_saved")
@receiver(post_delete, sender=ApiToken, dispatch_uid="players.token_deleted")
def token_changed(sender: Any, instance: ApiToken, created: bool = False, **kwargs: Any) -> None:
    if not created:
        credentials_changed(instance.user_id)


@receiver(user_logged_in, dispatch_uid="players.logged_in_address")
def logged_in(sender: Any, request: Any, user: User, **kwargs: Any) -> None:
    if request is not None:
        address_hash.remember(user, request.META.get("REMOTE_ADDR"))
