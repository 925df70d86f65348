"""Challenges in the admin: moderators look at them and can cancel pending ones
(through ``challenges.services``, so the accounts concerned are told on their
stream). Bot accounts' challenge policies are edited here too - ``server_strategy``
only here (the server plays such an account's seats)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from challenges import services
from challenges.models import Challenge, ChallengeInvite, ChallengePolicy
from core.errors import ApiError
from players.authentication import request_account


class ChallengeInviteInline(admin.TabularInline):
    model = ChallengeInvite
    fields = ("seat", "invitee", "status", "answered_at", "auto")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.has_perm("challenges.view_challenge")  # the invites are part of the challenge


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ("id", "creator", "status", "players", "rated", "game", "created_at", "expires_at")
    list_filter = ("status", "rated", "players")
    search_fields = ("creator__username", "invites__invitee__username")
    date_hierarchy = "created_at"
    list_select_related = ("creator",)
    inlines = [ChallengeInviteInline]
    actions = ["cancel_challenges"]
    readonly_fields = [f.name for f in Challenge._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.action(description="Cancel selected pending challenges", permissions=["change"])
    def cancel_challenges(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        moderator = request_account(request)
        done = 0
        for challenge_id in queryset.values_list("pk", flat=True):
            try:
                services.challenge_cancel(
                    challenge_id=challenge_id, by=moderator, moderator=True, reason=f"cancelled by {moderator}"
                )
                done += 1
            except ApiError as error:
                self.message_user(request, f"Challenge {challenge_id}: {error.detail} ({error.code})", messages.WARNING)
        if done:
            self.message_user(request, f"Cancelled {done} challenge(s).", messages.SUCCESS)


@admin.register(ChallengePolicy)
class ChallengePolicyAdmin(admin.ModelAdmin):
    list_display = (
        "user",
        "auto_accept",
        "rated",
        "casual",
        "min_players",
        "max_players",
        "max_games",
        "server_strategy",
    )
    list_filter = ("auto_accept", "server_strategy")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
