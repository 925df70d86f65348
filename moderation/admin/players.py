"""Accounts and tokens in the admin.

Suspending, reinstating, revoking tokens and (un)marking bots are list actions
that ask for a reason and go through ``moderation.services`` (the audit trail
records them); "active" and "bot" cannot be ticked by hand on an existing
account, so no change escapes the trail. Acting needs the ``moderation.moderate``
permission; viewing needs only Django's view permission.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any, cast

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from moderation import services as moderation
from moderation.admin.actions import ModerateMixin, reason_action
from players.models import ApiToken, User

#: Fields only the moderation actions change on an existing account.
MODERATED_FIELDS = ("is_active", "is_bot")


def _user_action(
    name: str,
    description: str,
    perform: Callable[[HttpRequest, User, str], str],
    *,
    reason_required: bool = False,
    note: str = "",
) -> Any:
    """A list action on accounts that asks for a reason, then runs ``perform`` per account."""

    def action(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return reason_action(
            model_admin,
            request,
            queryset,
            name=name,
            title=description,
            reason_required=reason_required,
            note=note,
            perform=lambda user, reason: perform(request, user, reason),
        )

    action.__name__ = name
    return admin.action(description=description, permissions=["moderate"])(action)


def _by(request: HttpRequest) -> User:
    """The staff member acting (the admin's pages are for logged-in staff only)."""
    return cast(User, request.user)


def _suspend(request: HttpRequest, user: User, reason: str) -> str:
    games = moderation.moderation_player_suspend(player=user, by=_by(request), reason=reason)
    return f"suspended; games touched: {', '.join(map(str, games)) or 'none'}."


def _unsuspend(request: HttpRequest, user: User, reason: str) -> str:
    moderation.moderation_player_unsuspend(player=user, by=_by(request), reason=reason)
    return "reinstated."


def _revoke_tokens(request: HttpRequest, user: User, reason: str) -> str:
    count = moderation.moderation_tokens_revoke(player=user, by=_by(request), reason=reason)
    return f"{count} token(s) revoked."


def _mark_bot(is_bot: bool) -> Callable[[HttpRequest, User, str], str]:
    def perform(request: HttpRequest, user: User, reason: str) -> str:
        moderation.moderation_bot_mark(player=user, by=_by(request), is_bot=is_bot, reason=reason)
        return "marked as a bot." if is_bot else "no longer marked as a bot."

    return perform


@admin.register(User)
class UserAdmin(ModerateMixin, DjangoUserAdmin):
    list_display = ("username", "is_bot", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_bot", "is_active", "is_staff")
    search_fields = ("username", "email", "first_name", "last_name")
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), ("Chicken Foot", {"fields": ("is_bot",)}))
    actions = [
        _user_action(
            "suspend",
            "Suspend selected accounts (asks for a reason)",
            _suspend,
            reason_required=True,
            note="They can no longer log in or use their tokens (all revoked); their seats in running games go to "
            "bots, their open tables are closed and their seats at others' open tables emptied.",
        ),
        _user_action(
            "unsuspend",
            "Reinstate selected accounts",
            _unsuspend,
            note="They may log in again; revoked tokens stay revoked, seats stay with the bots.",
        ),
        _user_action("revoke_tokens", "Revoke all API tokens of selected accounts", _revoke_tokens),
        _user_action("mark_bot", "Mark selected accounts as bots", _mark_bot(True)),
        _user_action("unmark_bot", "Unmark selected accounts as bots", _mark_bot(False)),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None) -> tuple[str, ...]:
        fields = tuple(super().get_readonly_fields(request, obj))
        return fields + MODERATED_FIELDS if obj is not None else fields


@admin.register(ApiToken)
class ApiTokenAdmin(ModerateMixin, admin.ModelAdmin):
    """Tokens are created through the API (their secret is shown once); here they
    can only be looked at and revoked.  The digest is never shown."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__username", "prefix", "name")
    fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Revoke selected tokens", permissions=["moderate"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        by_user: dict[User, list[int]] = defaultdict(list)
        for token in queryset.filter(revoked_at__isnull=True).select_related("user"):
            by_user[token.user].append(token.pk)
        for user, token_ids in by_user.items():
            moderation.moderation_tokens_revoke(player=user, by=_by(request), token_ids=token_ids)
