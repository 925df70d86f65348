"""The report queue: players' reports, oldest first, by state (open, assigned,
resolved) with the counts in the filter and above the list; each report's page
shows its target with context (the game and its moves; the account's history)
and one-click outcomes. Every outcome is a function of ``moderation.services``
(audited there); nothing here edits a report by hand.

Also the read-only lists of warnings, sanctions and notes (they are written by
the outcomes and by the pages of an account).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from chat import selectors as chat_selectors
from core.errors import ApiError, CoreCode
from moderation import canned, evidence, report_groups, selectors
from moderation import services as moderation
from moderation.admin import durations
from moderation.admin.actions import ModerateMixin, error_text, reason_action
from moderation.admin.audit import ReadOnlyAdminMixin, admin_link
from moderation.admin.dashboard import dashboard_view
from moderation.admin.games import move_sentence, seat_label, seat_names
from moderation.models import ModeratorNote, PlayerWarning, Report, ReportStatus, ReportTarget, Sanction
from moderation.services import MODERATE_PERMISSION
from players.authentication import request_account
from players.models import User

#: How long a mute or suspension from a report lasts (hours; 0: until lifted).
DURATIONS = durations.PERIODS
OUTCOMES: dict[str, Any] = {
    "dismiss": _("Dismiss"),
    "warn": _("Warn the player"),
    "mute": _("Mute"),
    "suspend": _("Suspend"),
    "abort": _("Abort the game"),
    "remove": _("Remove the message"),
}
#: A report's state in words (the filter's choices).
STATUS_WORDS: dict[str, Any] = {
    ReportStatus.OPEN: _("open"),
    ReportStatus.ASSIGNED: _("assigned"),
    ReportStatus.RESOLVED: _("resolved"),
}


class StatusFilter(admin.SimpleListFilter):
    """open / assigned / resolved / not resolved, each with its count."""

    title = _("state")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        counts = selectors.report_counts()
        unresolved = counts[ReportStatus.OPEN] + counts[ReportStatus.ASSIGNED]
        return [
            ("unresolved", gettext("open or assigned (%(count)s)") % {"count": unresolved}),
            *((status, f"{STATUS_WORDS.get(status, status)} ({counts[status]})") for status in ReportStatus.values),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Report]) -> QuerySet[Report]:
        if self.value() == "unresolved":
            return queryset.exclude(status=ReportStatus.RESOLVED)
        if self.value() in ReportStatus.values:
            return queryset.filter(status=self.value())
        return queryset


class OutcomeForm(forms.Form):
    canned = forms.ChoiceField(
        label=_("Canned text"),
        required=False,
        choices=(),
        help_text=_("Fills the reason (with an empty reason, the canned text is used)."),
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        max_length=500,
        required=False,
        label=_("Reason"),
        help_text=_("Kept in the audit trail. A warning's player reads it; an aborted game's players see it."),
    )
    duration = forms.TypedChoiceField(
        label=_("Duration"), coerce=int, choices=DURATIONS, initial=24, help_text=_("For a mute or a suspension.")
    )
    minutes = durations.minutes_field()
    remove_messages = durations.remove_messages_field()
    player = forms.TypedChoiceField(
        label=_("Player"), coerce=int, choices=(), required=False, help_text=_("Whom a game's report is about.")
    )
    whole_group = forms.BooleanField(
        label=_("Resolve the whole group"),
        required=False,
        initial=True,
        help_text=_("Every open report about this target gets the same outcome (the measure is taken once)."),
    )

    def __init__(self, *args: Any, players: list[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field: forms.TypedChoiceField = self.fields["player"]  # type: ignore[assignment]  # declared above
        field.choices = [("", "-")] + [(user.pk, user.username) for user in players]
        canned_field: forms.ChoiceField = self.fields["canned"]  # type: ignore[assignment]  # declared above
        canned_field.choices = [("", "-"), *canned.WARNING_LABELS.items()]
        canned_field.widget.attrs["data-canned"] = "id_reason"
        for name, text in canned.WARNINGS.items():
            canned_field.widget.attrs[f"data-text-{name}"] = str(text)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not (data.get("reason") or "").strip() and data.get("canned"):
            data["reason"] = str(canned.WARNINGS[data["canned"]])
        return data


class CommentForm(forms.Form):
    comment = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "cols": 70}),
        max_length=2000,
        label=_("Note for the moderators"),
        help_text=_("Internal discussion of this report: players never see it."),
    )


def moderators() -> list[User]:
    """The accounts a report can be assigned to."""
    found = User.objects.filter(is_active=True, is_staff=True).order_by("username")
    return [user for user in found if user.has_perm(MODERATE_PERMISSION)]


class ReporterFilter(admin.SimpleListFilter):
    """Reports by one reporter (those who have reported), with their counts."""

    title = _("reporter")
    parameter_name = "reporter"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        rows = (
            Report.objects.values_list("reporter_id", "reporter__username")
            .annotate(n=Count("id"))
            .order_by("reporter__username")
        )
        return [(str(pk), f"{name} ({count})") for pk, name, count in rows]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Report]) -> QuerySet[Report]:
        value = self.value()
        return queryset.filter(reporter_id=int(value)) if value and value.isdigit() else queryset


@admin.register(Report)
class ReportAdmin(ModerateMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "created_at", "status", "reason", "target", "group", "reporter", "assignee", "outcome")
    list_display_links = ("id", "created_at")
    list_filter = (
        StatusFilter,
        "reason",
        "target_kind",
        ReporterFilter,
        ("assignee", admin.RelatedOnlyFieldListFilter),
        "outcome",
    )
    search_fields = ("account__username", "reporter__username", "text", "=game__id")
    list_select_related = ("account", "reporter", "assignee", "game", "message")
    ordering = ("created_at", "id")
    actions = ("assign_selected", "unassign_selected", "dismiss_selected")
    change_list_template = "admin/moderation/report/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Report]:
        return report_groups.with_group_size(super().get_queryset(request))

    @admin.display(description=_("open on target"))
    def group(self, report: Report) -> str:
        """How many open reports are about this report's target."""
        count = getattr(report, "open_on_target", None)
        return str(count) if count else "-"

    @admin.action(description=_("Assign selected reports to me"), permissions=["moderate"])
    def assign_selected(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._each(request, queryset, lambda r: moderation.report_assign(report_id=r.pk, by=request_account(request)))

    @admin.action(description=_("Unassign selected reports (back to the queue)"), permissions=["moderate"])
    def unassign_selected(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        by = request_account(request)
        self._each(request, queryset, lambda r: report_groups.report_reassign(report_id=r.pk, by=by, to=None))

    @admin.action(description=_("Dismiss selected reports (asks for a reason)"), permissions=["moderate"])
    def dismiss_selected(self, request: HttpRequest, queryset: QuerySet[Report]) -> HttpResponse | None:
        def perform(report: Report, reason: str) -> str:
            moderation.report_dismiss(report_id=report.pk, by=request_account(request), reason=reason)
            return gettext("dismissed.")

        return reason_action(
            self,
            request,
            queryset,
            name="dismiss_selected",
            title=gettext("Dismiss reports"),
            perform=perform,
            reason_required=False,
            note=gettext("These reports are resolved as dismissed; nothing happens to their targets."),
        )

    def _each(self, request: HttpRequest, queryset: QuerySet[Report], act: Any) -> None:
        done = 0
        for report in queryset:
            try:
                act(report)
            except ApiError as error:
                self.message_user(request, f"{report}: {error_text(error)}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request, ngettext("%(count)s report done.", "%(count)s reports done.", done) % {"count": done}
            )

    @admin.display(description=_("target"))
    def target(self, report: Report) -> str:
        if report.target_kind == ReportTarget.GAME:
            return admin_link(report.game, gettext("game %(id)s") % {"id": report.game_id})
        if report.target_kind == ReportTarget.MESSAGE:
            return admin_link(
                report.message,
                gettext("message %(message)s in game %(game)s")
                % {"message": report.message_id, "game": report.game_id},
            )
        return admin_link(report.account, report.account.username if report.account else None)

    def get_urls(self) -> list[Any]:
        info = self.opts.app_label, self.opts.model_name
        view = self.admin_site.admin_view(lambda request: dashboard_view(self, request))
        return [path("dashboard/", view, name="{}_{}_dashboard".format(*info)), *super().get_urls()]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        extra = {
            "report_counts": selectors.report_counts(),
            "reason_stats": report_groups.reason_stats(),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """The report with its target in context, and the outcomes (one click each)."""
        report = self.get_object(request, unquote(object_id))
        if report is None:
            raise Http404(gettext("There is no report %(id)s.") % {"id": object_id})
        if not self.has_view_permission(request, report):
            raise PermissionDenied
        players = self._players(report)
        posted = request.POST if request.method == "POST" else None
        outcome = request.POST.get("outcome", "") if posted else ""
        form = OutcomeForm(
            posted if outcome not in ("comment", "reassign", "unassign") else None,
            players=players,
            # What a warned player reads: the behaviour and the rule, never that they were reported.
            initial={"reason": canned.warning_for(report.reason), "whole_group": True},
        )
        comment_form = CommentForm(posted if outcome == "comment" else None)
        if request.method == "POST":
            if not self.has_moderate_permission(request):
                raise PermissionDenied
            done = self._act(request, report, form, comment_form)
            if done is not None:
                return done
        group = report_groups.report_group(report)
        context = {
            **self.admin_site.each_context(request),
            "title": str(report).capitalize(),
            "opts": self.opts,
            "original": report,
            "report": report,
            "form": form,
            "comment_form": comment_form,
            "comments": list(report.comments.select_related("author")),
            "outcomes": self._outcomes(report),
            "can_moderate": self.has_moderate_permission(request),
            "group": group if group.count > 1 else None,
            "retaliation": evidence.retaliation_of(report),
            "moderators": moderators(),
            **self._target_context(report),
        }
        return TemplateResponse(request, "admin/moderation/report/report.html", context)

    @staticmethod
    def _players(report: Report) -> list[User]:
        if report.game is None:
            return []
        players = [seat.player for seat in report.game.seats.select_related("player") if seat.player is not None]
        if report.target_kind == ReportTarget.MESSAGE and report.account is not None:
            # The message's author first (the default), seated or a spectator.
            players = [report.account, *(p for p in players if p.pk != report.account_id)]
        return players

    @staticmethod
    def _outcomes(report: Report) -> list[tuple[str, str]]:
        names = ["dismiss", "warn", "mute", "suspend"] + (["abort"] if report.game_id else [])
        if report.target_kind == ReportTarget.MESSAGE:
            names.insert(1, "remove")
        return [(name, OUTCOMES[name]) for name in names]

    @staticmethod
    def _target_context(report: Report) -> dict[str, Any]:
        chat = {}
        if report.message is not None:  # the chat around the message (its channel), original text
            chat = {"chat": chat_selectors.messages_around(message=report.message), "chat_message": report.message}
        if report.game is not None:
            game = report.game
            names = seat_names(game)
            arms = int((game.ruleset or {}).get("spinner_arms", 4))
            rows = evidence.move_rows(game, last=30)
            timeouts = evidence.seat_timeouts(game)
            seats = list(game.seats.select_related("player").order_by("number"))
            return {
                "game": game,
                "seats": [seat_label(seat) for seat in seats],
                "seat_rows": [(seat.number, seat_label(seat), timeouts.get(seat.number, 0), seat) for seat in seats],
                "moves": [(row, move_sentence(row.move, names, arms)) for row in rows],
                "moves_total": game.moves.count(),
                **chat,
            }
        if report.account is not None:
            return {
                "history": selectors.account_history(user=report.account)[:30],
                "account": report.account,
                "evidence": evidence.account_evidence(report.account),
            }
        return {}

    def _act(
        self, request: HttpRequest, report: Report, form: OutcomeForm, comment_form: CommentForm
    ) -> HttpResponse | None:
        by = request_account(request)
        outcome = request.POST.get("outcome", "")
        if outcome in ("assign", "reassign", "unassign", "comment"):
            try:
                return self._act_on_case(request, report, outcome, by, comment_form)
            except ApiError as error:
                self.message_user(request, error_text(error), messages.ERROR)
                return redirect(request.path)
        try:
            if not form.is_valid():
                return None
            data = form.cleaned_data
            if outcome not in report_groups.OUTCOMES:
                form.add_error(None, gettext("Choose an outcome."))
                return None
            player = User.objects.filter(pk=data["player"]).first() if data.get("player") else None
            resolved = report_groups.report_group_resolve(
                report_id=report.pk,
                by=by,
                outcome=outcome,
                reason=data["reason"],
                until=durations.until(data["duration"], data.get("minutes")),
                player=player,
                group=bool(data.get("whole_group")),
                remove_hours=data.get("remove_messages") or 0,
            )
        except ApiError as error:
            form.add_error(None, error_text(error))
            return None
        report.refresh_from_db()
        done = gettext("Report %(id)s: %(outcome)s.") % {"id": report.pk, "outcome": report.get_outcome_display()}
        if len(resolved) > 1:
            others = ", ".join(str(r.pk) for r in resolved[1:])
            done += " " + gettext("Resolved with it: reports %(ids)s.") % {"ids": others}
        self.message_user(request, done, messages.SUCCESS)
        return redirect(reverse("admin:moderation_report_changelist") + "?status=unresolved")

    def _act_on_case(
        self, request: HttpRequest, report: Report, outcome: str, by: User, comment_form: CommentForm
    ) -> HttpResponse | None:
        """Take, give, put back or discuss a report (it stays in the queue)."""
        if outcome == "assign":
            moderation.report_assign(report_id=report.pk, by=by)
            done = gettext("Report %(id)s is assigned to you.") % {"id": report.pk}
        elif outcome == "reassign" and request.POST.get("assign_to"):
            to = (
                User.objects.filter(pk=request.POST["assign_to"]).first()
                if request.POST["assign_to"].isdigit()
                else None
            )
            if to is None:
                raise ApiError(gettext("Choose a moderator."), code=CoreCode.VALIDATION_ERROR)
            report_groups.report_reassign(report_id=report.pk, by=by, to=to)
            done = gettext("Report %(id)s is assigned to %(name)s.") % {"id": report.pk, "name": to.username}
        elif outcome in ("reassign", "unassign"):
            report_groups.report_reassign(report_id=report.pk, by=by, to=None)
            done = gettext("Report %(id)s is back in the queue, unassigned.") % {"id": report.pk}
        else:
            if not comment_form.is_valid():
                return None
            report_groups.report_comment_add(report_id=report.pk, by=by, text=comment_form.cleaned_data["comment"])
            done = gettext("Your note on report %(id)s is kept.") % {"id": report.pk}
        self.message_user(request, done, messages.SUCCESS)
        return redirect(request.path)


class _HistoryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    actions = None

    @admin.display(description=_("player"), ordering="player__username")
    def player_link(self, obj: Any) -> str:
        return admin_link(obj.player, obj.player.username)


@admin.register(PlayerWarning)
class PlayerWarningAdmin(_HistoryAdmin):
    list_display = ("created_at", "player_link", "moderator", "text", "acknowledged_at")
    list_filter = (("moderator", admin.RelatedOnlyFieldListFilter), "created_at")
    search_fields = ("player__username", "text")
    list_select_related = ("player", "moderator")


@admin.register(Sanction)
class SanctionAdmin(_HistoryAdmin):
    list_display = ("starts_at", "kind", "player_link", "moderator", "ends_at", "lifted_at", "reason")
    list_filter = ("kind", ("moderator", admin.RelatedOnlyFieldListFilter), "lifted_at")
    search_fields = ("player__username", "reason")
    list_select_related = ("player", "moderator")


@admin.register(ModeratorNote)
class ModeratorNoteAdmin(_HistoryAdmin):
    list_display = ("created_at", "player_link", "author", "text")
    list_filter = (("author", admin.RelatedOnlyFieldListFilter),)
    search_fields = ("player__username", "text")
    list_select_related = ("player", "author")
