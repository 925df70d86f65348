"""The moderators' dashboard (moderation.admin.dashboard): the figures it draws
come from the database, each chart is a plain SVG (no script, no style: the admin
gets a strict Content-Security-Policy), only those who may see the report queue
see it; and in headless Chromium it renders (a screenshot: docs/admin-dashboard.png
with ``UPDATE_DOCS_SHOTS=1``)."""

from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from chat import services as chat
from chat.models import ChatFilterRule
from moderation import selectors
from moderation import services as moderation
from moderation.models import Report
from players.models import User
from tests.moderation.admin_login import admin_log_in
from tests.moderation.test_admin_browser import WAIT_SECONDS, browser, save_page  # noqa: F401 - the fixture

DASHBOARD = "/admin/moderation/report/dashboard/"
DOCS = Path(__file__).resolve().parents[2] / "docs"


def a_week_of_moderation(make_player: Any, make_table: Any) -> dict[str, Any]:
    """Reports over several days, a mute, a removed chat message, a game with moves."""
    mod = make_player("maria")
    call_command("add_moderator", "maria", stdout=open(os.devnull, "w"))  # noqa: SIM115
    mod = User.objects.get(pk=mod.pk)
    rude = make_player("rude_rudolf")
    reporters = [make_player(f"reporter{n}") for n in range(5)]
    table = make_table(players=2)
    made = [
        moderation.report_create(reporter=reporters[0], account=rude, reason="abuse", text="Insults."),
        moderation.report_create(reporter=reporters[1], account=rude, reason="abuse", text="More insults."),
        moderation.report_create(reporter=reporters[2], account=rude, reason="stalling", text="Waits out clocks."),
        moderation.report_create(reporter=reporters[3], game_id=table.game_id, reason="cheating", text="A bot?"),
        moderation.report_create(reporter=reporters[4], account=rude, reason="spam", text="Links."),
    ]
    now = timezone.now()
    # Spread them: two today, one 2 days ago, one 5 days ago (open for days), one 9 days ago.
    for report, days in zip(made, (0, 0, 2, 5, 9), strict=True):
        Report.objects.filter(pk=report.pk).update(created_at=now - timedelta(days=days, minutes=5))
    moderation.moderation_player_mute(player=rude, by=mod, reason="Cool down.", until=now + timedelta(hours=1))
    message = chat.chat_message_create(game_id=table.game_id, author=table.users[0], channel="players", text="rude")
    chat.chat_message_remove(message_id=message.pk, by=mod)
    return {"mod": mod, "table": table}


@pytest.mark.django_db
def test_the_figures_are_the_databases(make_player, make_table):
    a_week_of_moderation(make_player, make_table)
    figures = selectors.dashboard_figures()
    assert len(figures.days) == 30 and figures.days[-1] == timezone.now().date()
    assert sum(figures.reports_by_reason["abuse"]) == 2 and figures.reports_by_reason["abuse"][-1] == 2
    assert figures.reports_by_reason["stalling"][-3] == 1
    assert sum(figures.reports_by_reason["spam"]) == 1 and figures.reports_by_reason["spam"][-10] == 1
    # Open by age: under 1 h: 2 ... 1-3 days: 1, 3-7 days: 1, over 7 days: 1.
    assert figures.open_by_age == [2, 0, 0, 1, 1, 1]
    assert sum(figures.sanctions_by_kind["mute"]) == 1
    assert figures.messages_removed_per_day[-1] == 1
    assert figures.games_per_day[-1] >= 1


