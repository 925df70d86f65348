"""The table chat, reports and mutes in real browsers (headless Chromium against the
embedded ``manage.py serve``):

* two players chat at their table; a signed-in spectator reads and writes the
  spectators' channel only, and never sees the players' messages (nor they its);
* a moderator removes a message (the admin's service, on the server's database):
  every page shows it removed within 2 s, from the game stream, without a reload;
* a muted player sees why and until when, and cannot write;
* "Report" on a chat message lands in the moderators' queue (the database), once.

Moderator actions run in ``manage.py shell`` on the server's database, through the same
service the admin's "Remove" and "Mute" actions call (tests.web.talk.moderate).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import base_url, check_requests_against_contract, save_shot, sign_in, until
from tests.web.talk import chat_messages, manage_shell, moderate, visible, write_chat

pytestmark = [pytest.mark.slow]

REMOVAL_SECONDS = 2.0  # the bound: every page shows a removal within 2 s


def texts(driver: Any) -> list[str]:
    return [m["text"] for m in chat_messages(driver)]


def test_players_and_a_spectator_chat_apart_a_removal_shows_everywhere_and_a_mute_says_why(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    alice, bob, carol = make_browser(), make_browser(), make_browser()
    alice_token = sign_in(alice, embedded, "chat_alice")
    bob_token = sign_in(bob, embedded, "chat_bob")
    sign_in(carol, embedded, "chat_carol")
    port = embedded.port
    status, game = request(
        port, "POST", "/api/v1/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}}, token=alice_token
    )
    assert status == 201, game
    game_id = game["game"]["id"]
    status, answer = request(port, "POST", f"/api/v1/games/{game_id}/join/", {"seat": 1}, token=bob_token)
    assert status == 200, answer
    for driver in (alice, bob, carol):
        driver.get(f"{base_url(embedded)}/games/{game_id}/")
    for driver, channel in ((alice, "players"), (bob, "players"), (carol, "spectators")):
        until(driver, "the chat panel", lambda d, c=channel: d.execute_script(
            "const c = document.querySelector('[data-testid=chat]'); return c && c.dataset.channel === arguments[0];", c
        ))  # fmt: skip

    write_chat(alice, "hello bob")
    until(bob, "alice's message at bob's", lambda d: "hello bob" in texts(d))
    write_chat(carol, "go alice")
    until(carol, "carol's own message", lambda d: "go alice" in texts(d))
    write_chat(bob, "hi alice")
    until(alice, "bob's message at alice's", lambda d: "hi alice" in texts(d))
    # The channels stay apart, however long one waits for the stream.
    until(carol, "a second spectator message", lambda d: (write_chat(d, "second") or True) and "second" in texts(d))
    assert texts(carol) == ["go alice", "second"]
    assert "go alice" not in texts(alice) and "go alice" not in texts(bob)

    # A moderator removes alice's message: every page of the players' channel shows it removed.
    hello = next(m["id"] for m in chat_messages(bob) if m["text"] == "hello bob")
    moderate(embedded, f"moderation.moderation_chat_remove(message_id={hello}, by=mod, reason='test')")
    removed_at = time.monotonic()
    for driver in (alice, bob):
        until(
            driver,
            "the message shown removed",
            lambda d: any(m["id"] == hello and m["removed"] for m in chat_messages(d)),
            seconds=REMOVAL_SECONDS,
        )
    assert time.monotonic() - removed_at <= REMOVAL_SECONDS + 0.5
    assert "hello bob" not in " ".join(texts(alice) + texts(bob))
    save_shot(bob, "chat-removed")

    # A mute: bob sees why and until when, and the page does not let him write.
    moderate(
        embedded,
        "moderation.moderation_player_mute(player=bob, by=mod, reason='Insults at the table', "
        "until=timezone.now() + timedelta(hours=2)).pk",
        bob="chat_bob",
    )
    write_chat(bob, "are you there?")
    until(bob, "the mute's notice", lambda d: visible(d, "[data-testid=chat-muted]"))
    notice = bob.execute_script("return document.querySelector('[data-testid=chat-muted]').textContent")
    assert "Insults at the table" in notice and "until" in notice, notice
    assert bob.execute_script("return document.querySelector('[data-testid=chat-input]').disabled")
    # ... and a page opened afterwards says so before he tries.
    bob.refresh()
    until(bob, "the mute's notice on a new page", lambda d: visible(d, "[data-testid=chat-muted]"))
    until(bob, "the chat on the new page", lambda d: "hi alice" in texts(d))
    assert "are you there?" not in texts(alice)
    save_shot(bob, "chat-muted")
    for driver in (alice, bob, carol):
        check_requests_against_contract(driver)


def test_a_report_on_a_chat_message_lands_in_the_moderators_queue(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    alice, bob = make_browser(), make_browser()
    alice_token = sign_in(alice, embedded, "report_alice")
    bob_token = sign_in(bob, embedded, "report_bob")
    port = embedded.port
    status, game = request(
        port, "POST", "/api/v1/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}}, token=alice_token
    )
    game_id = game["game"]["id"]
    request(port, "POST", f"/api/v1/games/{game_id}/join/", {"seat": 1}, token=bob_token)
    for driver in (alice, bob):
        driver.get(f"{base_url(embedded)}/games/{game_id}/")
        until(driver, "the chat panel", lambda d: visible(d, "[data-testid=chat-input]"))
    write_chat(alice, "you are a terrible player")
    until(bob, "alice's message", lambda d: "you are a terrible player" in texts(d))
    message = next(m["id"] for m in chat_messages(bob) if m["text"] == "you are a terrible player")

    bob.find_element(By.CSS_SELECTOR, f"li[data-message='{message}'] [data-testid=report-button]").click()
    until(bob, "the report dialog", lambda d: visible(d, "[data-testid=report-dialog]"))
    Select(bob.find_element(By.CSS_SELECTOR, "[data-testid=report-reason]")).select_by_value("abuse")
    bob.find_element(By.CSS_SELECTOR, "[data-testid=report-text]").send_keys("Insulting me in the chat.")
    bob.find_element(By.CSS_SELECTOR, "[data-testid=report-send]").click()
    until(bob, "the report's confirmation", lambda d: d.execute_script(
        "const s = document.querySelector('[data-testid=report-dialog]'); return s && s.dataset.sent === 'true';"
    ))  # fmt: skip
    save_shot(bob, "report-sent")

    queue = manage_shell(
        embedded,
        "from moderation.models import Report\n"
        f"for r in Report.objects.filter(message_id={message}):\n"
        "    print(r.reporter.username, r.target_kind, r.reason, r.status, r.account.username, r.game_id, r.text)\n",
    )
    assert queue.strip() == f"report_bob message abuse open report_alice {game_id} Insulting me in the chat.", queue

    # Reporting it again says it is already in the queue (the API's problem, in the dialog).
    bob.find_element(By.CSS_SELECTOR, "[data-testid=report-cancel]").click()
    bob.find_element(By.CSS_SELECTOR, f"li[data-message='{message}'] [data-testid=report-button]").click()
    bob.find_element(By.CSS_SELECTOR, "[data-testid=report-send]").click()
    until(bob, "the refusal in the dialog", lambda d: d.execute_script(
        "const s = document.querySelector('[data-testid=report-status]'); return s && s.getAttribute('role') === 'alert' && s.textContent;"
    ))  # fmt: skip
    check_requests_against_contract(bob)
