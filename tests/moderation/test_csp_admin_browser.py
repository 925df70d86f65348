"""The admin's moderation pages in headless Chromium under the site's
Content-Security-Policy: a moderator walks the report queue, a report, the
reported account's history, a running game, its replay and the sanctions, and
Chromium's console reports no violation on any of them (tests/csp_console.py).

Needs Debian's ``chromium`` and ``chromium-driver``; skipped without them, saying
why, except under ``CI=true``, where that is a failure.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from moderation import services as moderation
from players.models import User
from tests.api.games_helpers import play_turn
from tests.csp_console import csp_violations
from tests.moderation.admin_login import admin_log_in
from tests.moderation.conftest import game_admin_url
from tests.moderation.test_admin_browser import WAIT_SECONDS, chromium

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def console_browser(tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium that keeps the page's console."""
    yield from chromium(tmp_path, console=True)


def test_the_moderation_pages_break_no_rule_of_the_content_security_policy(
    console_browser: Any, live_server: Any, make_player: Any, make_table: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    browser = console_browser
    make_player("maria")
    call_command("add_moderator", "maria", stdout=open("/dev/null", "w"))  # noqa: SIM115
    mod = User.objects.get(username="maria")
    rude = make_player("rude_rudolf")
    reporter = make_player("alice")
    table = make_table(players=3)
    rng = random.Random(3)
    for _ in range(4):  # tiles on the table: the game page draws its layout
        play_turn(table.clients[table.game().turn_seat], table.game_id, rng)
    report = moderation.report_create(reporter=reporter, account=rude, reason="abuse", text="Insults, every game.")
    moderation.moderation_note_add(player=rude, by=mod, text="Known for long sulks.")
    moderation.moderation_player_warn(player=rude, by=mod, text="Keep the table friendly.")
    wait = WebDriverWait(browser, WAIT_SECONDS)
    seen_violations: dict[str, list[str]] = {}

    def visit(path: str, ready: tuple[str, str]) -> None:
        browser.get(live_server.url + path)
        wait.until(seen.presence_of_element_located(ready))
        seen_violations[path] = csp_violations(browser)

    visit("/admin/login/?next=/admin/", (By.NAME, "username"))
    admin_log_in(browser, wait, "maria")  # the password, then the second factor's page
    seen_violations["/admin/ (after log-in and its second factor)"] = csp_violations(browser)

    pages = [
        (reverse("admin:moderation_report_changelist") + "?status=open", (By.ID, "report-counts")),
        (reverse("admin:moderation_report_change", args=[report.pk]), (By.ID, "report-outcome-form")),
        (reverse("admin:players_user_change", args=[rude.pk]), (By.ID, "content-main")),
        (reverse("admin:players_user_changelist"), (By.ID, "result_list")),
        (game_admin_url(table.game_id), (By.ID, "tool-abort")),
        (game_admin_url(table.game_id, "replay"), (By.ID, "replay-moves")),
        (reverse("admin:games_game_changelist"), (By.ID, "result_list")),
        (reverse("admin:moderation_sanction_changelist"), (By.ID, "content-main")),
        (reverse("admin:moderation_moderatornote_changelist"), (By.ID, "content-main")),
        (reverse("admin:moderation_playerwarning_changelist"), (By.ID, "content-main")),
        (reverse("admin:moderation_auditentry_changelist"), (By.ID, "content-main")),
    ]
    for path, ready in pages:
        visit(path, ready)
    assert len(seen_violations) == len(pages) + 2
    assert {path: found for path, found in seen_violations.items() if found} == {}
