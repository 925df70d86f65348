"""The chat's clean-up in headless Chromium, as a member of the Moderators group
does it (issue 43): search the chat for a word (whole words only), tick one of the
spammer's messages and remove all of that account's messages in the game, restore
one, then approve a held message from its queue. What the readers of the table
chat see is checked over the API after each step.

Needs Debian's ``chromium`` and ``chromium-driver`` (see test_admin_browser)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from chat import services as chat_services
from chat.models import REMOVED_TEXT, ChatFilterRule, ChatMessage, MessageState
from moderation.models import AuditAction, AuditEntry
from players.models import User
from tests.moderation.admin_login import admin_log_in
from tests.moderation.test_admin_browser import WAIT_SECONDS, browser, save_page  # noqa: F401 - the fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def spectators_read(game_id: int) -> list[str]:
    answer = APIClient().get(f"/api/v1/games/{game_id}/chat/", {"channel": "spectators"})
    assert answer.status_code == 200
    return [m["text"] for m in answer.json()["messages"]]


def test_a_moderator_cleans_up_the_chat_in_the_browser(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    make_table: Any,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import Select, WebDriverWait

    make_player("mirjam")
    call_command("add_moderator", "mirjam", stdout=open("/dev/null", "w"))  # noqa: SIM115
    mod = User.objects.get(username="mirjam")
    spammer, innocent = make_player("spammy_sam"), make_player("eve_fan")
    for user in (spammer, innocent):  # old enough to post links
        User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - timedelta(days=10))
    spammer, innocent = User.objects.get(pk=spammer.pk), User.objects.get(pk=innocent.pk)
    table = make_table()
    game = table.game_id

    def say(author: User, text: str) -> ChatMessage:
        return chat_services.chat_message_create(game_id=game, author=author, channel="spectators", text=text)

    ads = [say(spammer, "eve special: chips at chips.example"), say(spammer, "more chips, never cheaper")]
    say(innocent, "good evening everyone")
    say(innocent, "I never saw that")
    ChatFilterRule.objects.create(pattern="rigged", kind="word", action="hold")
    held = say(innocent, "that shuffle looked rigged")
    assert held.state == MessageState.HELD
    wait = WebDriverWait(browser, WAIT_SECONDS)

    admin_log_in(browser, wait, "mirjam", url=f"{live_server.url}/admin/login/?next=/admin/")

    # Search "eve": the spammer's message with the word, not "evening", "everyone" or "never".
    browser.get(live_server.url + reverse("admin:chat_chatmessage_changelist"))
    search = wait.until(seen.presence_of_element_located((By.ID, "searchbar")))
    search.send_keys("eve")
    search.submit()
    wait.until(seen.url_contains("q=eve"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert [row.find_element(By.CSS_SELECTOR, "td.field-text").text for row in rows] == [ads[0].text]

    # Tick it, and remove all of its author's messages in this game.
    rows[0].find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("remove_authors_messages")
    browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    form = wait.until(seen.presence_of_element_located((By.ID, "moderation-action-form")))
    assert form.find_element(By.CSS_SELECTOR, "input[name=scope][value=game]").is_selected()
    form.find_element(By.NAME, "reason").send_keys("adverts")
    save_page(browser, tmp_path / "chat-remove-authors-messages.png")
    form.find_element(By.NAME, "confirm").click()
    done = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    assert f"spammy_sam: 2 messages removed in game {game}." in done.text.lower()
    assert spectators_read(game) == [REMOVED_TEXT, REMOVED_TEXT, "good evening everyone", "I never saw that"]

    # Restore the second one from the author filter's list.
    browser.get(f"{live_server.url}{reverse('admin:chat_chatmessage_changelist')}?author__id__exact={spammer.pk}")
    row = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, f"input.action-select[value='{ads[1].pk}']")))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")) == 2  # the spammer's only
    row.click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("restore_selected")
    browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    wait.until(seen.presence_of_element_located((By.ID, "moderation-action-form"))).find_element(
        By.NAME, "confirm"
    ).click()
    wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    assert spectators_read(game)[:2] == [REMOVED_TEXT, "more chips, never cheaper"]

    # The held message waits in its queue; approve it.
    browser.get(live_server.url + reverse("admin:chat_heldchatmessage_changelist"))
    rows = wait.until(seen.presence_of_all_elements_located((By.CSS_SELECTOR, "#result_list tbody tr")))
    assert len(rows) == 1 and "word 'rigged'" in rows[0].text
    save_page(browser, tmp_path / "chat-held-queue.png")
    rows[0].find_element(By.CSS_SELECTOR, "input.action-select").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value("approve_selected")
    browser.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    wait.until(seen.presence_of_element_located((By.ID, "moderation-action-form"))).find_element(
        By.NAME, "confirm"
    ).click()
    wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    assert spectators_read(game)[-1] == "that shuffle looked rigged"
    assert not browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")

    actions = sorted(AuditEntry.objects.filter(moderator=mod).values_list("action", flat=True))
    assert actions == sorted([AuditAction.CHAT_REMOVE, AuditAction.CHAT_RESTORE, AuditAction.CHAT_APPROVE])
