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

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.errors import ApiError
from moderation import alts, canned, chat_cleanup, selectors
from moderation import services as moderation
from moderation.admin import durations
from moderation.admin.actions import (
    ModerateMixin,
    ModeratorPagesMixin,
    ReasonForm,
    error_text,
    reason_action,
    render_action_page,
)
from moderation.models import Sanction
from moderation.sanction_lift import sanction_lift
from moderation.second_factor import moderation_second_factor_reset
from players.models import ApiToken, User

#: Periods for a mute or a suspension from the account's page (hours; 0: until lifted).
PERIODS = durations.PERIODS

#: Fields only the moderation actions change on an existing account.
MODERATED_FIELDS = ("is_active", "is_bot")


def _user_action(
    name: str,
    description: Any,
    perform: Callable[..., str],
    *,
    reason_required: bool = False,
    note: Any = "",
    form_class: type[ReasonForm] | None = None,
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
            perform=lambda user, reason, **extra: perform(request, user, reason, **extra),
            form_class=form_class,
            # Not "Bob: suspended." (the admin capitalises a message's first letter): the name as written.
            label=lambda user: gettext("Account %(name)s") % {"name": user.username},
        )

    action.__name__ = name
    return admin.action(description=description, permissions=["moderate"])(action)


def _by(request: HttpRequest) -> User:
    """The staff member acting (the admin's pages are for logged-in staff only)."""
    return cast(User, request.user)


class SuspendForm(ReasonForm):
    """The Suspend action's form: the reason, and the suspension's chat clean-up."""

    remove_messages = durations.remove_messages_field()


def _suspend(request: HttpRequest, user: User, reason: str, remove_messages: int = 0) -> str:
    done = chat_cleanup.suspend_and_clean(
        player=user, by=_by(request), reason=reason, remove_hours=remove_messages or 0
    )
    text = gettext("suspended; games touched: %(games)s.") % {
        "games": ", ".join(map(str, done["games"])) or gettext("none")
    }
    if done["messages_removed"]:
        count = len(done["messages_removed"])
        text += " " + ngettext("%(count)d chat message removed.", "%(count)d chat messages removed.", count) % {
            "count": count
        }
    return text


def _unsuspend(request: HttpRequest, user: User, reason: str) -> str:
    moderation.moderation_player_unsuspend(player=user, by=_by(request), reason=reason)
    return gettext("reinstated.")


def _revoke_tokens(request: HttpRequest, user: User, reason: str) -> str:
    count = moderation.moderation_tokens_revoke(player=user, by=_by(request), reason=reason)
    return ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", count) % {"count": count}


def _reset_second_factor(request: HttpRequest, user: User, reason: str) -> str:
    had = moderation_second_factor_reset(player=user, by=_by(request), reason=reason)
    return gettext("second factor reset.") if had else gettext("had no second factor (reset recorded).")


def _mark_bot(is_bot: bool) -> Callable[[HttpRequest, User, str], str]:
    def perform(request: HttpRequest, user: User, reason: str) -> str:
        moderation.moderation_bot_mark(player=user, by=_by(request), is_bot=is_bot, reason=reason)
        return gettext("marked as a bot.") if is_bot else gettext("no longer marked as a bot.")

    return perform


def _canned_field(texts: dict[str, Any], labels: dict[str, Any], target: str) -> forms.ChoiceField:
    """A select of canned texts; choosing one fills the field ``target`` (keys.js),
    and with that field left empty the canned text is used."""
    field = forms.ChoiceField(
        label=_("Canned text"),
        required=False,
        choices=[("", "-"), *labels.items()],
        help_text=_("Fills the text below (with an empty text, the canned text is used)."),
    )
    field.widget.attrs["data-canned"] = f"id_{target}"
    for name, text in texts.items():
        field.widget.attrs[f"data-text-{name}"] = str(text)
    return field


class _CannedMixin:
    """Uses the canned text when the text field (``canned_target``) is left empty."""

    canned_target = "reason"
    canned_texts: dict[str, Any] = {}

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or {}  # type: ignore[misc]
        if not (data.get(self.canned_target) or "").strip() and data.get("canned"):
            data[self.canned_target] = str(self.canned_texts[data["canned"]])
        if not (data.get(self.canned_target) or "").strip():
            self.add_error(self.canned_target, gettext("This field is required."))  # type: ignore[attr-defined]
        return data


class NoteForm(_CannedMixin, forms.Form):
    canned_target = "text"
    canned_texts = canned.NOTES
    canned = _canned_field(canned.NOTES, canned.NOTE_LABELS, "text")
    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 70}),
        max_length=2000,
        label=_("Text"),
        help_text=_("Seen by moderators only, on this account's history."),
    )


