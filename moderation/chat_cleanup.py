"""The chat's clean-up by moderators, beside ``moderation.services``: removing an
account's messages (in one game, or of the last hours; also offered with a
suspension), restoring a removed message, approving or rejecting a message the
chat's filter held, and shadow-muting an account (docs/moderation.md, "Chat:
clean-up and filters"). Each checks ``moderation.moderate`` and is audited in the
same transaction; the chat's services wake the game streams after commit, so
readers see removals, restorations and approvals at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from chat import services as chat_services
from chat.models import ChatMessage, ChatShadowMute
from moderation.guard import audit, require_moderator, require_reason
from moderation.models import AuditAction, Report
from moderation.services import moderation_player_suspend
from players.models import User

#: The longest look-back of "the last N hours" (30 days).
MAX_HOURS = 720


def chat_remove_by_author(
    *, author: User, by: User, reason: str = "", game_id: int | None = None, hours: int | None = None
) -> list[int]:
    """Remove every message ``author`` wrote (not removed yet) in game ``game_id``,
    or in the last ``hours`` hours (in every game), or both limits at once: one
    audit entry (``chat_remove``) listing them. Answers the ids removed."""
    require_moderator(by)
    if game_id is None and not hours:
        raise ValueError("a game or a number of hours limits the removal")
    rows = ChatMessage.objects.filter(author_id=author.pk, removed_at__isnull=True)
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    if hours:
        rows = rows.filter(created_at__gte=timezone.now() - timedelta(hours=min(hours, MAX_HOURS)))
    removed: list[int] = []
    with transaction.atomic():
        for message_id in rows.order_by("id").values_list("id", flat=True):
            _, changed = chat_services.chat_message_remove(message_id=message_id, by=by)
            if changed:
                removed.append(message_id)
        if removed:
            audit(
                by=by,
                action=AuditAction.CHAT_REMOVE,
                reason=reason.strip(),
                game_id=game_id,
                player=author,
                details={"messages": removed, "game": game_id, "hours": hours, "by_author": True},
            )
    return removed


def chat_restore(*, message_id: int, by: User, reason: str = "") -> ChatMessage:
    """Undo a removal: the channel reads the text again (its streams at once). Audited once."""
    require_moderator(by)
    with transaction.atomic():
        message, changed = chat_services.chat_message_restore(message_id=message_id)
        if changed:
            audit(
                by=by,
                action=AuditAction.CHAT_RESTORE,
                reason=reason.strip(),
                game_id=message.game_id,
                player=message.author,
                details={"message": message.pk, "channel": message.channel},
            )
    return message


def chat_review(*, message_id: int, by: User, approve: bool, reason: str = "") -> ChatMessage:
    """Approve (its channel reads it, its streams at once) or reject (nobody but the
    moderators ever reads it) a message the filter held. Audited once; a message no
    longer held is left as it is."""
    require_moderator(by)
    with transaction.atomic():
        message, changed = chat_services.chat_message_review(message_id=message_id, approve=approve)
        if changed:
            audit(
                by=by,
                action=AuditAction.CHAT_APPROVE if approve else AuditAction.CHAT_REJECT,
                reason=reason.strip(),
                game_id=message.game_id,
                player=message.author,
                details={"message": message.pk, "held_reason": message.held_reason, "text": message.text},
            )
    return message


def chat_shadow_mute(*, player: User, by: User, reason: str, until: datetime | None = None) -> ChatShadowMute:
    """From now on (until ``until``, none: until lifted) the account's new messages
    are read by it alone; it is not told. Audited."""
    require_moderator(by)
    reason = require_reason(reason)
    with transaction.atomic():
        mute = ChatShadowMute.objects.create(account=player, moderator=by, reason=reason, ends_at=until)
        audit(
            by=by,
            action=AuditAction.CHAT_SHADOW_MUTE,
            reason=reason,
            player=player,
            details={"shadow_mute": mute.pk, "until": until.isoformat() if until else None},
        )
    return mute


def chat_shadow_unmute(*, player: User, by: User, reason: str = "") -> list[int]:
    """Lift the account's shadow-mutes in force (its messages written meanwhile stay
    unread by others). Audited when one was lifted; the ids lifted."""
    require_moderator(by)
    now = timezone.now()
    with transaction.atomic():
        rows = ChatShadowMute.objects.select_for_update().filter(account=player, lifted_at__isnull=True)
        lifted = sorted(rows.filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now)).values_list("pk", flat=True))
        rows.update(lifted_at=now)
        if lifted:
            audit(
                by=by,
                action=AuditAction.CHAT_SHADOW_UNMUTE,
                reason=reason.strip(),
                player=player,
                details={"shadow_mutes": lifted},
            )
    return lifted


def suspend_and_clean(
    *,
    player: User,
    by: User,
    reason: str,
    until: datetime | None = None,
    remove_hours: int = 0,
    report: Report | None = None,
) -> dict[str, Any]:
    """Suspend the account (``moderation_player_suspend``) and, with ``remove_hours``,
    remove its messages of the last that many hours, in one transaction (two audit
    entries: the suspension and the removal)."""
    with transaction.atomic():
        games = moderation_player_suspend(player=player, by=by, reason=reason, until=until, report=report)
        removed = chat_remove_by_author(author=player, by=by, reason=reason, hours=remove_hours) if remove_hours else []
    return {"games": games, "messages_removed": removed}
