"""Warnings reach the player's account stream (``live.account_feeds``): unread ones
in the snapshot, a new one as ``warning_issued``, a read one as
``warning_acknowledged`` - the player's own, nobody else's, and never who reported."""

from __future__ import annotations

from typing import Any

import pytest

from live import account_feeds
from moderation import services

pytestmark = pytest.mark.django_db


def warning_frames(user: Any, state: account_feeds.FeedState) -> list[tuple[str, int]]:
    return [
        (event, data["id"]) for event, data, _ in account_feeds.changes(user, state) if event.startswith("warning_")
    ]


def test_a_warning_and_its_acknowledgement_reach_the_players_stream_once(make_player, moderator):
    player, other = make_player("rude"), make_player("bystander")
    first = services.moderation_player_warn(player=player, by=moderator, text="Mind your language.")
    shown, state = account_feeds.snapshot(player)
    assert [w["id"] for w in shown["warnings"]] == [first.pk]
    assert warning_frames(player, state) == []  # the snapshot had it

    second = services.moderation_player_warn(player=player, by=moderator, text="Second time.")
    assert warning_frames(player, state) == [("warning_issued", second.pk)]
    assert warning_frames(player, state) == []
    services.warning_acknowledge(player=player, warning_id=first.pk)
    assert warning_frames(player, state) == [("warning_acknowledged", first.pk)]
    assert warning_frames(player, state) == []

    others_shown, others_state = account_feeds.snapshot(other)
    assert others_shown["warnings"] == [] and warning_frames(other, others_state) == []
    fresh, _ = account_feeds.snapshot(player)  # a new stream: the unread one only, without the reporter
    assert [(w["id"], w["text"], w["acknowledged_at"]) for w in fresh["warnings"]] == [
        (second.pk, "Second time.", None)
    ]
    assert set(fresh["warnings"][0]) == {"id", "text", "created_at", "acknowledged_at"}
