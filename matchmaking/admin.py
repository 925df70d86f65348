"""Seeks in the admin: moderators see every seek and cancel waiting ones (through
``services.seek_cancel``, so the player's account stream is told). Acting needs the
``moderation.moderate`` permission (named, not imported: the moderation app is a
neighbour); viewing needs Django's view permission."""

from __future__ import annotations

from typing import cast

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.errors import ApiError
from matchmaking import services
from matchmaking.models import Seek, SeekStatus
from players.models import User

MODERATE_PERMISSION = "moderation.moderate"


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "players", "preset", "rated", "status", "reason", "game", "created_at", "matched_at")
    list_filter = ("status", "reason", "preset", "players", "rated", "on_timeout")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    raw_id_fields = ("user", "game")
    date_hierarchy = "created_at"
    actions = ("cancel",)
    readonly_fields = [f.name for f in Seek._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Seek | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Seek | None = None) -> bool:
        return False

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return user.is_active and user.is_staff and user.has_perm(MODERATE_PERMISSION)

    @admin.action(description="Cancel selected waiting seeks", permissions=["moderate"])
    def cancel(self, request: HttpRequest, queryset: QuerySet[Seek]) -> None:
        by = cast(User, request.user)
        done = 0
        for seek_id in queryset.filter(status=SeekStatus.WAITING).values_list("pk", flat=True):
            try:
                services.seek_cancel(seek_id=seek_id, by=by, as_moderator=True)
            except ApiError as error:  # matched or cancelled since the page was shown
                self.message_user(request, f"seek {seek_id}: {error.detail} ({error.code})", messages.WARNING)
            else:
                done += 1
        self.message_user(request, f"{done} seek(s) cancelled.", messages.SUCCESS)
