"""Every change a Moderators-group account can make in the admin is audited, by one
mechanism (``moderation.admin.audited``).

The test does not list the admin's screens: it walks the admin site's registry and
asks each ModelAdmin, for a real member of the Moderators group (made with
``moderator_add``, as ``add_moderator`` does), which list actions it offers, and
whether it may change (with an editable field), add or delete. Each of those is
then done through the admin's pages, and each must leave an audit entry by the
moderator. A model the group reaches and this file has no row for fails the test
("make one"), so a new admin cannot slip past. The count printed is the number of
moderator-reachable changes and actions."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import Max, Model
from django.test import Client, RequestFactory
from django.urls import reverse

from challenges import services as challenge_services
from chat import services as chat_services
from chat.models import ChatFilterRule, ChatMessage, MessageState
from games.models import Game
from ladder import services as ladder_services
from matchmaking import services as seek_services
from moderation import chat_cleanup
from moderation import services as moderation
from moderation.models import AuditEntry
from players import services as player_services
from players.models import User
from tests.api.games_helpers import play_to_end

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: For a model whose change form a moderator may submit: the fields to change and their new values.
CHANGES: dict[str, dict[str, Any]] = {
    "ladder.ladderentry": {"max_games": "3"},
    "chat.chatfilterrule": {"action": "block"},
}

#: For a model a moderator may add in the admin: what its add form posts.
ADDS: dict[str, dict[str, Any]] = {
    "chat.chatfilterrule": {"pattern": "spamword", "kind": "word", "action": "hold", "active": "on"},
}

#: For an action whose page asks for more than a reason: what else it posts.
ACTION_DATA: dict[str, dict[str, Any]] = {
    "chat.chatmessage:remove_authors_messages": {"scope": "game", "hours": "24"},
    "chat.chatmessage:shadow_mute_authors": {"period": "24"},
}


def _label(model: type[Model]) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


class Rows:
    """One fresh row of each registered model a moderator can act on, made the way the
    server makes it (services), in a state the actions accept."""

    def __init__(self, make_player: Callable[..., Any], make_table: Callable[..., Any]) -> None:
        self.make_player = make_player
        self.make_table = make_table
        self.count = 0

    def _name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def make(self, label: str, action: str = "") -> Model:
        maker = getattr(self, label.replace(".", "_"), None)
        if maker is None:
            pytest.fail(f"The Moderators group reaches {label} in the admin: add a row maker for it to this test.")
        return maker(action)

    def players_user(self, action: str) -> Model:
        user = self.make_player(self._name("acc"))
        if action == "unsuspend":
            user.is_active = False
            user.save(update_fields=["is_active"])
        if action == "unmark_bot":
            user.is_bot = True
            user.save(update_fields=["is_bot"])
        return user

    def moderation_report(self, action: str) -> Model:
        report = moderation.report_create(
            reporter=self.make_player(self._name("rep")), account=self.make_player(self._name("tgt")), reason="spam"
        )
        if action == "unassign_selected":
            moderation.report_assign(report_id=report.pk, by=User.objects.get(username="modwalk"))
        return report

    def players_apitoken(self, action: str) -> Model:
        return player_services.token_create(user=self.make_player(self._name("tok")), name="t").token

    def chat_chatmessage(self, action: str) -> Model:
        table = self.make_table()
        message = chat_services.chat_message_create(
            game_id=table.game_id, author=table.users[0], channel="players", text="hello"
        )
        if action == "restore_selected":
            chat_services.chat_message_remove(message_id=message.pk, by=table.users[1])
        return message

    def chat_heldchatmessage(self, action: str) -> Model:
        message = self.chat_chatmessage("")
        ChatMessage.objects.filter(pk=message.pk).update(state=MessageState.HELD, held_reason="word 'hello'")
        return message

    def chat_chatfilterrule(self, action: str) -> Model:
        return ChatFilterRule.objects.create(pattern=self._name("badword"), kind="word", action="hold")

    def chat_chatshadowmute(self, action: str) -> Model:
        moderator = User.objects.get(username="modwalk")
        return chat_cleanup.chat_shadow_mute(player=self.make_player(self._name("shadow")), by=moderator, reason="spam")

    def games_game(self, action: str) -> Model:
        table = self.make_table(rated=action == "void_rating_selected")
        if action == "void_rating_selected":
            play_to_end(table, random.Random(1))  # a rated match that has counted
        return Game.objects.get(pk=table.game_id)

    def ladder_ladderentry(self, action: str) -> Model:
        bot = self.make_player(self._name("bot"), is_bot=True)
        entry = ladder_services.entry_join(user=bot, table_sizes=[2, 4], max_games=1)
        if action == "put_back":
            entry.active = False
            entry.save(update_fields=["active"])
        return entry

    def matchmaking_seek(self, action: str) -> Model:
        return seek_services.seek_create(
            user=self.make_player(self._name("seeker")), players=3, preset="double-6-quick", wait_seconds=60
        )

    def challenges_challenge(self, action: str) -> Model:
        creator, invitee = self.make_player(self._name("ch")), self.make_player(self._name("inv"))
        return challenge_services.challenge_create(
            creator=creator, invitees=[invitee.username], ruleset={"set_max": 6, "players": 2, "rounds": 1}
        )


def _form_data(model_admin: admin.ModelAdmin, request: Any, obj: Model) -> dict[str, Any]:
    """What the change page's form posts back unchanged (its inlines' management data too)."""
    form = model_admin.get_form(request, obj, change=True)(instance=obj)
    data: dict[str, Any] = {}
    for bound in form:
        value = bound.field.prepare_value(bound.value())
        if isinstance(value, bool):
            if value:
                data[bound.html_name] = "on"
        elif value is not None:
            data[bound.html_name] = value
    for formset, _inline in model_admin.get_formsets_with_inlines(request, obj):
        bound_formset = formset(instance=obj)
        for key, value in bound_formset.management_form.initial.items():
            data[f"{bound_formset.prefix}-{key}"] = value
        for inline_form in bound_formset.initial_forms:
            data[f"{inline_form.prefix}-{inline_form._meta.model._meta.pk.name}"] = inline_form.instance.pk
    return data


def _editable(model_admin: admin.ModelAdmin, request: Any, obj: Model) -> bool:
    form = model_admin.get_form(request, obj, change=True)
    return bool(form.base_fields)


def _new_entries(after: int, moderator: User) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(id__gt=after, moderator=moderator))


def _last() -> int:
    return AuditEntry.objects.aggregate(last=Max("id"))["last"] or 0


def test_every_admin_change_and_action_a_moderator_reaches_is_audited(make_player, make_table, capsys) -> None:
    moderator = make_player("modwalk")
    moderation.moderator_add(user=moderator)
    moderator = User.objects.get(pk=moderator.pk)
    client = Client()
    client.force_login(moderator)
    request = RequestFactory().get("/admin/")
    request.user = moderator
    rows = Rows(make_player, make_table)

    walked: list[str] = []
    for model, model_admin in admin.site._registry.items():
        label = _label(model)
        if not model_admin.has_view_permission(request):
            continue
        changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for name in model_admin.get_actions(request):
            obj = rows.make(label, name)
            before = _last()
            selection = {"action": name, ACTION_CHECKBOX_NAME: [str(obj.pk)], "index": "0"}
            answer = client.post(changelist, selection)
            if answer.status_code == 200 and b'name="apply"' in answer.content:  # the page asking for a reason
                extra = ACTION_DATA.get(f"{label}:{name}", {})
                answer = client.post(changelist, {**selection, "apply": "1", "reason": "walking the admin", **extra})
            assert answer.status_code == 302, (label, name, answer.status_code)
            assert _new_entries(before, moderator), f"{label} action {name}: no audit entry"
            walked.append(f"{label}:{name}")
        if model_admin.has_add_permission(request):
            add = ADDS.get(label)
            if add is None:
                pytest.fail(f"A moderator may add {label} in the admin: extend this test to add one (ADDS).")
            before = _last()
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
            answer = client.post(url, {**add, "_save": "Save"})
            assert answer.status_code == 302, (label, answer.status_code, answer.content[:2000])
            assert [e.action for e in _new_entries(before, moderator)] == ["admin_add"], label
            walked.append(f"{label}:add")
        probe = (
            rows.make(label)
            if (model_admin.has_change_permission(request) or model_admin.has_delete_permission(request))
            else None
        )
        if (
            probe is not None
            and model_admin.has_change_permission(request, probe)
            and _editable(model_admin, request, probe)
        ):
            change = CHANGES.get(label)
            assert change is not None, f"A moderator may change {label}: name a change in CHANGES"
            data = {**_form_data(model_admin, request, probe), **change, "_save": "Save"}
            before = _last()
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[probe.pk])
            answer = client.post(url, data)
            assert answer.status_code == 302, (label, answer.status_code, answer.content[:2000])
            entries = _new_entries(before, moderator)
            assert [e.action for e in entries] == ["admin_change"], label
            assert entries[0].details["changes"], entries[0].details
            walked.append(f"{label}:change")
        if probe is not None and model_admin.has_delete_permission(request, probe):
            before = _last()
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_delete", args=[probe.pk])
            answer = client.post(url, {"post": "yes"})
            assert answer.status_code == 302, (label, answer.status_code)
            assert [e.action for e in _new_entries(before, moderator)] == ["admin_delete"], label
            walked.append(f"{label}:delete")

    # What the issue found unaudited is among them, and the count is reported.
    assert "ladder.ladderentry:change" in walked and "ladder.ladderentry:take_off" in walked
    assert {"moderation.report:assign_selected", "moderation.report:unassign_selected"} <= set(walked)
    assert "moderation.report:dismiss_selected" in walked
    # The chat's clean-up and filters (issue 43).
    for done in (
        "chat.chatmessage:remove_authors_messages",
        "chat.chatmessage:restore_selected",
        "chat.chatmessage:shadow_mute_authors",
        "chat.heldchatmessage:approve_selected",
        "chat.heldchatmessage:reject_selected",
        "chat.chatfilterrule:add",
        "chat.chatfilterrule:change",
        "chat.chatfilterrule:delete",
        "chat.chatshadowmute:lift_selected",
    ):
        assert done in walked, done
    with capsys.disabled():
        print(f"\nmoderator-reachable admin changes and actions, all audited: {len(walked)}: {', '.join(walked)}")


def test_the_moderator_pages_of_a_report_and_an_account_are_audited(make_player: Any) -> None:
    """The steps that are pages, not list actions: a report's reassign, unassign,
    discussion note and group outcome; an account's custom-length mute and lifting it."""
    moderator = make_player("modpages")
    moderation.moderator_add(user=moderator)
    moderator = User.objects.get(pk=moderator.pk)
    other = make_player("modother")
    moderation.moderator_add(user=other)
    client = Client()
    client.force_login(moderator)
    target = make_player("target")
    report, twin = (
        moderation.report_create(reporter=make_player(name), account=target, reason="spam") for name in ("r1", "r2")
    )
    page = reverse("admin:moderation_report_change", args=[report.pk])
    steps = [
        (page, {"outcome": "reassign", "assign_to": str(other.pk)}, ["report_assign"]),
        (page, {"outcome": "unassign"}, ["report_unassign"]),
        (page, {"outcome": "comment", "comment": "Two reports, same minute."}, ["report_comment"]),
        (page, {"outcome": "dismiss", "reason": "No spam.", "duration": "24", "whole_group": "on"}, None),
        (
            reverse("admin:players_user_sanction", args=[target.pk]),
            {"measure": "mute", "period": "0", "minutes": "45", "reason": "Spam."},
            ["player_mute"],
        ),
    ]
    for url, data, expected in steps:
        before = _last()
        assert client.post(url, data).status_code == 302, (url, data)
        actions = [entry.action for entry in _new_entries(before, moderator)]
        assert sorted(actions) == (expected or ["report_dismiss", "report_resolve"]), (data, actions)
    mute = target.sanctions.get()
    before = _last()
    lift = reverse("admin:players_user_lift", args=[target.pk])
    assert client.post(lift, {"sanction": str(mute.pk), "reason": "Sorry."}).status_code == 302
    assert [entry.action for entry in _new_entries(before, moderator)] == ["player_unmute"]
    twin.refresh_from_db()
    assert twin.outcome == "dismissed"
