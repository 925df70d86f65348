"""Every moderation action: one function each, keyword-only.

Each one checks the ``moderation.moderate`` permission, calls the games or
players service that does the work (the games' one commit path, so events are
published to clients like any move, and the game is marked ``moderated``) and
records an ``AuditEntry`` in the same transaction: the action and its audit
entry are stored together or not at all. Nothing here writes a game itself.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from core.errors import ApiError, CoreCode
from games import services as game_services
from games.engine import Match, full_view
from games.errors import GameCode, GameError
from games.models import Game
from moderation.models import AuditAction, AuditEntry
from players import services as player_services
from players.models import User
from ratings import services as rating_services
from ratings.services import VoidOutcome

MODERATE_PERMISSION = "moderation.moderate"


def _require_moderator(user: User) -> None:
    """Acting (not looking) needs the ``moderation.moderate`` permission; the games
    services also insist on staff."""
    if not (user.is_staff and user.has_perm(MODERATE_PERMISSION)):
        raise ApiError("Only staff with the moderate permission may do that.", code=CoreCode.PERMISSION_DENIED)


def _require_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ApiError(
            "A reason is required for this action.",
            code=CoreCode.VALIDATION_ERROR,
            extra={"errors": {"reason": ["This field is required."]}},
        )
    return reason


def _audit(
    *,
    by: User,
    action: str,
    reason: str,
    game_id: int | None = None,
    player: User | None = None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    return AuditEntry.objects.create(
        moderator=by, action=action, game_id=game_id, player=player, reason=reason, details=details or {}
    )


# -- games ----------------------------------------------------------------------


def moderation_game_abort(*, game_id: int, by: User, reason: str) -> Game:
    """Abort an open or running game; clients get ``game_aborted`` with the reason."""
    _require_moderator(by)
    reason = _require_reason(reason)
    with transaction.atomic():
        game = game_services.game_abort_as_moderator(game_id=game_id, by=by, reason=reason)
        _audit(by=by, action=AuditAction.GAME_ABORT, reason=reason, game_id=game.pk)
    return game


def moderation_seat_to_bot(
    *, game_id: int, seat_number: int, by: User, reason: str, strategy: str = game_services.FALLBACK_STRATEGY
) -> Game:
    """Hand a running game's seat to a server bot for the rest of the game."""
    _require_moderator(by)
    reason = _require_reason(reason)
    with transaction.atomic():
        changed = game_services.seat_hand_to_bot(
            game_id=game_id, seat_number=seat_number, by=by, reason=reason, strategy=strategy
        )
        _audit(
            by=by,
            action=AuditAction.SEAT_TO_BOT,
            reason=reason,
            game_id=game_id,
            player=changed.player,
            details={"seat": seat_number, "strategy": strategy},
        )
    return changed.game


def moderation_seat_remove(*, game_id: int, seat_number: int, by: User, reason: str) -> Game:
    """Empty a seat (a player's or a bot's) of a game that has not started."""
    _require_moderator(by)
    reason = _require_reason(reason)
    with transaction.atomic():
        changed = game_services.seat_remove(game_id=game_id, seat_number=seat_number, by=by, reason=reason)
        _audit(
            by=by,
            action=AuditAction.SEAT_REMOVE,
            reason=reason,
            game_id=game_id,
            player=changed.player,
            details={"seat": seat_number},
        )
    return changed.game


def moderation_hands_view(*, game_id: int, by: User, reason: str = "") -> dict[str, Any]:
    """Everything hidden in a game (every hand, the boneyard, the seed) - and an
    audit entry saying who looked. Looking changes nothing in the game, so players
    are not told (``moderated`` stays as it was)."""
    _require_moderator(by)
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameError(CoreCode.NOT_FOUND, f"There is no game {game_id}.")
    if not game.state:
        raise GameError(GameCode.GAME_NOT_STARTED, "The game has not started: no tiles have been dealt.")
    view = full_view(Match.from_dict(game.state))
    _audit(
        by=by,
        action=AuditAction.HANDS_VIEWED,
        reason=reason.strip(),
        game_id=game.pk,
        details={"seq": game.seq, "status": game.status},
    )
    return view


