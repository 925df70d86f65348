"""Read queries: an account's challenges, one challenge, and the account stream's
``challenges`` feed (``live.account_feeds``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.utils.translation import gettext

from challenges.errors import ChallengeError
from challenges.models import FINAL_STATUSES, Challenge, ChallengeInvite, ChallengeStatus, InviteStatus
from challenges.serializers import ChallengeOutput
from core.errors import CoreCode
from live.account_feeds import FeedItem
from players.models import User

FEED_EVENTS = {
    "challenge_received": "A challenge waits for your answer (sent again when another invitee accepts it).",
    "challenge_sent": "Your challenge waits for its invitees' answers.",
    "challenge_answered": "An invitee accepted; the others have not all answered yet.",
    "challenge_started": "Everyone accepted: the table started (`game`).",
    "challenge_declined": "An invitee declined: the challenge is over.",
    "challenge_expired": "Not everyone accepted in time: the challenge is over.",
    "challenge_cancelled": "Its creator (or a moderator) cancelled it.",
}
_FINAL_EVENTS = {
    ChallengeStatus.STARTED: "challenge_started",
    ChallengeStatus.DECLINED: "challenge_declined",
    ChallengeStatus.EXPIRED: "challenge_expired",
    ChallengeStatus.CANCELLED: "challenge_cancelled",
}


def _player(user: User) -> dict[str, Any]:
    return {"id": user.pk, "username": user.username, "is_bot": user.is_bot}


def challenge_output(challenge: Challenge, invites: Iterable[ChallengeInvite], viewer: User) -> dict[str, Any]:
    """A ``ChallengeOutput`` (``invites`` in seat order, their invitees loaded)."""
    invites = list(invites)
    mine = next((i for i in invites if i.invitee_id == viewer.pk), None)
    return {
        "id": challenge.pk,
        "status": challenge.status,
        "role": "sent" if challenge.creator_id == viewer.pk else "received",
        "creator": _player(challenge.creator),
        "invites": [
            {
                "player": _player(i.invitee),
                "seat": i.seat,
                "status": i.status,
                "answered_at": i.answered_at,
                "auto": i.auto,
            }
            for i in invites
        ],
        "your_invite": mine.status if mine is not None else None,
        "ruleset": challenge.ruleset,
        "rated": challenge.rated,
        "turn_time_limit": challenge.turn_time_limit,
        "bot_delay_ms": challenge.bot_delay_ms,
        "bot_strategy": challenge.bot_strategy,
        "game": challenge.game_id,
        "cancel_reason": challenge.cancel_reason,
        "expires_at": challenge.expires_at,
        "created_at": challenge.created_at,
        "updated_at": challenge.updated_at,
    }


def _invites_prefetch() -> Prefetch:
    return Prefetch("invites", queryset=ChallengeInvite.objects.select_related("invitee").order_by("seat"))


def _received(user: User) -> Any:  # a values() subquery
    return ChallengeInvite.objects.filter(invitee=user).values("challenge_id")


def challenge_list(*, user: User, role: str | None = None, status: str | None = None) -> QuerySet[Challenge]:
    """The challenges ``user`` sent (``role="sent"``), received (``"received"``) or both, newest first."""
    mine = {"sent": Q(creator=user), "received": Q(pk__in=_received(user))}
    query = mine[role] if role in mine else mine["sent"] | mine["received"]
    challenges = Challenge.objects.filter(query).select_related("creator").prefetch_related(_invites_prefetch())
    if status:
        challenges = challenges.filter(status=status)
    return challenges.order_by("-id")


def challenge_get(*, challenge_id: int, user: User) -> Challenge:
    """One challenge ``user`` sent or received (anyone else: ``not_found``)."""
    challenge = challenge_list(user=user).filter(pk=challenge_id).first()
    if challenge is None:
        raise ChallengeError(
            CoreCode.NOT_FOUND, gettext("There is no challenge %(challenge_id)s.") % {"challenge_id": challenge_id}
        )
    return challenge


def _event(challenge: Challenge, invites: Sequence[ChallengeInvite], viewer: User) -> str:
    final = _FINAL_EVENTS.get(ChallengeStatus(challenge.status))
    if final is not None:
        return final
    mine = next((i for i in invites if i.invitee_id == viewer.pk), None)
    if mine is not None and mine.status == InviteStatus.PENDING:
        return "challenge_received"
    if any(i.status != InviteStatus.PENDING for i in invites):
        return "challenge_answered"
    return "challenge_sent"


def feed_items(user: User, keys: Sequence[str], since: datetime | None) -> list[FeedItem]:
    """The ``challenges`` feed: the account's pending challenges (sent and received),
    those the stream already knows (``keys``) and those changed since ``since`` - in
    one query: the invites of those challenges, each with its challenge, creator and
    invitee (the challenges found by the creator and invitee indexes, a union of the two)."""
    current = Q(status=ChallengeStatus.PENDING)
    known = [int(key) for key in keys if key.isdigit()]
    if known:
        current |= Q(pk__in=known)
    if since is not None:
        current |= Q(updated_at__gte=since)
    # The union of what the account sent (by creator) and received (by invitee): an OR of
    # the two read every pending challenge of the site before filtering by account
    # (docs/performance.md, "Hot paths on a large database"). No ORDER BY inside the union:
    # SQLite, the embedded default, refuses one in a compound statement's parts.
    sent = Challenge.objects.filter(creator=user).filter(current).order_by().values("pk")
    received = Challenge.objects.filter(pk__in=_received(user)).filter(current).order_by().values("pk")
    rows = (
        ChallengeInvite.objects.filter(challenge__in=sent.union(received))
        .select_related("challenge__creator", "invitee")
        .order_by("challenge_id", "seat")
    )
    grouped: dict[int, tuple[Challenge, list[ChallengeInvite]]] = {}
    for invite in rows:
        grouped.setdefault(invite.challenge_id, (invite.challenge, []))[1].append(invite)
    items = []
    for challenge, invites in grouped.values():
        micros = int(challenge.updated_at.timestamp() * 1_000_000)
        items.append(
            FeedItem(
                key=str(challenge.pk),
                version=f"{challenge.status}-{micros}",
                event=_event(challenge, invites, user),
                data=dict(ChallengeOutput(challenge_output(challenge, invites, user)).data),
                done=challenge.status in FINAL_STATUSES,
            )
        )
    return items
