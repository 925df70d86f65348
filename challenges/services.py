"""Every change of a challenge: create (with the bot accounts' automatic answers),
accept, decline, cancel, expire; and a bot account's challenge policy.

Each change locks the challenge row (``select_for_update``) and re-reads it, so
of two answers, a cancel and the expiry arriving together exactly one decides
the outcome; the invites are only written under that lock. When the last
invitee accepts, the table is created, filled and started through
``games.services`` in the same transaction, and the challenge points at it. The
accounts concerned are woken on their stream (``live.account_feeds``) after
the commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext

from bots.strategies import STRATEGIES
from challenges.errors import ChallengeCode, ChallengeError
from challenges.models import (
    Challenge,
    ChallengeInvite,
    ChallengePolicy,
    ChallengeStatus,
    InviteStatus,
)
from core.errors import CoreCode
from games import services as game_services
from games.engine import Ruleset
from games.errors import GameCode, GameError, engine_refusals
from games.models import GameStatus, Seat
from ladder import selectors as ladder_selectors
from live import account_feeds
from players.models import User

#: How many accounts one challenge may invite (a table seats at most 14).
MAX_INVITEES = 13
#: Games at once a ladder level account (a server bot) accepts by challenge: the
#: server plays them all, so the limit is only against a flood.
LEVEL_MAX_GAMES = 200


def _concerned(challenge: Challenge, invites: Sequence[ChallengeInvite]) -> list[int]:
    return [challenge.creator_id, *(invite.invitee_id for invite in invites)]


def _touch(challenge: Challenge, invites: Sequence[ChallengeInvite], **fields: Any) -> None:
    """Save ``fields`` and a new ``updated_at`` (the feed's version), and wake everyone concerned."""
    for name, value in fields.items():
        setattr(challenge, name, value)
    challenge.updated_at = timezone.now()
    challenge.save(update_fields=[*fields, "updated_at"])
    account_feeds.notify_accounts(_concerned(challenge, invites))


# -- create ----------------------------------------------------------------------------


def _invitees(creator: User, usernames: Sequence[str]) -> list[User]:
    """The accounts named, in the order named; refusals for yourself, twice, unknown, suspended."""
    if not 1 <= len(usernames) <= MAX_INVITEES:
        raise ChallengeError(
            CoreCode.VALIDATION_ERROR,
            gettext("Invite 1 to %(max_invitees)s accounts.") % {"max_invitees": MAX_INVITEES},
            errors={"invitees": [gettext("Invite 1 to %(max_invitees)s accounts.") % {"max_invitees": MAX_INVITEES}]},
        )
    seen: set[str] = set()
    for name in usernames:
        if name.lower() == creator.username.lower():
            raise ChallengeError(
                ChallengeCode.CHALLENGE_YOURSELF, gettext("You cannot invite yourself."), username=name
            )
        if name.lower() in seen:
            raise ChallengeError(
                ChallengeCode.DUPLICATE_INVITEE, gettext("%(name)s is invited twice.") % {"name": name}, username=name
            )
        seen.add(name.lower())
    found: dict[str, User] = {
        u.username.lower(): u for u in User.objects.annotate(lname=Lower("username")).filter(lname__in=seen)
    }
    unknown = [name for name in usernames if name.lower() not in found]
    if unknown:
        raise ChallengeError(
            CoreCode.NOT_FOUND,
            gettext("There is no account '%(username)s'.") % {"username": unknown[0]},
            usernames=unknown,
        )
    accounts = [found[name.lower()] for name in usernames]
    for account in accounts:
        if not account.is_active:
            raise ChallengeError(
                ChallengeCode.ACCOUNT_SUSPENDED,
                gettext("%(username)s is suspended: it cannot be challenged.") % {"username": account.username},
                username=account.username,
            )
    return accounts


def challenge_create(
    *,
    creator: User,
    invitees: Sequence[str],
    ruleset: dict[str, Any] | None = None,
    rated: bool = False,
    turn_time_limit: int | None = None,
    bot_delay_ms: int = 0,
    bot_strategy: str = "greedy",
    expires_in: int | None = None,
) -> Challenge:
    """Invite the accounts named ``invitees`` (usernames, any case) to a table with
    these settings; the creator takes seat 0 and invitee n seat n. Bot accounts
    whose policy accepts it answer at once; if that is everyone, the table starts
    at once (the challenge comes back ``started``)."""
    accounts = _invitees(creator, invitees)
    players = 1 + len(accounts)
    rules = dict(ruleset or {})
    if rules.setdefault("players", players) != players:
        raise ChallengeError(
            ChallengeCode.PLAYERS_MISMATCH,
            gettext("ruleset.players is %(asked)s but the table seats you and %(invitees)s invitee(s): %(seats)s.")
            % {"asked": rules["players"], "invitees": len(accounts), "seats": players},
            errors={"ruleset.players": [gettext("Must be %(players)s (or left out).") % {"players": players}]},
        )
    with engine_refusals():  # invalid_ruleset -> 400
        full_rules = Ruleset.from_dict(rules).to_dict()
    if bot_strategy not in STRATEGIES:
        raise GameError(
            GameCode.UNKNOWN_STRATEGY,
            gettext("There is no bot strategy '%(bot_strategy)s' (see GET /bots/).") % {"bot_strategy": bot_strategy},
        )
    now = timezone.now()
    seconds = settings.CHALLENGE_EXPIRES_SECONDS if expires_in is None else expires_in
    with transaction.atomic():
        challenge = Challenge.objects.create(
            creator=creator,
            players=players,
            ruleset=full_rules,
            rated=rated,
            turn_time_limit=turn_time_limit,
            bot_delay_ms=bot_delay_ms,
            bot_strategy=bot_strategy,
            expires_at=now + timedelta(seconds=seconds),
            created_at=now,
            updated_at=now,
        )
        invites = ChallengeInvite.objects.bulk_create(
            ChallengeInvite(challenge=challenge, invitee=account, seat=seat)
            for seat, account in enumerate(accounts, start=1)
        )
        for invite, account in zip(invites, accounts, strict=True):
            invite.invitee = account
        _auto_answer(challenge, invites, now)
        account_feeds.notify_accounts(_concerned(challenge, invites))
    return challenge


def _auto_answer(challenge: Challenge, invites: list[ChallengeInvite], now: datetime) -> None:
    """The bot accounts' policies answer: accept within their limits; a server-played
    account (no program of its own to answer later) declines what it may not accept."""
    bots = sorted(invite.invitee_id for invite in invites if invite.invitee.is_bot)
    if not bots:
        return
    _level_policies_ensure(bots)
    # Locked in account order: two challenges to one bot count its games one after the other.
    policies = {
        p.user_id: p for p in ChallengePolicy.objects.select_for_update().filter(user_id__in=bots).order_by("user_id")
    }
    for invite in invites:
        policy = policies.get(invite.invitee_id)
        if policy is None:
            continue
        if policy.auto_accept and policy_allows(policy=policy, challenge=challenge):
            invite.status, invite.answered_at, invite.auto = InviteStatus.ACCEPTED, now, True
            invite.save(update_fields=["status", "answered_at", "auto"])
        elif policy.server_strategy:
            invite.status, invite.answered_at, invite.auto = InviteStatus.DECLINED, now, True
            invite.save(update_fields=["status", "answered_at", "auto"])
            _touch(challenge, invites, status=ChallengeStatus.DECLINED)
            return
    if all(invite.status == InviteStatus.ACCEPTED for invite in invites):
        _start(challenge, invites)


def _level_policies_ensure(user_ids: Sequence[int]) -> None:
    """The bot ladder's level accounts (``ladder-greedy`` ...) are server bots: challenged,
    they accept (rated or casual, any table size) and the server plays their seat with
    their level. Their policy is made the first time one is challenged."""
    levels = ladder_selectors.levels_of(user_ids=user_ids)
    missing = set(levels) - set(
        ChallengePolicy.objects.filter(user_id__in=list(levels)).values_list("user_id", flat=True)
    )
    ChallengePolicy.objects.bulk_create(
        [
            ChallengePolicy(
                user_id=user_id,
                auto_accept=True,
                max_players=14,
                max_games=LEVEL_MAX_GAMES,
                server_strategy=levels[user_id],
            )
            for user_id in sorted(missing)
        ],
        ignore_conflicts=True,  # made by a challenge at the same moment
    )


def busy_games(user_id: int) -> int:
    """How many games the account is committed to: open or running tables it sits at,
    and challenges it accepted that have not started."""
    seated = Seat.objects.filter(player_id=user_id, game__status__in=(GameStatus.OPEN, GameStatus.RUNNING)).count()
    waiting = ChallengeInvite.objects.filter(
        invitee_id=user_id, status=InviteStatus.ACCEPTED, challenge__status=ChallengeStatus.PENDING
    ).count()
    return seated + waiting


def policy_allows(*, policy: ChallengePolicy, challenge: Challenge) -> bool:
    """Does ``policy`` accept ``challenge``: rated or casual, player count, games at once."""
    if not (policy.rated if challenge.rated else policy.casual):
        return False
    if not policy.min_players <= challenge.players <= policy.max_players:
        return False
    return busy_games(policy.user_id) < policy.max_games


def _start(challenge: Challenge, invites: Sequence[ChallengeInvite]) -> None:
    """Everyone accepted: create the table, seat everyone, start it (inside the caller's transaction)."""
    creator = challenge.creator
    server_played = {
        p.user_id: p.server_strategy
        for p in ChallengePolicy.objects.filter(user_id__in=[i.invitee_id for i in invites]).exclude(server_strategy="")
    }
    game = game_services.game_create(
        creator=creator,
        ruleset=challenge.ruleset,
        turn_time_limit=challenge.turn_time_limit,
        bot_delay_ms=challenge.bot_delay_ms,
        bot_strategy=challenge.bot_strategy,
        sit=True,
        rated=challenge.rated,
    )
    for invite in sorted(invites, key=lambda i: i.seat):
        strategy = server_played.get(invite.invitee_id)
        if strategy and invite.invitee.is_bot:
            game_services.game_add_bot(
                game_id=game.pk, by=creator, strategy=strategy, seat=invite.seat, account=invite.invitee
            )
        else:
            game_services.game_join(game_id=game.pk, player=invite.invitee, seat=invite.seat)
    game_services.game_start(game_id=game.pk, by=creator)
    _touch(challenge, invites, status=ChallengeStatus.STARTED, game=game)


# -- answer, cancel, expire ------------------------------------------------------------


def _locked(challenge_id: int) -> tuple[Challenge, list[ChallengeInvite]]:
    challenge = Challenge.objects.select_for_update().select_related("creator").filter(pk=challenge_id).first()
    if challenge is None:
        raise ChallengeError(
            CoreCode.NOT_FOUND, gettext("There is no challenge %(challenge_id)s.") % {"challenge_id": challenge_id}
        )
    invites = list(ChallengeInvite.objects.filter(challenge=challenge).select_related("invitee").order_by("seat"))
    return challenge, invites


def _not_found_unless_concerned(challenge: Challenge, invites: Sequence[ChallengeInvite], user: User) -> None:
    if user.pk not in _concerned(challenge, invites):
        raise ChallengeError(CoreCode.NOT_FOUND, gettext("There is no challenge %(pk)s.") % {"pk": challenge.pk})


def _expire_if_due(challenge: Challenge, invites: Sequence[ChallengeInvite], now: datetime | None = None) -> bool:
    if challenge.status == ChallengeStatus.PENDING and challenge.expires_at <= (now or timezone.now()):
        _touch(challenge, invites, status=ChallengeStatus.EXPIRED)
        return True
    return False


def _require_pending(challenge: Challenge) -> None:
    if challenge.status == ChallengeStatus.STARTED:
        raise ChallengeError(
            ChallengeCode.CHALLENGE_STARTED,
            gettext("Everyone accepted: the table has started."),
            game_id=challenge.game_id,
        )
    if challenge.status == ChallengeStatus.EXPIRED:
        raise ChallengeError(ChallengeCode.CHALLENGE_EXPIRED, gettext("The challenge expired."))
    if challenge.status != ChallengeStatus.PENDING:
        raise ChallengeError(
            ChallengeCode.CHALLENGE_CLOSED,
            gettext("The challenge was %(status)s.") % {"status": challenge.status},
            challenge_status=challenge.status,
        )


def _answer(*, challenge_id: int, player: User, accept: bool) -> Challenge:
    expired = False
    with transaction.atomic():
        challenge, invites = _locked(challenge_id)
        _not_found_unless_concerned(challenge, invites, player)
        invite = next((i for i in invites if i.invitee_id == player.pk), None)
        if invite is None:
            raise ChallengeError(
                ChallengeCode.NOT_INVITED, gettext("You sent this challenge: only its invitees answer it.")
            )
        expired = _expire_if_due(challenge, invites)
        if not expired:
            _require_pending(challenge)
            if invite.status != InviteStatus.PENDING:
                raise ChallengeError(
                    ChallengeCode.ALREADY_ANSWERED,
                    gettext("You have already %(status)s it.") % {"status": invite.status},
                    answer=invite.status,
                )
            invite.status = InviteStatus.ACCEPTED if accept else InviteStatus.DECLINED
            invite.answered_at = timezone.now()
            invite.save(update_fields=["status", "answered_at"])
            if not accept:
                _touch(challenge, invites, status=ChallengeStatus.DECLINED)
            elif all(i.status == InviteStatus.ACCEPTED for i in invites):
                _start(challenge, invites)
            else:
                _touch(challenge, invites)
    if expired:  # committed: the challenge stays expired
        raise ChallengeError(
            ChallengeCode.CHALLENGE_EXPIRED, gettext("The challenge expired before everyone had accepted.")
        )
    return challenge


def challenge_accept(*, challenge_id: int, player: User) -> Challenge:
    """``player`` accepts; the last acceptance starts the table (``game`` is then set)."""
    return _answer(challenge_id=challenge_id, player=player, accept=True)


def challenge_decline(*, challenge_id: int, player: User) -> Challenge:
    """``player`` declines: the challenge is over (``declined``)."""
    return _answer(challenge_id=challenge_id, player=player, accept=False)


def challenge_cancel(*, challenge_id: int, by: User, moderator: bool = False, reason: str = "") -> Challenge:
    """The creator (or, with ``moderator``, a moderator) calls a pending challenge off."""
    expired = False
    with transaction.atomic():
        challenge, invites = _locked(challenge_id)
        if not moderator:
            _not_found_unless_concerned(challenge, invites, by)
            if by.pk != challenge.creator_id:
                raise ChallengeError(
                    ChallengeCode.NOT_CHALLENGE_CREATOR,
                    gettext("Only the challenge's creator may cancel it (decline it)."),
                )
        expired = _expire_if_due(challenge, invites)
        if not expired:
            _require_pending(challenge)
            _touch(challenge, invites, status=ChallengeStatus.CANCELLED, cancel_reason=reason)
    if expired:
        raise ChallengeError(ChallengeCode.CHALLENGE_EXPIRED, gettext("The challenge had already expired."))
    return challenge


def challenges_expire(*, now: datetime | None = None, user: User | None = None, limit: int = 500) -> int:
    """Expire the pending challenges whose time is up (all of them, or those ``user``
    sent or received); each under its lock, so an answer that got there first wins.
    Returns how many expired. Beat runs it (``challenges.expire``); reads run it for
    the reader."""
    now = now or timezone.now()
    due = Challenge.objects.filter(status=ChallengeStatus.PENDING, expires_at__lte=now)
    if user is not None:
        due = due.filter(
            Q(creator=user) | Q(pk__in=ChallengeInvite.objects.filter(invitee=user).values("challenge_id"))
        )
    expired = 0
    for challenge_id in list(due.order_by("expires_at").values_list("pk", flat=True)[:limit]):
        with transaction.atomic():
            challenge, invites = _locked(challenge_id)
            expired += _expire_if_due(challenge, invites, now)
    return expired


# -- a bot account's policy ------------------------------------------------------------


def _require_bot(user: User) -> None:
    if not user.is_bot:
        raise ChallengeError(ChallengeCode.NOT_A_BOT, gettext("Only a bot account has a challenge policy."))


def policy_get(*, user: User) -> ChallengePolicy:
    """The bot account's policy (the defaults, unsaved, if it never set one)."""
    _require_bot(user)
    return ChallengePolicy.objects.filter(user=user).first() or ChallengePolicy(user=user)


def policy_update(*, user: User, **fields: Any) -> ChallengePolicy:
    """Set the bot account's policy (``auto_accept``, ``rated``, ``casual``,
    ``min_players``, ``max_players``, ``max_games``; ``server_strategy`` is the
    server's own, set by the admin or the ladder)."""
    _require_bot(user)
    if fields.get("min_players", 2) > fields.get("max_players", 14):
        raise ChallengeError(
            CoreCode.VALIDATION_ERROR,
            gettext("min_players is more than max_players."),
            errors={"min_players": [gettext("Must not be more than max_players.")]},
        )
    strategy = fields.get("server_strategy")
    if strategy and strategy not in STRATEGIES:
        raise GameError(
            GameCode.UNKNOWN_STRATEGY, gettext("There is no bot strategy '%(strategy)s'.") % {"strategy": strategy}
        )
    policy, _ = ChallengePolicy.objects.update_or_create(user=user, defaults={**fields, "updated_at": timezone.now()})
    return policy
