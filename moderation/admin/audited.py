"""One audit mechanism for every change made in the admin.

``audit_every_admin(site)`` (called once the admin has discovered every app's
``admin`` module, in ``ModerationConfig.ready``) gives each registered ModelAdmin
the hooks of ``AuditedAdmin``, so no admin needs to remember to audit:

* a saved form (add or change, list-editable rows too) is ``admin_add`` /
  ``admin_change`` with the changed fields' old and new values;
* a deletion (one object or "delete selected") is ``admin_delete``;
* a list action that has run (not the page that first asks for a reason) is
  ``admin_action`` with the action's name and the selected rows, unless what it
  called wrote an audit entry of its own (``moderation.services`` do), so the
  trail holds one entry per act; an action whose every row was refused (it told
  only of errors and warnings) changed nothing and leaves none.

The entry names the account acting, and the player and game concerned when the
object is one or points at one (``user``/``player``/``game``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Max, Model, QuerySet
from django.http import HttpRequest, HttpResponseRedirect

from moderation.models import AuditAction, AuditEntry
from players.models import User

ActionFunc = Callable[[admin.ModelAdmin, HttpRequest, QuerySet[Any]], Any]


def _label(obj: Model | type[Model]) -> str:
    return f"{obj._meta.app_label}.{obj._meta.model_name}"


def _plain(value: Any) -> Any:
    """A value as JSON can keep it."""
    if isinstance(value, Model):
        return value.pk
    if isinstance(value, QuerySet):
        return [_plain(v) for v in value]
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str, dict)):
        return value
    return str(value)


def _concerned(obj: Model | None) -> tuple[User | None, int | None]:
    """The player and the game an object is or points at."""
    if obj is None:
        return None, None
    if isinstance(obj, User):
        return obj, None
    player = next((getattr(obj, name) for name in ("user", "player", "author", "creator") if _is_user(obj, name)), None)
    if _label(obj) == "games.game":
        return player, obj.pk
    return player, getattr(obj, "game_id", None)


def _is_user(obj: Model, name: str) -> bool:
    try:
        field = obj._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return getattr(field, "related_model", None) is User


def _acting(request: HttpRequest) -> User | None:
    user = request.user
    return user if isinstance(user, User) else None


def audit_admin(
    request: HttpRequest, *, action: str, obj: Model | None, details: dict[str, Any], reason: str = ""
) -> AuditEntry:
    player, game_id = _concerned(obj)
    return AuditEntry.objects.create(
        moderator=_acting(request), action=action, player=player, game_id=game_id, reason=reason, details=details
    )


def _last_entry_id() -> int:
    return AuditEntry.objects.aggregate(last=Max("id"))["last"] or 0


class AuditedAdmin(admin.ModelAdmin):
    """The hooks; mixed into every registered ModelAdmin by ``audit_every_admin``."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        before = {name: _plain(form.initial.get(name)) for name in form.changed_data}
        super().save_model(request, obj, form, change)
        changes = {name: [before.get(name), _plain(form.cleaned_data.get(name))] for name in form.changed_data}
        audit_admin(
            request,
            action=AuditAction.ADMIN_CHANGE if change else AuditAction.ADMIN_ADD,
            obj=obj,
            details={"model": _label(obj), "object": _plain(obj.pk), "repr": str(obj), "changes": changes},
        )

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        details = {"model": _label(obj), "object": _plain(obj.pk), "repr": str(obj)}
        audit_admin(request, action=AuditAction.ADMIN_DELETE, obj=obj, details=details)
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for obj in queryset:
            details = {"model": _label(obj), "object": _plain(obj.pk), "repr": str(obj)}
            audit_admin(request, action=AuditAction.ADMIN_DELETE, obj=obj, details=details)
        super().delete_queryset(request, queryset)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions: dict[str, Any] = super().get_actions(request) or {}
        return {
            name: (_audited_action(func, name), name, description)
            for name, (func, name, description) in actions.items()
        }


def _audited_action(func: ActionFunc, name: str) -> ActionFunc:
    if getattr(func, "audited", False):
        return func

    def run(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any]) -> Any:
        ids = [_plain(pk) for pk in queryset.values_list("pk", flat=True)]
        objects = list(queryset) if len(ids) == 1 else []
        last = _last_entry_id()
        told = len(_queued(request))
        response = func(model_admin, request, queryset)
        done = response is None or isinstance(response, HttpResponseRedirect)  # not a page asking for more
        if done and _only_refusals(request, told):
            done = False  # every row was refused (shown on the page): nothing changed
        if done and not AuditEntry.objects.filter(id__gt=last, moderator=_acting(request)).exists():
            audit_admin(
                request,
                action=AuditAction.ADMIN_ACTION,
                obj=objects[0] if objects else None,
                details={"model": _label(model_admin.model), "action": name, "objects": ids},
            )
        return response

    run.audited = True  # type: ignore[attr-defined]
    run.__name__ = getattr(func, "__name__", name)
    for attribute in ("allowed_permissions", "short_description"):
        if hasattr(func, attribute):
            setattr(run, attribute, getattr(func, attribute))
    return run


def _queued(request: HttpRequest) -> list[Any]:
    return list(getattr(getattr(request, "_messages", None), "_queued_messages", []))


def _only_refusals(request: HttpRequest, told: int) -> bool:
    """Did the action tell only of refusals (errors and warnings) this time?"""
    levels = [message.level for message in _queued(request)[told:]]
    return bool(levels) and all(level >= messages.WARNING for level in levels)


def audit_every_admin(site: admin.AdminSite) -> int:
    """Give every ModelAdmin registered on ``site`` the audit hooks; returns how many."""
    count = 0
    for model_admin in site._registry.values():
        cls = type(model_admin)
        if issubclass(cls, AuditedAdmin):
            continue
        model_admin.__class__ = type(cls.__name__, (AuditedAdmin, cls), {"__module__": cls.__module__})
        count += 1
    return count
