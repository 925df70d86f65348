"""The chat that cleans itself, in real browsers (headless Chromium against the
embedded server; issue 43): a held message tells its author it awaits review and
shows nowhere until a moderator approves it, then on every page at once; a
restored message shows its text again on the open pages; a shadow-muted player
sees their own message, the other player never does.

Moderator actions run in ``manage.py shell`` on the server's database, through the
same services the admin's actions call (``moderation.chat_cleanup``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import base_url, check_requests_against_contract, sign_in, until
from tests.web.talk import chat_messages, manage_shell, moderate, visible, write_chat

pytestmark = [pytest.mark.slow]

CLEANUP = "from moderation import chat_cleanup\n"


def texts(driver: Any) -> list[str]:
    return [m["text"] for m in chat_messages(driver) if not m["removed"]]


def test_held_restored_and_shadow_muted_messages_in_the_table_chat(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    alice, bob = make_browser(), make_browser()
    alice_token = sign_in(alice, embedded, "clean_alice")
    bob_token = sign_in(bob, embedded, "clean_bob")
    port = embedded.port
    status, game = request(
        port, "POST", "/api/v1/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}}, token=alice_token
    )
    assert status == 201, game
    game_id = game["game"]["id"]
    request(port, "POST", f"/api/v1/games/{game_id}/join/", {"seat": 1}, token=bob_token)
    manage_shell(
        embedded,
        "from chat.models import ChatFilterRule\nChatFilterRule.objects.create(pattern='rigged', action='hold')",
    )
    for driver in (alice, bob):
        driver.get(f"{base_url(embedded)}/games/{game_id}/")
        until(driver, "the chat panel", lambda d: visible(d, "[data-testid=chat-input]"))

    # Held: alice is told it awaits review; nobody's page shows it.
    write_chat(alice, "this deal is rigged")
    until(
        alice,
        "the review notice",
        lambda d: (
            "review" in d.execute_script("return document.querySelector('[data-testid=chat-status]').textContent")
        ),
    )
    write_chat(alice, "just kidding")
    for driver in (alice, bob):
        until(driver, "the next message", lambda d: "just kidding" in texts(d))
        assert texts(driver) == ["just kidding"]

    # Approved: both pages show it, in its place, without a reload.
    held = manage_shell(
        embedded,
        "from chat.models import ChatMessage\nprint(ChatMessage.objects.get(state='held').pk)",
    ).strip()
    moderate(embedded, "'the moderator account exists'")
    manage_shell(
        embedded,
        CLEANUP
        + "from players.models import User\n"
        + f"chat_cleanup.chat_review(message_id={held}, by=User.objects.get(username='moderator'), approve=True)",
    )
    for driver in (alice, bob):
        until(driver, "the approved message", lambda d: texts(d) == ["this deal is rigged", "just kidding"])

    # Removed, then restored: the open pages show the text again.
    moderate(embedded, f"moderation.moderation_chat_remove(message_id={held}, by=mod).pk")
    for driver in (alice, bob):
        until(driver, "the removal", lambda d: texts(d) == ["just kidding"])
    manage_shell(
        embedded,
        CLEANUP
        + "from players.models import User\n"
        + f"chat_cleanup.chat_restore(message_id={held}, by=User.objects.get(username='moderator'))",
    )
    for driver in (alice, bob):
        until(driver, "the restored message", lambda d: texts(d) == ["this deal is rigged", "just kidding"])

    # Shadow-muted: bob sees his message as posted; alice never does.
    manage_shell(
        embedded,
        CLEANUP
        + "from players.models import User\n"
        + "chat_cleanup.chat_shadow_mute(player=User.objects.get(username='clean_bob'), "
        + "by=User.objects.get(username='moderator'), reason='adverts')",
    )
    write_chat(bob, "cheap chips, message me")
    until(bob, "bob's own message", lambda d: "cheap chips, message me" in texts(d))
    write_chat(alice, "anyone there?")  # after bob's: once alice's page has it, bob's would have come first
    until(alice, "alice's message", lambda d: "anyone there?" in texts(d))
    assert "cheap chips, message me" not in texts(alice)
    alice.refresh()
    until(alice, "the chat on a new page", lambda d: "anyone there?" in texts(d))
    assert "cheap chips, message me" not in texts(alice)
    for driver in (alice, bob):
        check_requests_against_contract(driver)
