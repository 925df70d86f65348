"""Reporting a chat message: over the API (only a message one can read, never
one's own), in the queue with the chat around it (original text, removed or
not), and an outcome that falls on the message's author."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from moderation import services as moderation
from moderation.models import AuditAction, AuditEntry, Report, Sanction
from tests.api.games_helpers import ok, refused

pytestmark = pytest.mark.django_db
REPORTS = "/api/v1/reports/"


def say(client: APIClient, game_id: int, channel: str, text: str) -> dict[str, Any]:
    return dict(
        ok(client.post(f"/api/v1/games/{game_id}/chat/", {"channel": channel, "text": text}, format="json"), 201)
    )


def report(client: APIClient, **body: Any) -> Any:
    return client.post(REPORTS, {"reason": "abuse", "text": "read this", **body}, format="json")


def test_a_chat_message_is_reported_and_judged_with_the_chat_around_it(people: Any, make_table: Any) -> None:
    table = make_table()
    game = table.game_id
    say(table.clients[1], game, "players", "hello")
    bad = say(table.clients[1], game, "players", "you are an idiot")
    say(table.clients[0], game, "players", "please stop")
    _, watcher_client = people.player()
    spectators = say(watcher_client, game, "spectators", "they fight")

    filed = ok(report(table.clients[0], message=bad["id"]), 201)
    assert (filed["target_kind"], filed["message"], filed["game"]) == ("message", bad["id"], game)
    assert filed["account"] == table.users[1].username  # its author
    # refusals: one's own message, a message of a channel one cannot read, none, two targets, twice
    refused(report(table.clients[1], message=bad["id"]), 422, "report_self")
    refused(report(watcher_client, message=bad["id"]), 404, "not_found")  # the players' channel
    refused(report(table.clients[0], message=spectators["id"]), 404, "not_found")  # no kibitzing
    refused(report(table.clients[0], message=999999), 404, "not_found")
    refused(report(table.clients[0], message=bad["id"], game=game), 400, "validation_error")
    refused(report(table.clients[0], message=bad["id"]), 409, "report_exists")

    mod = people.player("chatmod")[0]
    moderation.moderator_add(user=mod)
    moderation.moderation_chat_remove(message_id=bad["id"], by=type(mod).objects.get(pk=mod.pk), reason="abuse")
    admin = Client()
    admin.force_login(mod)
    url = reverse("admin:moderation_report_change", args=[filed["id"]])
    page = admin.get(url).content.decode()
    assert 'id="report-chat"' in page and 'id="reported-message"' in page
    for text in ("hello", "you are an idiot", "please stop"):  # the original text, removed or not
        assert text in page
    assert "they fight" not in page  # the other channel is not around it
    # An outcome without picking a player falls on the message's author.
    done = admin.post(url, {"outcome": "mute", "reason": "Insults in the chat.", "duration": "24"})
    assert done.status_code == 302, done.content[:1000]
    assert Sanction.objects.get(kind="mute").player == table.users[1]
    assert Report.objects.get(pk=filed["id"]).outcome == "muted"
    refused(
        table.clients[1].post(f"/api/v1/games/{game}/chat/", {"channel": "players", "text": "hi"}, format="json"),
        403,
        "muted",
    )


def test_the_remove_the_message_outcome(people: Any, make_table: Any) -> None:
    table = make_table()
    game = table.game_id
    bad = say(table.clients[1], game, "players", "spam link")
    filed = ok(report(table.clients[0], message=bad["id"], reason="spam"), 201)
    mod = people.player("chatmod2")[0]
    moderation.moderator_add(user=mod)
    admin = Client()
    admin.force_login(mod)
    url = reverse("admin:moderation_report_change", args=[filed["id"]])
    assert 'id="outcome-remove"' in admin.get(url).content.decode()
    done = admin.post(url, {"outcome": "remove", "reason": "Spam.", "duration": "24"})
    assert done.status_code == 302, done.content[:1000]
    shown = ok(table.clients[0].get(f"/api/v1/games/{game}/chat/", {"channel": "players"}))["messages"]
    assert [(m["id"], m["removed"]) for m in shown] == [(bad["id"], True)]
    assert Report.objects.get(pk=filed["id"]).outcome == "message_removed"
    entry = AuditEntry.objects.get(action=AuditAction.CHAT_REMOVE)
    assert entry.details["report"] == filed["id"] and entry.details["text"] == "spam link"
    assert ok(table.clients[0].get(REPORTS))["results"][0]["outcome"] == "message_removed"
    # A report about an account has no such outcome.
    other = ok(report(table.clients[0], account=table.users[1].username), 201)
    assert (
        'id="outcome-remove"'
        not in admin.get(reverse("admin:moderation_report_change", args=[other["id"]])).content.decode()
    )
