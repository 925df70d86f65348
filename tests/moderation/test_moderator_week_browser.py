"""Issue 43's pages ("A moderator's week", docs/moderation.md) in headless Chromium,
as members of the Moderators group work them, with what the player then gets over
the API: the dashboard's counts and links to the queues, the accounts sharing an
address on an account's page, a canned warning text, a 45-minute mute and its
lifting (the player's ``/me/`` and the audit list after each), and an appeal the
moderator who imposed the sanction cannot answer but another one does.

One server, one browser, one walk: the steps share their set-up.
Needs Debian's ``chromium`` and ``chromium-driver`` (see test_admin_browser)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from chat import services as chat_services
from chat.models import ChatFilterRule, MessageState
from moderation import canned
from moderation import services as moderation
from moderation.models import Appeal, AuditAction, AuditEntry, Sanction
from players.models import User
from tests.moderation.admin_login import admin_log_in
from tests.moderation.test_admin_browser import WAIT_SECONDS, browser  # noqa: F401 - the fixture
from tests.moderation.test_alts import session_log_in, token_log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def add_moderator(make_player: Any, username: str) -> User:
    make_player(username)
    call_command("add_moderator", username, stdout=open(os.devnull, "w"))  # noqa: SIM115
    return User.objects.get(username=username)


def as_player(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def my_sanctions(user: User) -> list[dict[str, Any]]:
    """The sanctions in force as the player reads them: ``GET /api/v1/me/``."""
    answer = as_player(user).get("/api/v1/me/")
    assert answer.status_code == 200, answer.content
    return answer.json()["sanctions"]


def test_a_moderators_week_in_the_browser(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    make_table: Any,
    settings: Any,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import Select, WebDriverWait

    settings.NUM_PROXIES = 1  # as tests/moderation/test_alts.py: the proxy's address is the client's
    maria = add_moderator(make_player, "maria")
    juhan = add_moderator(make_player, "juhan")
    rude, loud = make_player("rude_rudolf"), make_player("loud_lauri")
    # Two open reports, one held chat message, one open appeal (against maria's mute).
    reporters = [make_player("alice"), make_player("bob")]
    for reporter in reporters:
        moderation.report_create(reporter=reporter, account=rude, reason="abuse", text="Insults.")
    table = make_table()
    ChatFilterRule.objects.create(pattern="rigged", kind="word", action="hold")
    held = chat_services.chat_message_create(
        game_id=table.game_id, author=reporters[0], channel="spectators", text="that shuffle looked rigged"
    )
    assert held.state == MessageState.HELD
    moderation.moderation_player_mute(
        player=rude, by=maria, reason="Cool down.", until=timezone.now() + timedelta(hours=2)
    )
    mute = Sanction.objects.get(player=rude)
    appealed = as_player(rude).post(
        f"/api/v1/me/sanctions/{mute.pk}/appeal/", {"text": "I was provoked first."}, format="json"
    )
    assert appealed.status_code == 201, appealed.content
    appeal = Appeal.objects.get(sanction=mute)
    # Alts: main and alt log in from one client address, elsewhere from another.
    main, _alt, _elsewhere = make_player("main_mari"), make_player("alt_mari"), make_player("elsewhere")
    token_log_in("main_mari", "192.0.2.10")
    session_log_in("alt_mari", "192.0.2.10")
    token_log_in("elsewhere", "192.0.2.11")

    wait = WebDriverWait(browser, WAIT_SECONDS)
    url = live_server.url
    admin_log_in(browser, wait, "maria", url=f"{url}/admin/login/?next=/admin/moderation/report/")

    # 1. The dashboard: what waits, each linking to its queue.
    wait.until(seen.element_to_be_clickable((By.ID, "dashboard-link"))).click()
    board = wait.until(seen.presence_of_element_located((By.ID, "moderation-dashboard")))
    assert "2 reports are open." in board.text
    assert "1 chat message is held by the filter." in board.find_element(By.ID, "held-messages").text
    assert "1 appeal is open." in board.find_element(By.ID, "open-appeals").text
    queues = {
        "reports": reverse("admin:moderation_report_changelist") + "?status=open",
        "held": reverse("admin:chat_heldchatmessage_changelist"),
        "appeals": reverse("admin:moderation_appeal_changelist") + "?status=open",
    }
    rows_of: dict[str, list[str]] = {}
    for name, href in queues.items():
        browser.get(url + "/admin/moderation/report/dashboard/")
        wait.until(seen.element_to_be_clickable((By.CSS_SELECTOR, f"#moderation-dashboard a[href='{href}']"))).click()
        wait.until(seen.url_contains(href))
        rows = wait.until(seen.presence_of_all_elements_located((By.CSS_SELECTOR, "#result_list tbody tr")))
        rows_of[name] = [row.text for row in rows]
    assert len(rows_of["reports"]) == 2 and all("rude_rudolf" in row for row in rows_of["reports"])
    assert len(rows_of["held"]) == 1 and "that shuffle looked rigged" in rows_of["held"][0]
    assert len(rows_of["appeals"]) == 1 and "I was provoked first." in rows_of["appeals"][0]

    # 2. The account page lists the account from the same address, not the other one.
    browser.get(url + reverse("admin:players_user_change", args=[main.pk]))
    alts = wait.until(seen.presence_of_element_located((By.ID, "account-alts")))
    assert "Accounts sharing an address" in browser.find_element(By.ID, "content-main").text
    assert "alt_mari" in alts.text and "elsewhere" not in alts.text
    assert "192.0.2" not in browser.page_source

    # 3 and 4. From loud's page: a canned warning text fills the reason; then a 45-minute mute.
    browser.get(url + reverse("admin:players_user_change", args=[loud.pk]))
    wait.until(seen.element_to_be_clickable((By.ID, "tool-sanction"))).click()
    form = wait.until(seen.presence_of_element_located((By.ID, "moderation-action-form")))
    reason = form.find_element(By.NAME, "reason")
    Select(form.find_element(By.NAME, "canned")).select_by_value("abuse")
    wait.until(lambda _driver: reason.get_attribute("value") == str(canned.WARNINGS["abuse"]))
    assert "report" not in (reason.get_attribute("value") or "").lower()  # names the behaviour, never the reporter
    form.find_element(By.CSS_SELECTOR, "input[name=measure][value=mute]").click()
    form.find_element(By.NAME, "minutes").send_keys("45")
    before = timezone.now()
    form.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    done = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    after = timezone.now()
    assert "Account loud_lauri muted." in done.text
    [shown] = my_sanctions(loud)
    assert shown["kind"] == "mute" and shown["reason"] == str(canned.WARNINGS["abuse"])
    ends = datetime.fromisoformat(shown["ends_at"].replace("Z", "+00:00"))
    assert before + timedelta(minutes=45) - timedelta(seconds=1) <= ends <= after + timedelta(minutes=45)

    wait.until(seen.element_to_be_clickable((By.ID, "tool-lift"))).click()
    choice = f"input[name=sanction][value='{shown['id']}']"
    wait.until(seen.element_to_be_clickable((By.CSS_SELECTOR, choice))).click()
    browser.find_element(By.NAME, "reason").send_keys("Talked it over.")
    browser.find_element(By.CSS_SELECTOR, "#moderation-action-form input[type=submit]").click()
    done = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    assert "Sanction lifted on account loud_lauri." in done.text
    assert my_sanctions(loud) == []

    browser.get(f"{url}{reverse('admin:moderation_auditentry_changelist')}?player__id__exact={loud.pk}")
    rows = wait.until(seen.presence_of_all_elements_located((By.CSS_SELECTOR, "#result_list tbody tr")))
    texts = [row.text for row in rows]
    assert any("player muted" in row and "maria" in row for row in texts), texts
    assert any("mute lifted" in row and "Talked it over." in row for row in texts), texts

    # 5. The appeal: maria imposed the mute and cannot answer; the page says why.
    answer_href = reverse("admin:moderation_appeal_answer", args=[appeal.pk])
    browser.get(url + queues["appeals"])
    wait.until(seen.element_to_be_clickable((By.CSS_SELECTOR, f"#result_list a[href='{answer_href}']"))).click()
    form = wait.until(seen.presence_of_element_located((By.ID, "moderation-action-form")))
    assert "I was provoked first." in browser.find_element(By.ID, "content-main").text
    form.find_element(By.NAME, "answer").send_keys("I answer my own mute.")
    form.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    refused = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "#moderation-action-form .errornote")))
    assert "You imposed this sanction: another moderator answers the appeal." in refused.text
    appeal.refresh_from_db()
    assert appeal.status == "open" and my_sanctions(rude)[0]["appeal"]["status"] == "open"

    # Juhan answers it from the appeals queue: upheld, with a text rude reads.
    browser.delete_all_cookies()
    admin_log_in(browser, wait, "juhan", url=f"{url}/admin/login/?next={quote(queues['appeals'])}")
    wait.until(seen.element_to_be_clickable((By.CSS_SELECTOR, f"#result_list a[href='{answer_href}']"))).click()
    form = wait.until(seen.presence_of_element_located((By.ID, "moderation-action-form")))
    assert form.find_element(By.CSS_SELECTOR, "input[name=decision][value=uphold]").is_selected()
    form.find_element(By.NAME, "answer").send_keys("The insults were yours; the mute stays.")
    form.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    done = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    assert f"Appeal {appeal.pk} answered." in done.text
    assert not browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")  # the open ones: none left
    [still] = my_sanctions(rude)
    assert still["id"] == mute.pk
    assert still["appeal"]["status"] == "upheld"
    assert still["appeal"]["answer"] == "The insults were yours; the mute stays."
    assert AuditEntry.objects.filter(action=AuditAction.APPEAL_ANSWER, moderator=juhan, player=rude).exists()
