"""Fixtures of the moderation tests: staff users with and without the right to
act, their admin clients, and helpers to drive the admin's pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from moderation.models import AuditEntry

#: What a staff member needs to look at games, accounts, tokens, the trail, the
#: reports and what moderation remembers about accounts.
VIEW_PERMISSIONS = (
    "games.view_game",
    "players.view_user",
    "players.view_apitoken",
    "moderation.view_auditentry",
    "moderation.view_report",
    "moderation.view_playerwarning",
    "moderation.view_sanction",
    "moderation.view_moderatornote",
)
MODERATE = "moderation.moderate"


def grant(user: Any, *perms: str) -> None:
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


@pytest.fixture
def make_staff(make_player: Callable[..., Any]) -> Callable[..., Any]:
    """``make_staff("mod", moderate=True)``: a staff account (not a superuser) with
    the view permissions, and the moderate permission unless told otherwise."""

    def make(username: str = "mod", *, moderate: bool = True) -> Any:
        user = make_player(username)
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        grant(user, *VIEW_PERMISSIONS, *((MODERATE,) if moderate else ()))
        return type(user).objects.get(pk=user.pk)  # no stale permission cache

    return make


@pytest.fixture
def moderator(make_staff: Callable[..., Any]) -> Any:
    return make_staff("mod")


@pytest.fixture
def mod_client(moderator: Any) -> Client:
    client = Client()
    client.force_login(moderator)
    return client


@pytest.fixture
def superuser_client(make_player: Callable[..., Any]) -> Client:
    root = make_player("root")
    root.is_staff = root.is_superuser = True
    root.save(update_fields=["is_staff", "is_superuser"])
    client = Client()
    client.force_login(root)
    return client


def game_admin_url(game_id: int, page: str = "change") -> str:
    """``page``: change, abort, seat_to_bot, seat_remove or hands."""
    return reverse(f"admin:games_game_{page}", args=[game_id])


def run_list_action(client: Client, changelist: str, action: str, ids: list[int], **form: str) -> Any:
    """A list action as the admin's pages do it: pick rows and the action (the
    page asking for a reason comes back), then confirm with ``form``."""
    selection = {"action": action, "_selected_action": [str(pk) for pk in ids]}
    first = client.post(changelist, {**selection, "index": "0"})
    assert first.status_code == 200, first.status_code
    assert b'name="apply"' in first.content, first.content[:3000]
    return client.post(changelist, {**selection, "apply": "1", **form})


def audit_actions(**filters: Any) -> list[str]:
    return list(AuditEntry.objects.filter(**filters).order_by("id").values_list("action", flat=True))
