"""The ladder in the Django admin, for moderators: who is on it (a moderator may take
an outside bot off, or put it back), and the rounds with their games (read only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from ladder.models import LadderEntry, LadderGame, LadderRound


def _link(obj: Any, text: str) -> str:
    opts = obj._meta
    return format_html(
        '<a href="{}">{}</a>', reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]), text
    )


@admin.register(LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ("user", "level", "active", "table_sizes", "max_games", "joined_at")
    list_filter = ("active", "level")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = ("user", "level", "active", "table_sizes", "max_games", "joined_at")
    readonly_fields = ("user", "level", "joined_at")
    actions = ["take_off", "put_back"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # bots opt in themselves (PUT /api/v1/ladder/entry/); levels are the server's

    @admin.action(description="Take off the ladder (no new games)", permissions=["change"])
    def take_off(self, request: HttpRequest, queryset: QuerySet[LadderEntry]) -> None:
        changed = queryset.update(active=False)
        self.message_user(request, f"{changed} taken off the ladder.", messages.SUCCESS)

    @admin.action(description="Put back on the ladder", permissions=["change"])
    def put_back(self, request: HttpRequest, queryset: QuerySet[LadderEntry]) -> None:
        changed = queryset.update(active=True)
        self.message_user(request, f"{changed} put back on the ladder.", messages.SUCCESS)


class LadderGameInline(admin.TabularInline):
    model = LadderGame
    extra = 0
    fields = ("game_link", "status")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="game")
    def game_link(self, row: LadderGame) -> str:
        return _link(row.game, str(row.game))

    @admin.display(description="status")
    def status(self, row: LadderGame) -> str:
        return row.game.status


@admin.register(LadderRound)
class LadderRoundAdmin(admin.ModelAdmin):
    list_display = ("id", "slot", "table_size", "created_at")
    list_filter = ("table_size",)
    fields = ("slot", "table_size", "seed", "created_at")
    readonly_fields = fields
    inlines = [LadderGameInline]
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
