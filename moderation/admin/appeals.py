"""Appeals in the admin, beside the reports: the open ones first, each with its
sanction and the player's text; "Answer" lifts the sanction or upholds it, with a
text the player reads (``moderation.services.appeal_answer``, audited). The
moderator who imposed the sanction cannot answer (the service refuses)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Case, Value, When
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import ApiError
from moderation import services as moderation
from moderation.admin.actions import ModeratorPagesMixin, error_text, render_action_page
from moderation.admin.audit import ReadOnlyAdminMixin, admin_link
from moderation.models import Appeal, AppealStatus
from players.models import User


class AnswerForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[("uphold", _("Uphold the sanction")), ("lift", _("Lift the sanction"))],
        widget=forms.RadioSelect,
        initial="uphold",
    )
    answer = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        max_length=2000,
        label=_("Answer"),
        help_text=_("The player reads it; kept in the audit trail."),
    )


@admin.register(Appeal)
class AppealAdmin(ModeratorPagesMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "created_at",
        "status",
        "player_link",
        "kind",
        "sanctioned_by",
        "text",
        "answered_by",
        "answer_link",
    )
    list_filter = ("status", "sanction__kind")
    search_fields = ("sanction__player__username", "text")
    list_select_related = ("sanction__player", "sanction__moderator", "answered_by")
    fields = ("sanction", "player_link", "text", "status", "answer", "answered_by", "answered_at", "created_at")
    readonly_fields = fields
    actions = None
    moderator_pages = (("answer", "answer_view"),)

    def get_queryset(self, request: HttpRequest) -> Any:
        # The open ones first, oldest first.
        open_first = Case(When(status=AppealStatus.OPEN, then=Value(0)), default=Value(1))
        return super().get_queryset(request).order_by(open_first, "created_at")

    @admin.display(description=_("answer"))
    def answer_link(self, appeal: Appeal) -> str:
        if appeal.status != AppealStatus.OPEN:
            return appeal.answer
        url = reverse("admin:moderation_appeal_answer", args=[appeal.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, gettext("Answer"))

    @admin.display(description=_("player"))
    def player_link(self, appeal: Appeal) -> str:
        return admin_link(appeal.sanction.player, appeal.sanction.player.username)

    @admin.display(description=_("sanction"))
    def kind(self, appeal: Appeal) -> str:
        return appeal.sanction.get_kind_display()

    @admin.display(description=_("imposed by"))
    def sanctioned_by(self, appeal: Appeal) -> str:
        return appeal.sanction.moderator.username

    def answer_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        appeal = self.get_object(request, unquote(object_id))
        if appeal is None:
            raise Http404(gettext("There is no appeal %(id)s.") % {"id": object_id})
        if not (self.has_view_permission(request, appeal) and self.has_moderate_permission(request)):
            raise PermissionDenied
        form = AnswerForm(request.POST if request.method == "POST" else None)
        if form.is_bound and form.is_valid():
            try:
                moderation.appeal_answer(
                    appeal_id=appeal.pk,
                    by=cast(User, request.user),
                    lift=form.cleaned_data["decision"] == "lift",
                    answer=form.cleaned_data["answer"],
                )
            except ApiError as error:
                form.add_error(None, error_text(error))
            else:
                self.message_user(request, gettext("Appeal %(id)s answered.") % {"id": appeal.pk}, messages.SUCCESS)
                return redirect(reverse("admin:moderation_appeal_changelist") + f"?status={AppealStatus.OPEN}")
        return render_action_page(
            request,
            self,
            title=gettext("Answer the appeal of %(name)s") % {"name": appeal.sanction.player.username},
            form=form,
            objects=[appeal.sanction],
            original=appeal,
            note=gettext("The appeal: %(text)s") % {"text": appeal.text},
            submit=gettext("Answer"),
        )
