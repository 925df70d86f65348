"""Resetting someone's second factor (players.second_factor): for a moderator who
lost both phone and recovery codes. Kept apart from ``moderation.services`` so the
second factor's code stays in one small place.

A reset needs another moderator (the ``moderation.moderate`` permission) or a
superuser, never the account itself, and a reason; it is audited
(``second_factor_reset``) in the same transaction. The account's admin sessions
must then set up a new second factor before any admin page answers.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext

from core.errors import ApiError, CoreCode
from moderation.guard import MODERATE_PERMISSION, require_reason
from moderation.models import AuditAction, AuditEntry
from players import second_factor
from players.models import User


def moderation_second_factor_reset(*, player: User, by: User, reason: str) -> bool:
    """Remove ``player``'s second factor and recovery codes; answers whether there
    was one. Audited whether or not there was."""
    if not (by.is_superuser or (by.is_staff and by.has_perm(MODERATE_PERMISSION))):
        raise ApiError(
            gettext("Only another moderator or a superuser may reset a second factor."),
            code=CoreCode.PERMISSION_DENIED,
        )
    if player.pk == by.pk:
        raise ApiError(
            gettext("Nobody resets their own second factor: ask another moderator or a superuser."),
            code=CoreCode.PERMISSION_DENIED,
        )
    reason = require_reason(reason)
    with transaction.atomic():
        User.objects.select_for_update().only("pk").get(pk=player.pk)
        had = second_factor.reset(user=player)
        AuditEntry.objects.create(
            moderator=by,
            action=AuditAction.SECOND_FACTOR_RESET,
            player=player,
            reason=reason,
            details={"had_second_factor": had},
        )
    return had