class SanctionForm(_CannedMixin, forms.Form):
    canned_texts = canned.WARNINGS
    MEASURES = [
        ("warn", _("Warn (the player sees the text)")),
        ("mute", _("Mute for a period")),
        ("suspend", _("Suspend for a period")),
        ("unmute", _("Lift the mutes now")),
    ]
    measure = forms.ChoiceField(label=_("Measure"), choices=MEASURES, widget=forms.RadioSelect, initial="warn")
    period = forms.TypedChoiceField(
        label=_("Period"), coerce=int, choices=PERIODS, initial=24, help_text=_("For a mute or a suspension.")
    )
    minutes = durations.minutes_field()
    canned = _canned_field(canned.WARNINGS, canned.WARNING_LABELS, "reason")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        max_length=500,
        required=False,
        label=_("Reason"),
        help_text=_("Kept in the audit trail; a warning's text is what the player reads."),
    )
    # The chat's clean-up with a suspension (moderation.chat_cleanup).
    remove_messages = durations.remove_messages_field()


class LiftForm(forms.Form):
    sanction = forms.TypedChoiceField(label=_("Sanction"), coerce=int, choices=(), widget=forms.RadioSelect)
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        max_length=500,
        required=False,
        label=_("Reason"),
        help_text=_("Kept in the audit trail."),
    )

    def __init__(self, *args: Any, sanctions: list[Sanction], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field: forms.TypedChoiceField = self.fields["sanction"]  # type: ignore[assignment]  # declared above
        field.choices = [(s.pk, _sanction_text(s)) for s in sanctions]


def _sanction_text(sanction: Sanction) -> str:
    until = (
        gettext("until %(end)s UTC") % {"end": f"{sanction.ends_at:%Y-%m-%d %H:%M}"}
        if sanction.ends_at
        else gettext("until lifted")
    )
    kind = gettext("mute") if sanction.kind == "mute" else gettext("suspension")
    return f"{kind} ({until}): {sanction.reason}"


@admin.register(User)
class UserAdmin(ModeratorPagesMixin, DjangoUserAdmin):
    list_display = ("username", "is_bot", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_bot", "is_active", "is_staff")
    search_fields = ("username", "email", "first_name", "last_name")
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), (_("Chicken Foot"), {"fields": ("is_bot",)}))
    actions = [
        _user_action(
            "suspend",
            _("Suspend selected accounts (asks for a reason)"),
            _suspend,
            reason_required=True,
            form_class=SuspendForm,
            note=_(
                "They can no longer log in or use their tokens (all revoked); their seats in running games go to "
                "bots, their open tables are closed and their seats at others' open tables emptied."
            ),
        ),
        _user_action(
            "unsuspend",
            _("Reinstate selected accounts"),
            _unsuspend,
            note=_("They may log in again; revoked tokens stay revoked, seats stay with the bots."),
        ),
        _user_action("revoke_tokens", _("Revoke all API tokens of selected accounts"), _revoke_tokens),
        _user_action("mark_bot", _("Mark selected accounts as bots"), _mark_bot(True)),
        _user_action("unmark_bot", _("Unmark selected accounts as bots"), _mark_bot(False)),
        _user_action(
            "reset_second_factor",
            _("Reset the second factor of selected accounts (asks for a reason)"),
            _reset_second_factor,
            reason_required=True,
            note=_(
                "Their second factor and recovery codes are removed: they set up a new one at their next "
                "admin log-in (players turn it on again on their account page). Nobody resets their own."
            ),
        ),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None) -> tuple[str, ...]:
        fields = tuple(super().get_readonly_fields(request, obj))
        return fields + MODERATED_FIELDS + ("moderation_history", "alt_accounts") if obj is not None else fields

    def get_fieldsets(self, request: HttpRequest, obj: User | None = None) -> Any:
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is None:
            return fieldsets
        if not self.has_change_permission(request, obj):
            # No "Reset password" link for those who may not change accounts (it led to "Not allowed").
            fieldsets = [
                (name, {**spec, "fields": tuple(f for f in spec["fields"] if f != "password")})
                for name, spec in fieldsets
            ]
        # The history first: it is what a moderator opens an account for.
        return [
            (_("Moderation history (newest first)"), {"fields": ("moderation_history",)}),
            (_("Accounts sharing an address"), {"fields": ("alt_accounts",)}),
            *fieldsets,
        ]

    @admin.display(description=_("history"))
    def moderation_history(self, user: User) -> SafeString:
        return render_to_string("admin/moderation/history.html", {"rows": selectors.account_history(user=user)})

    @admin.display(description=_("other accounts"))
    def alt_accounts(self, user: User) -> SafeString:
        rows = alts.shared_accounts(user=user)
        return render_to_string("admin/moderation/alts.html", {"rows": rows, "days": settings.ADDRESS_HASH_DAYS})

    moderator_pages = (("note", "note_view"), ("sanction", "sanction_view"), ("lift", "lift_view"))

    def _account_to_moderate(self, request: HttpRequest, object_id: str) -> User:
        user = self.get_object(request, unquote(object_id))
        if user is None:
            raise Http404(gettext("There is no account %(id)s.") % {"id": object_id})
        if not (self.has_view_permission(request, user) and self.has_moderate_permission(request)):
            raise PermissionDenied
        return user

    def _back(self, user: User) -> HttpResponse:
        return redirect(reverse("admin:players_user_change", args=[user.pk]))

    def note_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Add a moderators' note to the account's history."""
        user = self._account_to_moderate(request, object_id)
        form = NoteForm(request.POST if request.method == "POST" else None)
        if form.is_bound and form.is_valid():
            try:
                moderation.moderation_note_add(player=user, by=_by(request), text=form.cleaned_data["text"])
            except ApiError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(
                    request, gettext("Note added to %(name)s's history.") % {"name": user.username}, messages.SUCCESS
                )
                return self._back(user)
        return render_action_page(
            request,
            self,
            title=gettext("A note about %(name)s") % {"name": user.username},
            form=form,
            objects=[],
            original=user,
            submit=gettext("Add"),
        )

    def sanction_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Warn, mute or suspend the account for a period (or lift its mutes)."""
        user = self._account_to_moderate(request, object_id)
        form = SanctionForm(request.POST if request.method == "POST" else None)
        if form.is_bound and form.is_valid():
            data, by = form.cleaned_data, _by(request)
            try:
                if data["measure"] == "warn":
                    moderation.moderation_player_warn(player=user, by=by, text=data["reason"])
                    done = gettext("Account %(name)s warned.")
                elif data["measure"] == "mute":
                    moderation.moderation_player_mute(
                        player=user,
                        by=by,
                        reason=data["reason"],
                        until=durations.until(data["period"], data.get("minutes")),
                    )
                    done = gettext("Account %(name)s muted.")
                elif data["measure"] == "suspend":
                    chat_cleanup.suspend_and_clean(
                        player=user,
                        by=by,
                        reason=data["reason"],
                        until=durations.until(data["period"], data.get("minutes")),
                        remove_hours=data.get("remove_messages") or 0,
                    )
                    done = gettext("Account %(name)s suspended.")
                else:
                    moderation.moderation_player_unmute(player=user, by=by, reason=data["reason"])
                    done = gettext("Account %(name)s unmuted.")
            except ApiError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(request, done % {"name": user.username}, messages.SUCCESS)
                return self._back(user)
        return render_action_page(
            request,
            self,
            title=gettext("Warn, mute or suspend %(name)s") % {"name": user.username},
            form=form,
            objects=[],
            original=user,
            submit=gettext("Confirm"),
            note=gettext(
                "A suspension also revokes the account's tokens and hands its seats to bots; "
                "it and a mute end by themselves after the period."
            ),
        )

    def lift_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Lift one mute or suspension in force now, before its end."""
        user = self._account_to_moderate(request, object_id)
        sanctions = list(selectors.sanctions_in_force(user=user).order_by("-starts_at", "-id"))
        form = LiftForm(request.POST if request.method == "POST" else None, sanctions=sanctions)
        if form.is_bound and form.is_valid():
            try:
                sanction_lift(
                    sanction_id=form.cleaned_data["sanction"], by=_by(request), reason=form.cleaned_data["reason"]
                )
            except ApiError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(
                    request, gettext("Sanction lifted on account %(name)s.") % {"name": user.username}, messages.SUCCESS
                )
                return self._back(user)
        return render_action_page(
            request,
            self,
            title=gettext("Lift a sanction of %(name)s") % {"name": user.username},
            form=form,
            objects=[],
            original=user,
            submit=gettext("Lift it now"),
            note=gettext("The sanctions in force. A lifted suspension reinstates the account if no other is left.")
            if sanctions
            else gettext("No sanction is in force."),
        )


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

    @admin.action(description=_("Revoke selected tokens"), permissions=["moderate"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        by_user: dict[User, list[int]] = defaultdict(list)
        for token in queryset.filter(revoked_at__isnull=True).select_related("user"):
            by_user[token.user].append(token.pk)
        for user, token_ids in by_user.items():
            moderation.moderation_tokens_revoke(player=user, by=_by(request), token_ids=token_ids)