@pytest.mark.django_db
def test_the_page_is_plain_svg_for_moderators_only(make_player, make_table):
    setup = a_week_of_moderation(make_player, make_table)
    client = Client()
    client.force_login(setup["mod"])
    response = client.get(DASHBOARD)
    assert response.status_code == 200
    page = response.content.decode()
    body = page[page.index('<div id="moderation-dashboard">') : page.index("<!-- END Content -->")]
    assert body.count("<svg ") == 5
    assert "abuse 2</title>" in body  # today's bar of the reports chart says what it stands for
    for forbidden in ("<script", "style=", "<style", " on", "javascript:", "http://cdn", "https://"):
        if forbidden == " on":
            assert " onclick" not in body and " onload" not in body
        else:
            assert forbidden not in body, forbidden
    # Linked from the report queue.
    assert DASHBOARD in client.get("/admin/moderation/report/").content.decode()
    # A player (not staff) is sent to log in; staff without the queue's permission is refused.
    nobody = Client()
    nobody.force_login(make_player("curious"))
    assert nobody.get(DASHBOARD).status_code == 302
    staff = make_player("staffer")
    staff.is_staff = True
    staff.save()
    staff_client = Client()
    staff_client.force_login(staff)
    assert staff_client.get(DASHBOARD).status_code == 403


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_moderator_sees_the_dashboard_in_the_browser(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    make_table: Any,
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    a_week_of_moderation(make_player, make_table)
    wait = WebDriverWait(browser, WAIT_SECONDS)
    admin_log_in(browser, wait, "maria", url=f"{live_server.url}/admin/login/?next=/admin/moderation/report/")
    wait.until(seen.element_to_be_clickable((By.ID, "dashboard-link"))).click()
    wait.until(seen.presence_of_element_located((By.ID, "moderation-dashboard")))
    charts = browser.find_elements(By.CSS_SELECTOR, "section.cf-dashboard-chart svg")
    assert len(charts) == 5
    for chart in charts:  # drawn: each takes room on the page
        assert chart.size["width"] > 300 and chart.size["height"] > 100, chart.size
    bars = browser.find_elements(By.CSS_SELECTOR, "#reports-per-day svg rect")
    assert len(bars) >= 4  # four days with reports (and the legend's swatches)
    assert browser.find_element(By.CSS_SELECTOR, "#open-by-age h2").text == "Open reports by age"
    shot = tmp_path / "admin-dashboard.png"
    save_page(browser, shot)
    if os.environ.get("UPDATE_DOCS_SHOTS") == "1":
        shutil.copyfile(shot, DOCS / shot.name)


@pytest.mark.django_db
def test_the_dashboard_counts_held_messages_and_open_appeals_beside_reports(make_player, make_table):
    setup = a_week_of_moderation(make_player, make_table)
    client = Client()
    client.force_login(setup["mod"])
    body = client.get(DASHBOARD).content.decode()
    assert "0 chat messages are held by the filter." in body and "0 appeals are open." in body

    ChatFilterRule.objects.create(pattern="bad.example", kind="link", action="hold")
    author = setup["table"].users[1]
    User.objects.filter(pk=author.pk).update(date_joined=timezone.now() - timedelta(days=30))  # no new-account limit
    author = User.objects.get(pk=author.pk)
    for n in (1, 2):
        chat.chat_message_create(
            game_id=setup["table"].game_id, author=author, channel="players", text=f"see www.bad.example/{n}"
        )
    rude = User.objects.get(username="rude_rudolf")
    sanction = selectors.sanctions_in_force(user=rude).get()
    moderation.appeal_create(player=rude, sanction_id=sanction.pk, text="I was provoked.")

    body = client.get(DASHBOARD).content.decode()
    assert "2 chat messages are held by the filter." in body
    assert "1 appeal is open." in body
    assert 'href="/admin/chat/heldchatmessage/"' in body
    assert 'href="/admin/moderation/appeal/?status=open"' in body
    # the links lead to the two queues, with what the counts say
    held = client.get("/admin/chat/heldchatmessage/")
    assert held.status_code == 200 and held.context["cl"].result_count == 2
    appeals = client.get("/admin/moderation/appeal/?status=open")
    assert appeals.status_code == 200 and appeals.context["cl"].result_count == 1
