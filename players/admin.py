"""Minimal moderation: accounts (suspend = untick "active"; bots flagged) and tokens."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from players import services
from players.models import ApiToken, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("username", "is_bot", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_bot", "is_active", "is_staff")
    fieldsets = (*DjangoUserAdmin.fieldsets, ("Chicken Foot", {"fields": ("is_bot",)}))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
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

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        for token in queryset.filter(revoked_at__isnull=True):
            services.token_revoke(token=token)
