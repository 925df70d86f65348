"""The audit trail in the admin: to read, filter and search, never to edit.

Entries are written only by ``moderation.services``; here nothing can be added,
changed or deleted (no delete action either), whatever the user's permissions.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from moderation.models import AuditEntry


class ReadOnlyAdminMixin:
    """Look, never touch: for ModelAdmins and inlines."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def admin_link(obj: Any, text: str | None = None) -> str:
    """A link to ``obj``'s admin page (or "-" for none)."""
    if obj is None:
        return "-"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, text or str(obj))


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "moderator", "action", "game_link", "player_link", "reason")
    list_filter = (
        "action",
        ("moderator", admin.RelatedOnlyFieldListFilter),
        ("player", admin.RelatedOnlyFieldListFilter),
        ("game", admin.RelatedOnlyFieldListFilter),
        "created_at",
    )
    search_fields = ("moderator__username", "player__username", "reason", "=game__id")
    date_hierarchy = "created_at"
    list_select_related = ("moderator", "player", "game")
    fields = ("created_at", "moderator", "action", "game_link", "player_link", "reason", "details")
    readonly_fields = fields
    actions = None  # no "delete selected"

    @admin.display(description=_("game"), ordering="game")
    def game_link(self, entry: AuditEntry) -> str:
        return admin_link(entry.game)

    @admin.display(description=_("player"), ordering="player__username")
    def player_link(self, entry: AuditEntry) -> str:
        return admin_link(entry.player, entry.player.username if entry.player else None)


class AuditEntryInline(ReadOnlyAdminMixin, admin.TabularInline):
    """The audit entries of one game or player (shown to those who may view them)."""

    model = AuditEntry
    fk_name = "game"
    extra = 0
    fields = ("created_at", "moderator", "action", "player", "reason", "details")
    readonly_fields = fields
    can_delete = False
    show_change_link = True
    verbose_name_plural = _("moderation (audit trail)")
