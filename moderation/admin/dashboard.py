"""The moderators' dashboard (``/admin/moderation/report/dashboard/``): what reports
arrive and how old the open ones are, the sanctions given, how busy the site is -
charts drawn from the database (``moderation.selectors.dashboard_figures``) as
plain SVG on the server (``moderation.charts``). Anyone who may see the report
queue (the Moderators group) may see it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

from moderation import selectors
from moderation.charts import Series, bar_chart, line_chart
from moderation.models import ReportReason, SanctionKind

TEMPLATE = "admin/moderation/dashboard.html"
REASONS: dict[str, Any] = {
    ReportReason.CHEATING: _("cheating"),
    ReportReason.ABUSE: _("abuse"),
    ReportReason.SPAM: _("spam"),
    ReportReason.STALLING: _("stalling"),
    ReportReason.OFFENSIVE_NAME: _("offensive name"),
    ReportReason.OTHER: _("other"),
}
KINDS: dict[str, Any] = {SanctionKind.SUSPENSION: _("suspensions"), SanctionKind.MUTE: _("mutes")}
AGES = (_("under 1 h"), _("1-6 h"), _("6-24 h"), _("1-3 days"), _("3-7 days"), _("over 7 days"))


def dashboard_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    figures = selectors.dashboard_figures()
    days = [day.strftime("%m-%d") for day in figures.days]
    weeks = [week.strftime("%m-%d") for week in figures.weeks]
    charts: list[dict[str, Any]] = [
        {
            "id": "reports-per-day",
            "title": _("Reports per day, by reason"),
            "svg": bar_chart(
                str(_("Reports per day, by reason")),
                days,
                [Series(str(REASONS.get(r, r)), v) for r, v in figures.reports_by_reason.items()]
                or [Series("", [0] * len(days))],
                summary=str(_("Reports made on each of the last 30 days (UTC), stacked by reason.")),
            ),
        },
        {
            "id": "open-by-age",
            "title": _("Open reports by age"),
            "svg": bar_chart(
                str(_("Open reports by age")),
                [str(age) for age in AGES],
                [Series(str(_("open reports")), figures.open_by_age)],
                summary=str(_("Reports not yet resolved, by how long ago they were made.")),
            ),
        },
        {
            "id": "sanctions-per-week",
            "title": _("Sanctions per week"),
            "svg": bar_chart(
                str(_("Sanctions per week")),
                weeks,
                [Series(str(KINDS.get(k, k)), v) for k, v in figures.sanctions_by_kind.items()]
                or [Series("", [0] * len(weeks))],
                summary=str(_("Mutes and suspensions started in each of the last 12 weeks (by the week's Monday).")),
            ),
        },
        {
            "id": "activity-per-day",
            "title": _("Games and active players per day"),
            "svg": line_chart(
                str(_("Games and active players per day")),
                days,
                [
                    Series(str(_("games created")), figures.games_per_day),
                    Series(str(_("players who moved")), figures.players_per_day),
                ],
                summary=str(_("Games created and accounts that made a move, on each of the last 30 days (UTC).")),
            ),
        },
        {
            "id": "messages-removed",
            "title": _("Chat messages removed per day"),
            "svg": bar_chart(
                str(_("Chat messages removed per day")),
                days,
                [Series(str(_("messages removed")), figures.messages_removed_per_day)],
                summary=str(_("Table chat messages a moderator removed, on each of the last 30 days (UTC).")),
            ),
        },
    ]
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Moderation dashboard"),
        "opts": model_admin.opts,
        "charts": charts,
        "open_reports": sum(figures.open_by_age),
        **selectors.waiting_counts(),
    }
    return TemplateResponse(request, TEMPLATE, context)
