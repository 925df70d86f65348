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


def channel_is(channel: str) -> Callable[[Any], bool]:
    def check(driver: Any) -> bool:
        return bool(
            driver.execute_script(
                "const c = document.querySelector('[data-testid=chat]'); return c && c.dataset.channel === arguments[0];",
                channel,
            )
        )

    return check


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
        until(driver, "the chat panel", channel_is(channel))

    write_chat(alice, "hello bob")
    until(bob, "alice's message at bob's", lambda d: "hello bob" in texts(d))
    write_chat(carol, "go alice")
    until(carol, "carol's own message", lambda d: "go alice" in texts(d))
    write_chat(bob, "hi alice")
    until(alice, "bob's message at alice's", lambda d: "hi alice" in texts(d))
    # The channels stay apart, however long one waits for the stream.
    write_chat(carol, "second")
    until(carol, "a second spectator message", lambda d: "second" in texts(d))
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
    assert status == 201, game
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
    bob.find_element(By.CSS_SELECTOR, "[data-testid=report-cancel]").click()

    # The player (from their seat) and the game (from the table's links).
    for target in ("account:report_alice", f"game:{game_id}"):
        bob.find_element(By.CSS_SELECTOR, f"[data-testid=report-button][data-target='{target}']").click()
        until(bob, "the report dialog", lambda d: visible(d, "[data-testid=report-dialog]"))
        Select(bob.find_element(By.CSS_SELECTOR, "[data-testid=report-reason]")).select_by_value("stalling")
        bob.find_element(By.CSS_SELECTOR, "[data-testid=report-send]").click()
        until(bob, "the report's confirmation", lambda d: d.execute_script(
            "const s = document.querySelector('[data-testid=report-dialog]'); return s && s.dataset.sent === 'true';"
        ))  # fmt: skip
        bob.find_element(By.CSS_SELECTOR, "[data-testid=report-cancel]").click()
    queue = manage_shell(
        embedded,
        "from moderation.models import Report\n"
        "for r in Report.objects.filter(reporter__username='report_bob').order_by('id'):\n"
        "    print(r.target_kind, r.reason, r.status)\n",
    )
    assert queue.strip().split("\n") == ["message abuse open", "account stalling open", "game stalling open"], queue
    check_requests_against_contract(bob)


def test_how_to_play_draws_the_rules_with_the_board_in_english_and_estonian(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser(360, 740)
    driver.get(f"{base_url(embedded)}/rules/")
    until(driver, "the rules", lambda d: d.execute_script("return document.querySelector('#rules')?.dataset.lang"))
    figures = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#rules figure[data-figure]')].map(f => ["
        "f.dataset.figure, f.querySelectorAll('[data-testid=board-svg] [data-tile], svg.cf-domino').length]));"
    )
    assert figures["spinner"] == 1 and figures["arms"] == 6 and figures["foot"] == 9, figures
    assert figures["scoring"] == 3, figures
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    english = driver.execute_script("return document.querySelector('#rules').textContent")
    assert "chicken foot" in english and "spinner" in english
    save_shot(driver, "rules")
    # The same page in Estonian (the page's language, as the server sets <html lang>).
    driver.execute_script("document.documentElement.lang = 'et'; window.dispatchEvent(new CustomEvent('cf:navigate'));")
    until(
        driver,
        "the Estonian rules",
        lambda d: d.execute_script("return document.querySelector('#rules')?.dataset.lang") == "et",
    )
    estonian = driver.execute_script(  # the text (the board's own tooltips come from the catalogue)
        "return [...document.querySelectorAll('#rules h1, #rules h2, #rules p, #rules figcaption')]"
        ".map(e => e.textContent).join(' ')"
    )
    assert "kanajalg" in estonian.lower() and "stardiplaat" in estonian.lower() and "spinner" not in estonian
    save_shot(driver, "rules-et")
    check_requests_against_contract(driver)
