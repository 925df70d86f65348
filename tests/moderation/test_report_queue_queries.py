"""The report queue's page costs the same statements whatever number of message
reports it lists: each row's target (a message, with its game) comes with the
list's own query, never one statement a row (it was 29-33 statements a page on the
seeded database: each reported message read on its own)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from chat import services as chat_services
from moderation import services as moderation

pytestmark = [pytest.mark.django_db]


def _queue_statements(client: Client) -> int:
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(reverse("admin:moderation_report_changelist"))
    assert answer.status_code == 200
    return len(captured)


def test_the_queue_reads_reported_messages_with_the_list(make_player: Any, make_table: Any) -> None:
    boss = make_player("queue_mod")
    moderation.moderator_add(user=boss)
    client = Client()
    client.force_login(boss)
    table = make_table(players=4)
    author, reporters = table.users[0], table.users[1:]

    def report_messages(count: int) -> None:
        for n in range(count):
            message = chat_services.chat_message_create(
                game_id=table.game_id, author=author, channel="players", text=f"advert {n}"
            )
            moderation.report_create(reporter=reporters[n % 3], reason="spam", message_id=message.pk)

    report_messages(1)
    _queue_statements(client)  # warm: sessions, content types, permissions
    one = _queue_statements(client)
    report_messages(6)
    seven = _queue_statements(client)
    assert seven == one, f"{one} statements with one message report, {seven} with seven"
