"""Moderating games through the admin (Django's test client), each action's
effect checked through the public API: the game, its events, its seats."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.engine import Match, full_view
from games.models import Game
from moderation.models import AuditEntry
from tests.api.games_helpers import PLAY_SETUP, all_events, game_url, ok, refused, view
from tests.moderation.conftest import audit_actions, game_admin_url, run_list_action

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:games_game_changelist")


def last_event(client: Any, game_id: int) -> dict[str, Any]:
    return list(all_events(client, game_id))[-1]


def test_abort_a_running_game(mod_client: Client, make_table: Any, moderator: Any) -> None:
    table = make_table()
    page = mod_client.get(game_admin_url(table.game_id))
    assert page.status_code == 200 and b"Abort game" in page.content

    form = mod_client.get(game_admin_url(table.game_id, "abort"))
    assert form.status_code == 200 and b"reason" in form.content
    no_reason = mod_client.post(game_admin_url(table.game_id, "abort"), {"reason": "  "})
    assert no_reason.status_code == 200 and b"This field is required" in no_reason.content
    assert table.game().status == "running"

    done = mod_client.post(game_admin_url(table.game_id, "abort"), {"reason": "abusive chat"})
    assert done.status_code == 302 and done["Location"] == game_admin_url(table.game_id)

    body = view(table.clients[1], table.game_id)["game"]
    assert (body["status"], body["abort_reason"], body["moderated"]) == ("aborted", "abusive chat", True)
    event = last_event(table.clients[1], table.game_id)
    assert event["type"] == "game_aborted"
    # Players see "a moderator": the name is in no event and nowhere in the game (only in the audit).
    assert event["data"] | {"moderator": True, "reason": "abusive chat", "by": ""} == event["data"]
    public = json.dumps([list(all_events(client, table.game_id)) for client in table.clients]) + json.dumps(body)
    assert json.dumps(moderator.username) not in public  # no string field holds the name
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.game_id, entry.moderator, entry.reason) == (
        "game_abort",
        table.game_id,
        moderator,
        "abusive chat",
    )


def test_abort_selected_games_from_the_list(mod_client: Client, make_table: Any) -> None:
    open_table, running = make_table(start=False), make_table()
    done = run_list_action(
        mod_client, CHANGELIST, "abort_selected", [open_table.game_id, running.game_id], reason="cleaning up"
    )
    assert done.status_code == 302
    for table in (open_table, running):
        assert view(table.clients[0], table.game_id)["game"]["status"] == "aborted"
    assert audit_actions() == ["game_abort", "game_abort"]


def test_a_refused_action_is_shown_and_changes_nothing(mod_client: Client, make_table: Any) -> None:
    table = make_table()
    seq = table.game().seq
    refused_page = mod_client.post(game_admin_url(table.game_id, "seat_remove"), {"seat": "1", "reason": "cheating"})
    assert refused_page.status_code == 200 and b"game_already_started" in refused_page.content
    assert table.game().seq == seq and not AuditEntry.objects.exists()
    assert view(table.clients[1], table.game_id)["game"]["moderated"] is False


def test_hand_a_seat_to_a_bot(mod_client: Client, make_table: Any, moderator: Any) -> None:
    table = make_table()
    page = mod_client.get(game_admin_url(table.game_id, "seat_to_bot"))
    assert page.status_code == 200 and table.users[1].username.encode() in page.content

    done = mod_client.post(
        game_admin_url(table.game_id, "seat_to_bot"), {"seat": "1", "strategy": "greedy", "reason": "ruins the table"}
    )
    assert done.status_code == 302

    body = view(table.clients[0], table.game_id)
    seat = body["game"]["seats"][1]
    assert (seat["is_bot"], seat["bot_strategy"], seat["player"]["username"]) == (
        True,
        "greedy",
        table.users[1].username,
    )
    assert body["game"]["moderated"] is True
    handed = [e for e in all_events(table.clients[0], table.game_id) if e["type"] == "seat_handed_to_bot"]
    assert [(e["data"]["seat"], e["data"]["moderator"], e["data"]["note"]) for e in handed] == [
        (1, True, "ruins the table")
    ]
    # The player cannot move for that seat any more.
    state = view(table.clients[1], table.game_id)
    answer = table.clients[1].post(
        game_url(table.game_id, "moves"), {"type": "draw", "expected_seq": state["game"]["seq"]}, format="json"
    )
    refused(answer, 409, "seat_resigned")
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.player, entry.details) == (
        "seat_to_bot",
        table.users[1],
        {"seat": 1, "strategy": "greedy"},
    )


def test_remove_a_player_before_the_start(mod_client: Client, make_table: Any, moderator: Any) -> None:
    table = make_table(start=False)
    page = mod_client.get(game_admin_url(table.game_id))
    assert b"Remove a player" in page.content and b"Hand a seat to a bot" not in page.content

    done = mod_client.post(game_admin_url(table.game_id, "seat_remove"), {"seat": "1", "reason": "offensive name"})
    assert done.status_code == 302

    body = view(table.clients[0], table.game_id)["game"]
    assert body["seats"][1]["player"] is None and body["moderated"] is True
    event = last_event(table.clients[0], table.game_id)
    assert (event["type"], event["data"]["player"], event["data"]["moderator"]) == (
        "seat_left",
        table.users[1].username,
        True,
    )
    # The seat is free again: someone else may take it.
    assert AuditEntry.objects.get().player == table.users[1]


def test_reveal_hands_shows_every_tile_and_records_the_look(
    mod_client: Client, make_table: Any, moderator: Any
) -> None:
    table = make_table()
    confirm = mod_client.get(game_admin_url(table.game_id, "hands"))
    assert confirm.status_code == 200 and b"recorded in the audit trail" in confirm.content
    assert not AuditEntry.objects.exists()  # asking is not looking

    page = mod_client.post(game_admin_url(table.game_id, "hands"), {"reason": "suspected collusion"})
    assert page.status_code == 200
    full = full_view(Match.from_dict(table.game().state))
    text = page.content.decode()
    for hand in full["hands"]:
        assert " ".join(hand) in text
    assert " ".join(full["boneyard"]) in text and str(full["seed"]) in text
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.game_id, entry.moderator, entry.reason) == (
        "hands_viewed",
        table.game_id,
        moderator,
        "suspected collusion",
    )
    # Looking is not acting on the game: nothing changes for its players.
    assert view(table.clients[0], table.game_id)["game"]["moderated"] is False


def test_detail_page_shows_seats_scores_moves_and_layout(mod_client: Client, make_table: Any) -> None:
    table = make_table(setup=PLAY_SETUP)
    body = view(table.clients[1], table.game_id)
    ok(
        table.clients[1].post(
            game_url(table.game_id, "moves"),
            {"type": "play", "tile": "6-1", "end": "e1", "expected_seq": body["game"]["seq"]},
            format="json",
        ),
        201,
    )
    page = mod_client.get(game_admin_url(table.game_id))
    assert page.status_code == 200
    text = page.content.decode()
    for expected in (
        table.users[0].username,
        table.users[1].username,
        "Move log",
        f"{table.users[1].username} played 6-1 on arm 1",  # a name, the move in words
        f"{table.users[0].username} (seat 0)",  # whose turn it is, by name
        'class="cf-layout"',
        "6-6",
        "e5: needs 1",
        "cf-scores",
        "Reveal hands",
    ):
        assert expected in text, expected
    # Read-only: no form field edits the game, and no hidden tile is on the page.
    assert 'name="status"' not in text
    full = full_view(Match.from_dict(table.game().state))
    assert " ".join(full["hands"][0]) not in text and " ".join(full["boneyard"]) not in text


def test_list_columns_filters_and_search(mod_client: Client, make_table: Any, make_player: Any) -> None:
    humans = make_table()
    with_bot = make_table(start=False, seated=1)
    services.game_add_bot(game_id=with_bot.game_id, by=with_bot.users[0], strategy="greedy", seat=1)
    stuck = make_table(turn_time_limit=30)
    Game.objects.filter(pk=stuck.game_id).update(turn_deadline=timezone.now() - timedelta(minutes=5))

    def listed(**query: str) -> set[int]:
        page = mod_client.get(CHANGELIST, query)
        assert page.status_code == 200
        return {
            pk
            for pk in (humans.game_id, with_bot.game_id, stuck.game_id)
            if reverse("admin:games_game_change", args=[pk]).encode() in page.content
        }

    assert listed() == {humans.game_id, with_bot.game_id, stuck.game_id}
    assert listed(status="open") == {with_bot.game_id}
    assert listed(has_bots="yes") == {with_bot.game_id}
    assert listed(has_bots="no") == {humans.game_id, stuck.game_id}
    assert listed(stuck="yes") == {stuck.game_id}
    assert listed(q=humans.users[1].username) == {humans.game_id}
    assert b"bot: greedy" in mod_client.get(CHANGELIST).content


def test_games_cannot_be_added_edited_or_deleted_in_the_admin(mod_client: Client, make_table: Any) -> None:
    table = make_table()
    assert mod_client.get(reverse("admin:games_game_add")).status_code == 403
    assert mod_client.post(game_admin_url(table.game_id), {"status": "finished"}).status_code == 403
    assert mod_client.get(reverse("admin:games_game_delete", args=[table.game_id])).status_code == 403
    assert table.game().status == "running"


def test_services_record_nothing_when_the_game_service_refuses(moderator: Any, make_table: Any) -> None:
    from core.errors import ApiError
    from moderation import services as moderation

    table = make_table()
    services.game_abort_as_moderator(game_id=table.game_id, by=moderator, reason="first")
    with pytest.raises(ApiError) as refusal:
        moderation.moderation_game_abort(game_id=table.game_id, by=moderator, reason="again")
    assert refusal.value.code == "game_aborted" and not AuditEntry.objects.exists()
    with pytest.raises(ApiError) as no_reason:
        moderation.moderation_seat_to_bot(game_id=table.game_id, seat_number=0, by=moderator, reason="")
    assert no_reason.value.code == "validation_error"
