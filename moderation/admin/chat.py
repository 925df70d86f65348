"""The table chat in the admin: every message with its original text (removed
ones too, with who removed them and when), a list to search and filter, and the
"Remove" action (``moderation.services.moderation_chat_remove``, audited). The
game's page shows its chat inline."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from chat.models import ChatMessage
from moderation import services as moderation
from moderation.admin.actions import ModerateMixin, reason_action
from moderation.admin.audit import ReadOnlyAdminMixin
from players.authentication import request_account

CHAT_FIELDS = ("id", "created_at", "channel", "author", "text", "removed_at", "removed_by")


class ChatMessageInline(ReadOnlyAdminMixin, admin.TabularInline):
    """A game's chat, both channels, oldest first, original text (to those who may view messages)."""

    model = ChatMessage
    fk_name = "game"
    extra = 0
    can_delete = False
    fields = CHAT_FIELDS
    readonly_fields = fields
    show_change_link = True
    verbose_name_plural = _("table chat (original text, removed messages too)")

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        return super().get_queryset(request).select_related("author", "removed_by").order_by("id")


@admin.register(ChatMessage)
class ChatMessageAdmin(ModerateMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "game", "channel", "author", "text", "created_at", "removed_at", "removed_by")
    list_filter = ("channel", ("removed_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("text", "author__username", "=game__id")
    list_select_related = ("author", "removed_by", "game")
    fields = ("game", *CHAT_FIELDS)
    readonly_fields = fields
    actions = ["remove_selected"]
    ordering = ("-id",)

    @admin.action(description=_("Remove (everyone then reads 'removed by a moderator')"), permissions=["moderate"])
    def remove_selected(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        by = request_account(request)

        def perform(message: ChatMessage, reason: str) -> str:
            moderation.moderation_chat_remove(message_id=message.pk, by=by, reason=reason)
            return gettext("removed")

        return reason_action(
            self,
            request,
            queryset,
            name="remove_selected",
            title=gettext("Remove chat messages"),
            perform=perform,
            reason_required=False,
            note=gettext("The players and spectators then read 'removed by a moderator'; the text stays here."),
        )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("chat.view_chatmessage"))