def moderation_rating_void(*, game_id: int, by: User, reason: str) -> VoidOutcome:
    """Undo a rated match's effect on its players' ratings (``ratings.services.match_void``).
    Idempotent: a void that finds nothing left to undo changes nothing and records nothing."""
    _require_moderator(by)
    reason = _require_reason(reason)
    with transaction.atomic():
        outcome = rating_services.match_void(game_id=game_id, by=by, reason=reason)
        if outcome.voided:
            _audit(
                by=by,
                action=AuditAction.RATING_VOID,
                reason=reason,
                game_id=game_id,
                details={"voided": outcome.voided, "players": outcome.players},
            )
    return outcome


# -- players --------------------------------------------------------------------


def _locked_user(user_id: int) -> User:
    return User.objects.select_for_update().get(pk=user_id)


def moderation_player_suspend(*, player: User, by: User, reason: str) -> list[int]:
    """Suspend an account: it can no longer log in or use its tokens (all revoked),
    its seats in running games go to bots, its open tables are closed and its seats
    at others' open tables emptied. Returns the ids of the games touched.

    One transaction: if any game cannot be changed (it ended meanwhile, say),
    nothing is, and the moderator can simply try again."""
    _require_moderator(by)
    reason = _require_reason(reason)
    if player.pk == by.pk:
        raise ApiError("You cannot suspend your own account.", code=CoreCode.PERMISSION_DENIED)
    with transaction.atomic():
        player = _locked_user(player.pk)
        player_services.user_set_active(user=player, is_active=False)
        revoked = player_services.tokens_revoke_all(user=player)
        touched = sorted(set(game_services.player_withdraw(player=player, by=by, reason=reason)))
        _audit(
            by=by,
            action=AuditAction.PLAYER_SUSPEND,
            reason=reason,
            player=player,
            details={"games": touched, "tokens_revoked": revoked},
        )
    return touched


def moderation_player_unsuspend(*, player: User, by: User, reason: str = "") -> None:
    """Reinstate an account. Its old tokens stay revoked and its seats stay with
    the bots: the player logs in again and takes new tokens and tables."""
    _require_moderator(by)
    with transaction.atomic():
        player = _locked_user(player.pk)
        player_services.user_set_active(user=player, is_active=True)
        _audit(by=by, action=AuditAction.PLAYER_UNSUSPEND, reason=reason.strip(), player=player)


def moderation_tokens_revoke(*, player: User, by: User, reason: str = "", token_ids: list[int] | None = None) -> int:
    """Revoke a player's API tokens: all active ones, or only ``token_ids``.
    Returns how many were revoked."""
    _require_moderator(by)
    with transaction.atomic():
        if token_ids is None:
            revoked = player_services.tokens_revoke_all(user=player)
            details: dict[str, Any] = {"tokens_revoked": revoked}
        else:
            tokens = list(player.api_tokens.filter(pk__in=token_ids, revoked_at__isnull=True))
            for token in tokens:
                player_services.token_revoke(token=token)
            revoked = len(tokens)
            details = {"tokens_revoked": revoked, "token_ids": sorted(t.pk for t in tokens)}
        _audit(by=by, action=AuditAction.TOKENS_REVOKE, reason=reason.strip(), player=player, details=details)
    return revoked


def moderation_bot_mark(*, player: User, by: User, is_bot: bool = True, reason: str = "") -> None:
    """Mark (``is_bot=True``) or unmark an account as a bot."""
    _require_moderator(by)
    with transaction.atomic():
        player = _locked_user(player.pk)
        player_services.user_set_bot(user=player, is_bot=is_bot)
        action = AuditAction.BOT_MARK if is_bot else AuditAction.BOT_UNMARK
        _audit(by=by, action=action, reason=reason.strip(), player=player)
