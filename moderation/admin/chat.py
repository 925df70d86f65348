"""The table chat in the admin: every message with its original text (removed
ones too, with who removed them and when), a list to search (whole words) and
filter (by author, by state), and the actions: "Remove"
(``moderation.services.moderation_chat_remove``), "Remove all of the author's
messages" (in the game or of the last hours), "Restore" and "Shadow-mute the
authors" (``moderation.chat_cleanup``), all audited. The game's page shows its
chat inline.

Beside the report queue, the queue of messages the chat's filter held (approve or
reject), the filter's rules (moderators add, change and delete them; audited by
``moderation.admin.audited``) and the shadow-mutes (lift)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import connection
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.text import smart_split, unescape_string_literal
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from chat.filters import link_hosts
from chat.models import ChatFilterRule, ChatMessage, ChatShadowMute, HeldChatMessage, MessageState
from core.errors import ApiError, CoreCode
from moderation import chat_cleanup
from moderation import services as moderation
from moderation.admin.actions import ModerateMixin, can_moderate, error_text, reason_action, render_action_page
from moderation.admin.audit import ReadOnlyAdminMixin
from players.authentication import request_account

CHAT_FIELDS = ("id", "created_at", "channel", "author", "text", "state", "removed_at", "removed_by")

#: Periods for a shadow-mute (hours; 0: until lifted).
SHADOW_PERIODS = [(24, _("24 hours")), (168, _("7 days")), (720, _("30 days")), (0, _("until lifted"))]


def whole_words(term: str) -> str:
    """A case-insensitive regular expression (the database's) matching ``term`` as whole words."""
    words = [re.escape(word) for word in term.split()]
    if connection.vendor == "postgresql":
        return r"\m" + r"\s+".join(words) + r"\M"  # PostgreSQL: start and end of a word
    return r"\b" + r"\s+".join(words) + r"\b"


class AuthorsMessagesForm(forms.Form):
    SCOPES = [
        ("game", _("in the game of each selected message")),
        ("hours", _("in the last hours given, in every game")),
    ]
    scope = forms.ChoiceField(label=_("Which messages"), choices=SCOPES, widget=forms.RadioSelect, initial="game")
    hours = forms.IntegerField(
        label=_("Hours"),
        min_value=1,
        max_value=chat_cleanup.MAX_HOURS,
        initial=24,
        help_text=_("For the last hours: messages written since then."),
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=500,
        required=False,
        label=_("Reason"),
        help_text=_("Kept in the audit trail."),
    )


class ShadowMuteForm(forms.Form):
    period = forms.TypedChoiceField(label=_("Period"), coerce=int, choices=SHADOW_PERIODS, initial=24)
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=500,
        label=_("Reason"),
        help_text=_("Kept in the audit trail; the player is not told."),
    )


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
    list_display = ("id", "game", "channel", "author", "text", "state", "created_at", "removed_at", "removed_by")
    list_filter = (
        ("author", admin.RelatedOnlyFieldListFilter),
        "state",
        "channel",
        ("removed_at", admin.EmptyFieldListFilter),
        "created_at",
    )
    search_fields = ("text", "author__username", "=game__id")
    search_help_text = _('Whole words of the text ("eve" does not find "never"), an author\'s name, or a game\'s id.')
    list_select_related = ("author", "removed_by", "game")
    fields = ("game", *CHAT_FIELDS, "held_reason")
    readonly_fields = fields
    actions = ["remove_selected", "remove_authors_messages", "restore_selected", "shadow_mute_authors"]
    ordering = ("-id",)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[ChatMessage], search_term: str
    ) -> tuple[QuerySet[ChatMessage], bool]:
        """Each term (or "quoted phrase") must be a whole word of the text, the author's
        name or the game's id: a search for "eve" no longer finds "everyone"."""
        for bit in smart_split(search_term):
            if bit.startswith(('"', "'")) and bit[0] == bit[-1]:
                bit = unescape_string_literal(bit)
            if not bit.strip():
                continue
            match = Q(text__iregex=whole_words(bit)) | Q(author__username__iexact=bit)
            if bit.isdigit():
                match |= Q(game_id=int(bit))
            queryset = queryset.filter(match)
        return queryset, False

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

    @admin.action(
        description=_("Remove all messages of the selected messages' authors (in the game, or of the last hours)"),
        permissions=["moderate"],
    )
    def remove_authors_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        by = request_account(request)
        form = AuthorsMessagesForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            ids = [str(pk) for pk in queryset.values_list("pk", flat=True)]
            return render_action_page(
                request,
                self,
                title=gettext("Remove all of these authors' messages"),
                form=form,
                objects=queryset.select_related("author"),
                note=gettext(
                    "Every message of each selected message's author (not just the selected ones) is removed: "
                    "in that game, or written in the last hours in any game. Readers see them removed at once; "
                    "the text stays here and each can be restored."
                ),
                selected_action=("remove_authors_messages", ids),
            )
        data = form.cleaned_data
        rows = list(queryset.select_related("author"))
        authors = {m.author_id: m.author for m in rows}
        in_game = data["scope"] == "game"
        targets: list[tuple[int, int | None]] = sorted(
            {(m.author_id, m.game_id if in_game else None) for m in rows}, key=lambda t: (t[0], t[1] or 0)
        )
        for author_id, game_id in targets:
            author = authors[author_id]
            try:
                removed = chat_cleanup.chat_remove_by_author(
                    author=author,
                    by=by,
                    reason=data["reason"],
                    game_id=game_id,
                    hours=None if game_id is not None else data["hours"],
                )
            except ApiError as error:
                self.message_user(request, f"{author}: {error_text(error)}", messages.ERROR)
                continue
            where = (
                gettext("in game %(game)s") % {"game": game_id}
                if game_id is not None
                else gettext("in the last %(hours)s hours") % {"hours": data["hours"]}
            )
            self.message_user(
                request,
                ngettext(
                    "%(author)s: %(count)d message removed %(where)s.",
                    "%(author)s: %(count)d messages removed %(where)s.",
                    len(removed),
                )
                % {"author": author.username, "count": len(removed), "where": where},
                messages.SUCCESS,
            )
        return None

    @admin.action(description=_("Restore selected removed messages"), permissions=["moderate"])
    def restore_selected(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        by = request_account(request)

        def perform(message: ChatMessage, reason: str) -> str:
            if message.removed_at is None:
                raise ApiError(gettext("It is not removed."), code=CoreCode.VALIDATION_ERROR)
            chat_cleanup.chat_restore(message_id=message.pk, by=by, reason=reason)
            return gettext("restored")

        return reason_action(
            self,
            request,
            queryset,
            name="restore_selected",
            title=gettext("Restore chat messages"),
            perform=perform,
            reason_required=False,
            note=gettext("Their channel reads the text again, at once."),
        )

    @admin.action(description=_("Shadow-mute the selected messages' authors"), permissions=["moderate"])
    def shadow_mute_authors(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        by = request_account(request)
        form = ShadowMuteForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            ids = [str(pk) for pk in queryset.values_list("pk", flat=True)]
            return render_action_page(
                request,
                self,
                title=gettext("Shadow-mute these authors"),
                form=form,
                objects=queryset.select_related("author"),
                note=gettext(
                    "From now on their new messages are read by them alone: they are answered and shown as if "
                    "posted, nobody else reads them. Messages already written stay as they are."
                ),
                selected_action=("shadow_mute_authors", ids),
            )
        hours = form.cleaned_data["period"]
        until = timezone.now() + timedelta(hours=hours) if hours else None
        authors = {m.author_id: m.author for m in queryset.select_related("author")}
        for author in authors.values():
            try:
                chat_cleanup.chat_shadow_mute(player=author, by=by, reason=form.cleaned_data["reason"], until=until)
            except ApiError as error:
                self.message_user(request, f"{author}: {error_text(error)}", messages.ERROR)
            else:
                self.message_user(
                    request, gettext("%(name)s is shadow-muted.") % {"name": author.username}, messages.SUCCESS
                )
        return None

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("chat.view_chatmessage"))


@admin.register(HeldChatMessage)
class HeldChatMessageAdmin(ModerateMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """The queue of messages the chat's filter held, oldest first: nobody but the
    author's moderators reads them until one is approved."""

    list_display = ("id", "created_at", "game", "channel", "author", "text", "held_reason")
    list_filter = (("author", admin.RelatedOnlyFieldListFilter), "channel")
    list_select_related = ("author", "game")
    fields = ("game", "id", "created_at", "channel", "author", "text", "held_reason", "state")
    readonly_fields = fields
    actions = ["approve_selected", "reject_selected"]
    ordering = ("id",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[HeldChatMessage]:
        return super().get_queryset(request).filter(state=MessageState.HELD)

    def _review(self, request: HttpRequest, queryset: QuerySet[Any], *, approve: bool) -> HttpResponse | None:
        by = request_account(request)

        def perform(message: ChatMessage, reason: str) -> str:
            chat_cleanup.chat_review(message_id=message.pk, by=by, approve=approve, reason=reason)
            return gettext("approved: its channel reads it") if approve else gettext("rejected: nobody reads it")

        return reason_action(
            self,
            request,
            queryset,
            name="approve_selected" if approve else "reject_selected",
            title=gettext("Approve held messages") if approve else gettext("Reject held messages"),
            perform=perform,
            reason_required=False,
        )

    @admin.action(description=_("Approve selected messages (their channel reads them)"), permissions=["moderate"])
    def approve_selected(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return self._review(request, queryset, approve=True)

    @admin.action(description=_("Reject selected messages (nobody reads them)"), permissions=["moderate"])
    def reject_selected(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        return self._review(request, queryset, approve=False)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("chat.view_chatmessage"))


class ChatFilterRuleForm(forms.ModelForm):
    class Meta:
        model = ChatFilterRule
        fields = ("pattern", "kind", "action", "active")
        help_texts = {
            "pattern": _(
                "Plain text, never a regular expression: a word or phrase (matched as whole words, any case), "
                "or a domain such as example.com (its subdomains too)."
            )
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        pattern = (data.get("pattern") or "").strip()
        if data.get("kind") == "link":
            hosts = link_hosts(pattern)
            if not hosts:
                self.add_error("pattern", gettext("Give a domain, such as example.com."))
            else:
                data["pattern"] = hosts[0]
        elif not pattern:
            self.add_error("pattern", gettext("Give a word or a phrase."))
        else:
            data["pattern"] = " ".join(pattern.split()).lower()
        return data


@admin.register(ChatFilterRule)
class ChatFilterRuleAdmin(ModerateMixin, admin.ModelAdmin):
    """The chat filter's rules: moderators (``moderation.moderate``) add, change and
    delete them; every change is audited (``moderation.admin.audited``) and reaches
    every server process at its next message (``chat.filters``)."""

    form = ChatFilterRuleForm
    list_display = ("pattern", "kind", "action", "active", "created_at")
    list_filter = ("kind", "action", "active")
    search_fields = ("pattern",)
    list_editable = ("action", "active")
    actions = None  # deleting is one rule at a time, from its page

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("chat.view_chatmessage"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can_moderate(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_moderate(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can_moderate(request)


@admin.register(ChatShadowMute)
class ChatShadowMuteAdmin(ModerateMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Shadow-mutes (made from the chat's list), newest first; lifted here."""

    list_display = ("account", "moderator", "starts_at", "ends_at", "lifted_at", "reason")
    list_filter = ("lifted_at",)
    search_fields = ("account__username", "reason")
    list_select_related = ("account", "moderator")
    actions = ["lift_selected"]

    @admin.action(description=_("Lift the selected accounts' shadow-mutes"), permissions=["moderate"])
    def lift_selected(self, request: HttpRequest, queryset: QuerySet[ChatShadowMute]) -> HttpResponse | None:
        by = request_account(request)

        def perform(mute: ChatShadowMute, reason: str) -> str:
            lifted = chat_cleanup.chat_shadow_unmute(player=mute.account, by=by, reason=reason)
            return gettext("lifted") if lifted else gettext("was not in force")

        return reason_action(
            self,
            request,
            queryset.select_related("account"),
            name="lift_selected",
            title=gettext("Lift shadow-mutes"),
            perform=perform,
            reason_required=False,
            note=gettext("Their new messages are read by everyone again; those written meanwhile stay unread."),
        )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("chat.view_chatmessage"))
