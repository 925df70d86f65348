"""Lifting one sanction (a mute or a suspension) from the account's page, before
its end. A suspended account is reinstated when no suspension is left in force.
Audited as ``player_unmute`` / ``player_unsuspend`` naming the sanction; the
player's ``/me/`` and refusals stop showing it at once (it is no longer in force).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import CoreCode
from live import account_feeds
from moderation.errors import ModerationError
from moderation.guard import audit, require_moderator, user_locked
from moderation.models import AuditAction, Sanction, SanctionKind
from players import services as player_services
from players.models import User


def sanction_lift(*, sanction_id: int, by: User, reason: str = "") -> Sanction:
    """Lift the sanction now (a lifted or ended one: refused, ``not_found``)."""
    require_moderator(by)
    with transaction.atomic():
        sanction = Sanction.objects.select_for_update().filter(pk=sanction_id, lifted_at__isnull=True).first()
        if sanction is None or (sanction.ends_at is not None and sanction.ends_at <= timezone.now()):
            raise ModerationError(
                CoreCode.NOT_FOUND,
                gettext("There is no sanction %(sanction_id)s in force.") % {"sanction_id": sanction_id},
            )
        sanction.lifted_at, sanction.lifted_by = timezone.now(), by
        sanction.save(update_fields=["lifted_at", "lifted_by"])
        player: User = user_locked(sanction.player_id)
        if sanction.kind == SanctionKind.SUSPENSION:
            still = Sanction.objects.filter(player=player, kind=SanctionKind.SUSPENSION, lifted_at__isnull=True)
            if not still.exists() and not player.is_active:
                player_services.user_set_active(user=player, is_active=True)
            action = AuditAction.PLAYER_UNSUSPEND
        else:
            action = AuditAction.PLAYER_UNMUTE
        audit(by=by, action=action, reason=reason.strip(), player=player, details={"sanctions": [sanction.pk]})
        account_feeds.notify_accounts([player.pk])
    return sanction
