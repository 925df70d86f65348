"""The report queue: players' reports, oldest first, by state (open, assigned,
resolved) with the counts in the filter and above the list; each report's page
shows its target with context (the game and its moves; the account's history)
and one-click outcomes. Every outcome is a function of ``moderation.services``
(audited there); nothing here edits a report by hand.

Also the read-only lists of warnings, sanctions and notes (they are written by
the outcomes and by the pages of an account).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from chat import selectors as chat_selectors
from core.errors import ApiError
from moderation import selectors
from moderation import services as moderation
from moderation.admin.actions import ModerateMixin, error_text
from moderation.admin.audit import ReadOnlyAdminMixin, admin_link
from moderation.admin.dashboard import dashboard_view
from moderation.admin.games import move_sentence, seat_label, seat_names
from moderation.models import ModeratorNote, PlayerWarning, Report, ReportStatus, ReportTarget, Sanction
from players.authentication import request_account
from players.models import User

#: How long a mute or suspension from a report lasts (hours; 0: until lifted).
DURATIONS = [
    (1, _("1 hour")),
    (24, _("24 hours")),
    (72, _("3 days")),
    (168, _("7 days")),
    (720, _("30 days")),
    (0, _("until lifted")),
]
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


def until_from(hours: int) -> Any:
    return timezone.now() + timedelta(hours=hours) if hours else None


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
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        max_length=500,
        label=_("Reason"),
        help_text=_("Kept in the audit trail. A warning's player reads it; an aborted game's players see it."),
    )
    duration = forms.TypedChoiceField(
        label=_("Duration"), coerce=int, choices=DURATIONS, initial=24, help_text=_("For a mute or a suspension.")
    )
    player = forms.TypedChoiceField(
        label=_("Player"), coerce=int, choices=(), required=False, help_text=_("Whom a game's report is about.")
    )

    def __init__(self, *args: Any, players: list[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field: forms.TypedChoiceField = self.fields["player"]  # type: ignore[assignment]  # declared above
        field.choices = [("", "-")] + [(user.pk, user.username) for user in players]


@admin.register(Report)
class ReportAdmin(ModerateMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "created_at", "status", "reason", "target", "reporter", "assignee", "outcome")
    list_display_links = ("id", "created_at")
    list_filter = (StatusFilter, "reason", "target_kind", ("assignee", admin.RelatedOnlyFieldListFilter), "outcome")
    search_fields = ("account__username", "reporter__username", "text", "=game__id")
    list_select_related = ("account", "reporter", "assignee", "game")
    ordering = ("created_at", "id")
    actions = None
    change_list_template = "admin/moderation/report/change_list.html"

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
        extra = {"report_counts": selectors.report_counts(), **(extra_context or {})}
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
        form = OutcomeForm(
            request.POST if request.method == "POST" else None,
            players=players,
            initial={"reason": gettext("Reported for %(reason)s.") % {"reason": report.get_reason_display()}},
        )
        if request.method == "POST":
            if not self.has_moderate_permission(request):
                raise PermissionDenied
            done = self._act(request, report, form)
            if done is not None:
                return done
        context = {
            **self.admin_site.each_context(request),
            "title": str(report).capitalize(),
            "opts": self.opts,
            "original": report,
            "report": report,
            "form": form,
            "outcomes": self._outcomes(report),
            "can_moderate": self.has_moderate_permission(request),
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
            moves = list(game.moves.order_by("-number")[:30])
            return {
                "game": game,
                "seats": [seat_label(seat) for seat in game.seats.select_related("player").order_by("number")],
                "moves": [(m.number, move_sentence(m, names, arms)) for m in reversed(moves)],
                "moves_total": game.moves.count(),
                **chat,
            }
        if report.account is not None:
            return {"history": selectors.account_history(user=report.account)[:30], "account": report.account}
        return {}

    def _act(self, request: HttpRequest, report: Report, form: OutcomeForm) -> HttpResponse | None:
        by = request_account(request)
        outcome = request.POST.get("outcome", "")
        try:
            if outcome == "assign":
                moderation.report_assign(report_id=report.pk, by=by)
                self.message_user(
                    request, gettext("Report %(id)s is assigned to you.") % {"id": report.pk}, messages.SUCCESS
                )
                return redirect(request.path)
            if not form.is_valid():
                return None
            data = form.cleaned_data
            player = User.objects.filter(pk=data["player"]).first() if data.get("player") else None
            reason = data["reason"]
            if outcome == "dismiss":
                moderation.report_dismiss(report_id=report.pk, by=by, reason=reason)
            elif outcome == "warn":
                moderation.report_warn(report_id=report.pk, by=by, reason=reason, player=player)
            elif outcome == "mute":
                moderation.report_mute(
                    report_id=report.pk, by=by, reason=reason, until=until_from(data["duration"]), player=player
                )
            elif outcome == "suspend":
                moderation.report_suspend(
                    report_id=report.pk, by=by, reason=reason, until=until_from(data["duration"]), player=player
                )
            elif outcome == "abort":
                moderation.report_abort_game(report_id=report.pk, by=by, reason=reason)
            elif outcome == "remove":
                moderation.report_remove_message(report_id=report.pk, by=by, reason=reason)
            else:
                form.add_error(None, gettext("Choose an outcome."))
                return None
        except ApiError as error:
            form.add_error(None, error_text(error))
            return None
        report.refresh_from_db()
        self.message_user(
            request,
            gettext("Report %(id)s: %(outcome)s.") % {"id": report.pk, "outcome": report.get_outcome_display()},
            messages.SUCCESS,
        )
        return redirect(reverse("admin:moderation_report_changelist") + "?status=unresolved")


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
