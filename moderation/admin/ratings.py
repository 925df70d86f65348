"""Ratings in the admin: to read, filter and search, never to edit.

Ratings change only when a rated match finishes (``ratings.services``) or when a
moderator voids a match's rating effect (the games admin's action "Void the
rating effect", through ``moderation.services``, audited)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from moderation.admin.audit import ReadOnlyAdminMixin, admin_link
from ratings.models import Rating, RatingChange
from ratings.skill import PROVISIONAL_GAMES


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "user",
        "pool",
        "ordinal_shown",
        "mu",
        "sigma",
        "games",
        "wins",
        "provisional",
        "is_bot",
        "updated_at",
    )
    list_filter = ("pool", "is_bot")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    ordering = ("pool", "-ordinal", "user_id")
    fields = ("user", "pool", "ordinal", "mu", "sigma", "games", "wins", "is_bot", "updated_at")
    readonly_fields = fields
    actions = None
    show_full_result_count = False  # a count of every rating on each page is not worth its cost

    @admin.display(description=_("rating (mu - 3 sigma)"), ordering="-ordinal")
    def ordinal_shown(self, rating: Rating) -> str:
        return f"{rating.ordinal:.2f}"

    @admin.display(description=_("provisional"), boolean=True)
    def provisional(self, rating: Rating) -> bool:
        return rating.games < PROVISIONAL_GAMES


class VoidedFilter(admin.SimpleListFilter):
    title = _("voided")
    parameter_name = "voided"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", gettext("voided")), ("no", gettext("counted"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[RatingChange]) -> QuerySet[RatingChange]:
        if self.value() in ("yes", "no"):
            return queryset.filter(voided_at__isnull=self.value() == "no")
        return queryset


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "created_at",
        "user",
        "game_link",
        "pool",
        "rank",
        "players",
        "won",
        "forfeit",
        "delta",
        "voided_at",
    )
    list_filter = ("pool", VoidedFilter, "forfeit", "won")
    search_fields = ("user__username", "=game__id")
    list_select_related = ("user", "game")
    date_hierarchy = "created_at"
    fields = (
        "user",
        "game_link",
        "pool",
        "rank",
        "players",
        "won",
        "forfeit",
        "mu_before",
        "sigma_before",
        "mu_after",
        "sigma_after",
        "created_at",
        "voided_at",
    )
    readonly_fields = fields
    actions = None

    @admin.display(description=_("game"), ordering="game")
    def game_link(self, change: RatingChange) -> str:
        return admin_link(change.game)

    @admin.display(description=_("rating change"))
    def delta(self, change: RatingChange) -> str:
        return f"{change.ordinal_after - change.ordinal_before:+.2f}"
