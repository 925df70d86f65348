"""Every moderation action: one function each, keyword-only.

Each one checks the ``moderation.moderate`` permission, calls the games or
players service that does the work (the games' one commit path, so events are
published to clients like any move, and the game is marked ``moderated``) and
records an ``AuditEntry`` in the same transaction: the action and its audit
entry are stored together or not at all. Nothing here writes a game itself.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import Group, Permission
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from chat import selectors as chat_selectors
from chat import services as chat_services
from chat.models import ChatMessage
from core.errors import ApiError, CoreCode
from games import services as game_services
from games.engine import Match, full_view
from games.errors import GameCode, GameError
from games.models import Game
from live import account_feeds
from moderation.errors import ModerationCode, ModerationError
from moderation.guard import (
    MODERATE_PERMISSION,
    audit,
    report_locked_open,
    report_mark_resolved,
    require_moderator,
    require_reason,
    user_locked,
)
from moderation.models import (
    Appeal,
    AppealStatus,
    AuditAction,
    ModeratorNote,
    PlayerWarning,
    Report,
    ReportOutcome,
    ReportStatus,
    ReportTarget,
    Sanction,
    SanctionKind,
)
from players import services as player_services
from players.models import User
from ratings import services as rating_services
from ratings.services import VoidOutcome

# -- games ----------------------------------------------------------------------


def moderation_game_abort(*, game_id: int, by: User, reason: str) -> Game:
    """Abort an open or running game; clients get ``game_aborted`` with the reason."""
    require_moderator(by)
    reason = require_reason(reason)
    with transaction.atomic():
        game = game_services.game_abort_as_moderator(game_id=game_id, by=by, reason=reason)
        audit(by=by, action=AuditAction.GAME_ABORT, reason=reason, game_id=game.pk)
    return game


def moderation_seat_to_bot(
    *, game_id: int, seat_number: int, by: User, reason: str, strategy: str = game_services.FALLBACK_STRATEGY
) -> Game:
    """Hand a running game's seat to a server bot for the rest of the game."""
    require_moderator(by)
    reason = require_reason(reason)
    with transaction.atomic():
        changed = game_services.seat_hand_to_bot(
            game_id=game_id, seat_number=seat_number, by=by, reason=reason, strategy=strategy
        )
        audit(
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
    require_moderator(by)
    reason = require_reason(reason)
    with transaction.atomic():
        changed = game_services.seat_remove(game_id=game_id, seat_number=seat_number, by=by, reason=reason)
        audit(
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
    require_moderator(by)
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameError(CoreCode.NOT_FOUND, gettext("There is no game %(game_id)s.") % {"game_id": game_id})
    if not game.state:
        raise GameError(GameCode.GAME_NOT_STARTED, gettext("The game has not started: no tiles have been dealt."))
    view = full_view(Match.from_dict(game.state))
    audit(
        by=by,
        action=AuditAction.HANDS_VIEWED,
        reason=reason.strip(),
        game_id=game.pk,
        details={"seq": game.seq, "status": game.status},
    )
    return view


# -- reports (filed by players, worked through by moderators) ------------------


def report_create(
    *,
    reporter: User,
    reason: str,
    text: str = "",
    account: User | None = None,
    game_id: int | None = None,
    message_id: int | None = None,
) -> Report:
    """A player reports an account, a game or a chat message they can read (exactly
    one). One open report per reporter and target (``report_exists``); never about
    oneself or one's own message (``report_self``). The target is never told who
    reported it. A message's report also names its game and its author."""
    if [account, game_id, message_id].count(None) != 2:
        raise ApiError(
            gettext("Report exactly one target: an account, a game or a chat message."),
            code=CoreCode.VALIDATION_ERROR,
            extra={"errors": {"non_field_errors": [gettext("Give exactly one of account, game and message.")]}},
        )
    message = None
    if message_id is not None:
        message = chat_selectors.message_get(message_id=message_id, user=reporter)
        if message.author_id == reporter.pk:
            raise ModerationError(ModerationCode.REPORT_SELF, gettext("You cannot report your own message."))
        kind, key = ReportTarget.MESSAGE, f"message:{message.pk}"
        account, game_id = message.author, message.game_id
    elif account is not None:
        if account.pk == reporter.pk:
            raise ModerationError(ModerationCode.REPORT_SELF, gettext("You cannot report your own account."))
        kind, key = ReportTarget.ACCOUNT, f"account:{account.pk}"
    elif game_id is not None:
        if not Game.objects.filter(pk=game_id).exists():
            raise ModerationError(CoreCode.NOT_FOUND, gettext("There is no game %(game_id)s.") % {"game_id": game_id})
        kind, key = ReportTarget.GAME, f"game:{game_id}"
    existing = Report.objects.filter(reporter=reporter, target_key=key).exclude(status=ReportStatus.RESOLVED).first()
    if existing is not None:
        raise ModerationError(
            ModerationCode.REPORT_EXISTS, gettext("You have an open report about this already."), report_id=existing.pk
        )
    try:
        with transaction.atomic():
            return Report.objects.create(
                reporter=reporter,
                target_kind=kind,
                target_key=key,
                account=account,
                game_id=game_id,
                message=message,
                reason=reason,
                text=text.strip(),
            )
    except IntegrityError:  # the same report sent twice at once: the constraint keeps one
        raise ModerationError(
            ModerationCode.REPORT_EXISTS, gettext("You have an open report about this already.")
        ) from None


def report_assign(*, report_id: int, by: User) -> Report:
    """Take a report: it moves from "open" to "assigned" (to ``by``)."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        report.status, report.assignee, report.assigned_at = ReportStatus.ASSIGNED, by, timezone.now()
        report.save(update_fields=["status", "assignee", "assigned_at"])
        audit(
            by=by,
            action=AuditAction.REPORT_ASSIGN,
            reason="",
            player=report.account,
            game_id=report.game_id,
            details={"report": report.pk},
        )
    return report


def report_player_of(report: Report, player: User | None) -> User:
    """Whom an outcome about an account falls on: the reported account, or for a
    game's report the player the moderator picked (one of its seats)."""
    if report.target_kind == ReportTarget.ACCOUNT and report.account is not None:
        return report.account
    author = report.account if report.target_kind == ReportTarget.MESSAGE else None
    if author is not None and (player is None or player.pk == author.pk):
        return author  # the message's author (who may be a spectator)
    if player is None:
        raise ApiError(
            gettext("Pick the player of the game this outcome is for."),
            code=CoreCode.VALIDATION_ERROR,
            extra={"errors": {"player": [gettext("This field is required for a game's report.")]}},
        )
    if report.game is not None and not report.game.seats.filter(player=player).exists():
        raise ApiError(
            gettext("%(username)s has no seat in game %(game_id)s.")
            % {"username": player.username, "game_id": report.game_id},
            code=CoreCode.VALIDATION_ERROR,
        )
    return player


def report_dismiss(*, report_id: int, by: User, reason: str = "") -> Report:
    """Nothing to act on: the report is resolved as dismissed."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        report_mark_resolved(report, by=by, outcome=ReportOutcome.DISMISSED, reason=reason.strip())
        audit(
            by=by,
            action=AuditAction.REPORT_DISMISS,
            reason=reason.strip(),
            player=report.account,
            game_id=report.game_id,
            details={"report": report.pk},
        )
    return report


def report_warn(*, report_id: int, by: User, reason: str, player: User | None = None) -> PlayerWarning:
    """Warn the reported player (``reason`` is the text they see); resolves the report."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        warning = moderation_player_warn(player=report_player_of(report, player), by=by, text=reason, report=report)
        report_mark_resolved(report, by=by, outcome=ReportOutcome.WARNED, reason=warning.text)
    return warning


def report_mute(
    *, report_id: int, by: User, reason: str, until: datetime | None, player: User | None = None
) -> Sanction:
    """Mute the reported player until ``until`` (none: until lifted); resolves the report."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        mute = moderation_player_mute(
            player=report_player_of(report, player), by=by, reason=reason, until=until, report=report
        )
        report_mark_resolved(report, by=by, outcome=ReportOutcome.MUTED, reason=mute.reason)
    return mute


def report_suspend(
    *, report_id: int, by: User, reason: str, until: datetime | None, player: User | None = None
) -> Report:
    """Suspend the reported player until ``until`` (none: until reinstated); resolves the report."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        moderation_player_suspend(
            player=report_player_of(report, player), by=by, reason=reason, until=until, report=report
        )
        return report_mark_resolved(report, by=by, outcome=ReportOutcome.SUSPENDED, reason=reason.strip())


def report_abort_game(*, report_id: int, by: User, reason: str) -> Report:
    """Abort the reported game (its players see the reason); resolves the report."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        if report.game_id is None:
            raise ApiError(gettext("This report is not about a game."), code=CoreCode.VALIDATION_ERROR)
        moderation_game_abort(game_id=report.game_id, by=by, reason=reason)
        return report_mark_resolved(report, by=by, outcome=ReportOutcome.GAME_ABORTED, reason=reason.strip())


# -- warnings, mutes, notes, and the end of timed sanctions ---------------------------


def moderation_player_warn(*, player: User, by: User, text: str, report: Report | None = None) -> PlayerWarning:
    """A warning the player sees on their account (``GET /me/warnings/``)."""
    require_moderator(by)
    text = require_reason(text)
    with transaction.atomic():
        warning = PlayerWarning.objects.create(player=player, moderator=by, text=text, report=report)
        audit(
            by=by,
            action=AuditAction.PLAYER_WARN,
            reason=text,
            player=player,
            details={"warning": warning.pk, **({"report": report.pk} if report else {})},
        )
        account_feeds.notify_accounts([player.pk])  # the account stream's warnings (moderation.feeds)
    return warning


def _sanction_add(
    *, kind: str, player: User, by: User, reason: str, until: datetime | None, report: Report | None
) -> Sanction:
    now = timezone.now()
    if until is not None and until <= now:
        raise ApiError(gettext("The end of a sanction must be in the future."), code=CoreCode.VALIDATION_ERROR)
    account_feeds.notify_accounts([player.pk])  # the account stream's sanctions (moderation.sanction_feed)
    return Sanction.objects.create(
        kind=kind, player=player, moderator=by, reason=reason, report=report, starts_at=now, ends_at=until
    )


def _sanctions_lift(*, player: User, kind: str, by: User | None, now: datetime | None = None) -> list[int]:
    """Lift every sanction of ``kind`` in force on ``player``; their ids."""
    active = Sanction.objects.select_for_update().filter(player=player, kind=kind, lifted_at__isnull=True)
    ids = sorted(active.values_list("pk", flat=True))
    Sanction.objects.filter(pk__in=ids).update(lifted_at=now or timezone.now(), lifted_by=by)
    if ids:
        account_feeds.notify_accounts([player.pk])
    return ids


def moderation_player_mute(
    *, player: User, by: User, reason: str, until: datetime | None = None, report: Report | None = None
) -> Sanction:
    """Mute an account until ``until`` (none: until lifted): it cannot write
    messages (``moderation.selectors.is_muted``); it still plays."""
    require_moderator(by)
    reason = require_reason(reason)
    with transaction.atomic():
        mute = _sanction_add(kind=SanctionKind.MUTE, player=player, by=by, reason=reason, until=until, report=report)
        audit(
            by=by,
            action=AuditAction.PLAYER_MUTE,
            reason=reason,
            player=player,
            details={
                "sanction": mute.pk,
                "until": until.isoformat() if until else None,
                **({"report": report.pk} if report else {}),
            },
        )
    return mute


def moderation_player_unmute(*, player: User, by: User, reason: str = "") -> list[int]:
    """Lift an account's mutes now; the ids of those lifted."""
    require_moderator(by)
    with transaction.atomic():
        lifted = _sanctions_lift(player=player, kind=SanctionKind.MUTE, by=by)
        audit(
            by=by, action=AuditAction.PLAYER_UNMUTE, reason=reason.strip(), player=player, details={"sanctions": lifted}
        )
    return lifted


def moderation_note_add(*, player: User, by: User, text: str) -> ModeratorNote:
    """A note about an account, for moderators only."""
    require_moderator(by)
    text = require_reason(text)
    with transaction.atomic():
        note = ModeratorNote.objects.create(player=player, author=by, text=text)
        audit(by=by, action=AuditAction.NOTE_ADD, reason=text, player=player, details={"note": note.pk})
    return note


def warning_acknowledge(*, player: User, warning_id: int) -> PlayerWarning:
    """The player says they have read a warning (again: no change)."""
    with transaction.atomic():
        warning = PlayerWarning.objects.select_for_update().filter(pk=warning_id, player=player).first()
        if warning is None:
            raise ModerationError(
                CoreCode.NOT_FOUND, gettext("You have no warning %(warning_id)s.") % {"warning_id": warning_id}
            )
        if warning.acknowledged_at is None:
            warning.acknowledged_at = timezone.now()
            warning.save(update_fields=["acknowledged_at"])
            account_feeds.notify_accounts([player.pk])
    return warning


def sanctions_expire(*, now: datetime | None = None) -> list[int]:
    """Lift every sanction whose end has come (beat runs this; so does anyone who
    asks). A suspended account is reinstated when no suspension is left in force.
    Each lift is audited as the server's (no moderator). Answers the ids lifted."""
    now = now or timezone.now()
    lifted: list[int] = []
    due = Sanction.objects.filter(lifted_at__isnull=True, ends_at__lte=now).order_by("ends_at", "pk")
    for sanction_id in list(due.values_list("pk", flat=True)):
        with transaction.atomic():
            sanction = Sanction.objects.select_for_update().filter(pk=sanction_id, lifted_at__isnull=True).first()
            if sanction is None:
                continue  # lifted meanwhile
            sanction.lifted_at = now
            sanction.save(update_fields=["lifted_at"])
            account_feeds.notify_accounts([sanction.player_id])
            player = user_locked(sanction.player_id)
            details = {"sanction": sanction.pk, "automatic": True, "ended_at": now.isoformat()}
            if sanction.kind == SanctionKind.SUSPENSION:
                still = Sanction.objects.filter(player=player, kind=SanctionKind.SUSPENSION, lifted_at__isnull=True)
                if not still.exists() and not player.is_active:
                    player_services.user_set_active(user=player, is_active=True)
                audit(
                    by=None,
                    action=AuditAction.PLAYER_UNSUSPEND,
                    reason="The suspension ended.",
                    player=player,
                    details=details,
                )
            else:
                audit(
                    by=None, action=AuditAction.PLAYER_UNMUTE, reason="The mute ended.", player=player, details=details
                )
            lifted.append(sanction.pk)
    return lifted


# -- the Moderators group ---------------------------------------------------------

MODERATORS_GROUP = "Moderators"
#: What the group holds: looking at games, accounts, tokens, the audit trail,
#: reports, warnings, sanctions and notes; acting through ``moderation.moderate``.
#: Nothing else (no editing of accounts, so no passwords; no groups or permissions).
#: Migrations 0003 and 0005 made the group with this same list.
MODERATOR_PERMISSIONS = (
    "games.view_game",
    "players.view_user",
    "players.view_apitoken",
    "moderation.view_auditentry",
    MODERATE_PERMISSION,
    "moderation.view_report",
    "moderation.view_playerwarning",
    "moderation.view_sanction",
    "moderation.view_moderatornote",
    # What the apps built on games keep (migration 0005): ratings (the void), seeks,
    # challenges (cancel), the ladder (take a bot off).
    "ratings.view_rating",
    "ratings.view_ratingchange",
    "matchmaking.view_seek",
    "challenges.view_challenge",
    "challenges.change_challenge",
    "ladder.view_ladderentry",
    "ladder.change_ladderentry",
    "ladder.view_ladderround",
    # The table chat (migration 0007): removed messages keep their text for the moderators.
    "chat.view_chatmessage",
    # Appeals against sanctions (migration 0011), answered beside the reports.
    "moderation.view_appeal",
)


def moderators_group_sync() -> Group:
    """The Moderators group with exactly ``MODERATOR_PERMISSIONS`` (made again if
    it was deleted, put right if its permissions were changed)."""
    group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
    wanted = []
    for name in MODERATOR_PERMISSIONS:
        app_label, codename = name.split(".")
        wanted.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    group.permissions.set(wanted)
    return group


def moderator_add(*, user: User) -> bool:
    """Make ``user`` staff and a member of the Moderators group. For the command
    line (``manage.py add_moderator``): an operator, not a moderator, calls it.
    Answers whether the account changed."""
    with transaction.atomic():
        group = moderators_group_sync()
        changed = not user.is_staff or not user.groups.filter(pk=group.pk).exists()
        if not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        user.groups.add(group)
    return changed


def moderation_rating_void(*, game_id: int, by: User, reason: str) -> VoidOutcome:
    """Undo a rated match's effect on its players' ratings (``ratings.services.match_void``).
    Idempotent: a void that finds nothing left to undo changes nothing and records nothing."""
    require_moderator(by)
    reason = require_reason(reason)
    with transaction.atomic():
        outcome = rating_services.match_void(game_id=game_id, by=by, reason=reason)
        if outcome.voided:
            audit(
                by=by,
                action=AuditAction.RATING_VOID,
                reason=reason,
                game_id=game_id,
                details={"voided": outcome.voided, "players": outcome.players},
            )
    return outcome


# -- players --------------------------------------------------------------------


def moderation_player_suspend(
    *, player: User, by: User, reason: str, until: datetime | None = None, report: Report | None = None
) -> list[int]:
    """Suspend an account: it can no longer log in or use its tokens (all revoked),
    its seats in running games go to bots, its open tables are closed and its seats
    at others' open tables emptied. Returns the ids of the games touched.

    ``until``: the suspension ends by itself then (beat's ``sanctions_expire``);
    without it, it lasts until a moderator reinstates the account. Either way it is
    a ``Sanction`` in the account's history.

    One transaction: if any game cannot be changed (it ended meanwhile, say),
    nothing is, and the moderator can simply try again."""
    require_moderator(by)
    reason = require_reason(reason)
    if player.pk == by.pk:
        raise ApiError(gettext("You cannot suspend your own account."), code=CoreCode.PERMISSION_DENIED)
    with transaction.atomic():
        player = user_locked(player.pk)
        player_services.user_set_active(user=player, is_active=False)
        revoked = player_services.tokens_revoke_all(user=player)
        touched = sorted(set(game_services.player_withdraw(player=player, by=by, reason=reason)))
        sanction = _sanction_add(
            kind=SanctionKind.SUSPENSION, player=player, by=by, reason=reason, until=until, report=report
        )
        audit(
            by=by,
            action=AuditAction.PLAYER_SUSPEND,
            reason=reason,
            player=player,
            details={
                "games": touched,
                "tokens_revoked": revoked,
                "sanction": sanction.pk,
                "until": until.isoformat() if until else None,
                **({"report": report.pk} if report else {}),
            },
        )
    return touched


def moderation_player_unsuspend(*, player: User, by: User, reason: str = "") -> None:
    """Reinstate an account. Its old tokens stay revoked and its seats stay with
    the bots: the player logs in again and takes new tokens and tables."""
    require_moderator(by)
    with transaction.atomic():
        player = user_locked(player.pk)
        player_services.user_set_active(user=player, is_active=True)
        lifted = _sanctions_lift(player=player, kind=SanctionKind.SUSPENSION, by=by)
        audit(
            by=by,
            action=AuditAction.PLAYER_UNSUSPEND,
            reason=reason.strip(),
            player=player,
            details={"sanctions": lifted} if lifted else None,
        )


def moderation_tokens_revoke(*, player: User, by: User, reason: str = "", token_ids: list[int] | None = None) -> int:
    """Revoke a player's API tokens: all active ones, or only ``token_ids``.
    Returns how many were revoked."""
    require_moderator(by)
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
        audit(by=by, action=AuditAction.TOKENS_REVOKE, reason=reason.strip(), player=player, details=details)
    return revoked


def moderation_bot_mark(*, player: User, by: User, is_bot: bool = True, reason: str = "") -> None:
    """Mark (``is_bot=True``) or unmark an account as a bot."""
    require_moderator(by)
    with transaction.atomic():
        player = user_locked(player.pk)
        player_services.user_set_bot(user=player, is_bot=is_bot)
        action = AuditAction.BOT_MARK if is_bot else AuditAction.BOT_UNMARK
        audit(by=by, action=action, reason=reason.strip(), player=player)


# -- the table chat -----------------------------------------------------------------


def moderation_chat_remove(*, message_id: int, by: User, reason: str = "", report: Report | None = None) -> ChatMessage:
    """Remove a chat message: everyone then reads "removed by a moderator" (the
    game's streams are told at once); moderators still see the text in the admin.
    Audited once (removing a removed message changes nothing)."""
    require_moderator(by)
    with transaction.atomic():
        message, changed = chat_services.chat_message_remove(message_id=message_id, by=by)
        if changed:
            details: dict[str, Any] = {"message": message.pk, "channel": message.channel, "text": message.text}
            if report is not None:
                details["report"] = report.pk
            audit(
                by=by,
                action=AuditAction.CHAT_REMOVE,
                reason=reason.strip(),
                game_id=message.game_id,
                player=message.author,
                details=details,
            )
    return message


def report_remove_message(*, report_id: int, by: User, reason: str = "") -> Report:
    """Remove the reported chat message (audited as ``chat_remove``); resolves the report."""
    require_moderator(by)
    with transaction.atomic():
        report = report_locked_open(report_id)
        if report.target_kind != ReportTarget.MESSAGE or report.message_id is None:
            raise ApiError(gettext("This report is not about a chat message."), code=CoreCode.VALIDATION_ERROR)
        moderation_chat_remove(message_id=report.message_id, by=by, reason=reason, report=report)
        report_mark_resolved(report, by=by, outcome=ReportOutcome.MESSAGE_REMOVED, reason=reason.strip())
    return report


# -- appeals --------------------------------------------------------------------------


def appeal_create(*, player: User, sanction_id: int, text: str) -> Appeal:
    """The player appeals one of their sanctions (in force): one appeal per sanction.
    A suspended player appeals with the token of their log-in refusal (the view
    reads it), a muted one signed in."""
    text = require_reason(text)
    with transaction.atomic():
        sanction = Sanction.objects.select_for_update().filter(pk=sanction_id, player=player).first()
        if sanction is None or sanction.lifted_at is not None:
            raise ModerationError(
                CoreCode.NOT_FOUND,
                gettext("You have no sanction %(sanction_id)s in force.") % {"sanction_id": sanction_id},
            )
        if Appeal.objects.filter(sanction=sanction).exists():
            raise ModerationError(
                ModerationCode.APPEAL_EXISTS, gettext("You have appealed against this sanction already.")
            )
        account_feeds.notify_accounts([player.pk])
        return Appeal.objects.create(sanction=sanction, text=text)


def appeal_answer(*, appeal_id: int, by: User, lift: bool, answer: str) -> Appeal:
    """Another moderator than the one who imposed the sanction answers the appeal:
    ``lift`` lifts the sanction (a suspension's end reinstates the account when no
    other suspension holds), else it is upheld. The player reads ``answer``."""
    require_moderator(by)
    answer = require_reason(answer)
    with transaction.atomic():
        appeal = Appeal.objects.select_for_update().select_related("sanction").filter(pk=appeal_id).first()
        if appeal is None:
            raise ModerationError(
                CoreCode.NOT_FOUND, gettext("There is no appeal %(appeal_id)s.") % {"appeal_id": appeal_id}
            )
        sanction = appeal.sanction
        if sanction.moderator_id == by.pk:
            raise ModerationError(
                ModerationCode.APPEAL_OWN_SANCTION,
                gettext("You imposed this sanction: another moderator answers the appeal."),
            )
        if appeal.status != AppealStatus.OPEN:
            raise ModerationError(ModerationCode.REPORT_RESOLVED, gettext("The appeal is answered already."))
        player = user_locked(sanction.player_id)
        if lift and sanction.lifted_at is None:
            Sanction.objects.filter(pk=sanction.pk).update(lifted_at=timezone.now(), lifted_by=by)
            if sanction.kind == SanctionKind.SUSPENSION:
                still = Sanction.objects.filter(player=player, kind=SanctionKind.SUSPENSION, lifted_at__isnull=True)
                if not still.exists() and not player.is_active:
                    player_services.user_set_active(user=player, is_active=True)
        appeal.status = AppealStatus.LIFTED if lift else AppealStatus.UPHELD
        appeal.answer, appeal.answered_by, appeal.answered_at = answer, by, timezone.now()
        appeal.save(update_fields=["status", "answer", "answered_by", "answered_at"])
        account_feeds.notify_accounts([player.pk])
        audit(
            by=by,
            action=AuditAction.APPEAL_ANSWER,
            reason=answer,
            player=player,
            details={"appeal": appeal.pk, "sanction": sanction.pk, "outcome": appeal.status},
        )
    return appeal
