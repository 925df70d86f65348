"""What every moderation screen of the admin shares: the reason form, the
"moderate" permission check, and one page that asks for a reason before an
action runs (for list actions on selected rows and for one game's actions).

The admin stays thin: a screen validates a form and calls one function of
``moderation.services``; a refusal (an ``ApiError`` with its code) is shown on
the page, never swallowed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import ApiError
from moderation.services import MODERATE_PERMISSION

ACTION_TEMPLATE = "admin/moderation/action_form.html"


def can_moderate(request: HttpRequest) -> bool:
    """Acting needs ``moderation.moderate`` (superusers have every permission);
    Django's view permissions only let staff look."""
    return request.user.is_active and request.user.is_staff and request.user.has_perm(MODERATE_PERMISSION)


class ModerateMixin:
    """For a ModelAdmin: ``@admin.action(permissions=["moderate"])`` checks this."""

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return can_moderate(request)


class ModeratorPagesMixin(ModerateMixin, admin.ModelAdmin):
    """For a ModelAdmin whose rows have moderators' pages of their own: the change page
    learns whether the viewer may act (``can_moderate``, for its buttons), and each
    ``(suffix, view method)`` of ``moderator_pages`` is served at ``<object_id>/<suffix>/``,
    named ``<app>_<model>_<method without _view>`` (``admin:games_game_abort``)."""

    moderator_pages: tuple[tuple[str, str], ...] = ()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        extra = {"can_moderate": self.has_moderate_permission(request), **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra)

    def get_urls(self) -> list[Any]:
        prefix = f"{self.opts.app_label}_{self.opts.model_name}"
        wrap = self.admin_site.admin_view
        own = [
            path(
                f"<path:object_id>/{suffix}/", wrap(getattr(self, view)), name=f"{prefix}_{view.removesuffix('_view')}"
            )
            for suffix, view in self.moderator_pages
        ]
        return own + super().get_urls()  # first: the default "<object_id>/" would catch these


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=500,
        label=_("Reason"),
        help_text=_("Kept in the audit trail; for a game, also shown to its players."),
    )

    def __init__(self, *args: Any, reason_required: bool = True, help_text: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = reason_required
        if help_text:  # what happens to the reason, when it is not shown to the game's players
            self.fields["reason"].help_text = help_text


def error_text(error: ApiError) -> str:
    return f"{error.detail} ({error.code})"


def render_action_page(
    request: HttpRequest,
    model_admin: admin.ModelAdmin,
    *,
    title: str,
    form: forms.Form,
    objects: Iterable[Model],
    original: Model | None = None,
    note: str = "",
    submit: str = "",
    selected_action: tuple[str, list[Any]] | None = None,
) -> TemplateResponse:
    """The page that asks for a reason (and, for seat actions, a seat)."""
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "objects": list(objects),
        "original": original,
        "note": note,
        "submit": submit or gettext("Confirm"),
        "opts": model_admin.model._meta,
        "action_name": selected_action[0] if selected_action else None,
        "selected_ids": selected_action[1] if selected_action else [],
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, ACTION_TEMPLATE, context)


def reason_action(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet[Any],
    *,
    name: str,
    title: str,
    perform: Callable[..., str],
    reason_required: bool = True,
    note: str = "",
    label: Callable[[Any], str] = str,
    form_class: type[ReasonForm] | None = None,
) -> HttpResponse | None:
    """The body of a list action that first asks for a reason.

    The first request (from the changelist) shows the form; the form posts back
    to the changelist with the same action and rows plus ``apply``. Then
    ``perform(obj, reason)`` runs once per row and returns a line for the
    message; refusals are reported row by row and do not stop the others. A
    ``form_class`` (a ReasonForm with more fields) passes its other fields to
    ``perform`` as keywords.
    """
    form = (form_class or ReasonForm)(
        request.POST if "apply" in request.POST else None, reason_required=reason_required
    )
    if not form.is_valid():
        ids = [str(pk) for pk in queryset.values_list("pk", flat=True)]
        return render_action_page(
            request, model_admin, title=title, form=form, objects=queryset, note=note, selected_action=(name, ids)
        )
    for obj in queryset:
        try:
            extra = {key: value for key, value in form.cleaned_data.items() if key != "reason"}
            done = perform(obj, form.cleaned_data["reason"], **extra)
        except ApiError as error:
            model_admin.message_user(request, f"{label(obj)}: {error_text(error)}", messages.ERROR)
        else:
            model_admin.message_user(request, f"{label(obj)}: {done}", messages.SUCCESS)
    return None
