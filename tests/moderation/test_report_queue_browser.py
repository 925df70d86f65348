"""The report queue in headless Chromium, as a member of the Moderators group
works it: log in, open the queue (open reports, oldest first, with counts), open
the oldest report, click an outcome, and see the queue again. The time from the
opened report to its outcome is measured and printed; screenshots of the queue
and of the account's history page go to artifacts/, and with
``UPDATE_DOCS_SHOTS=1`` to docs/ too (the ones the README shows).

Needs Debian's ``chromium`` and ``chromium-driver`` (see test_admin_browser)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from moderation import services as moderation
from moderation.models import AuditEntry, Report
from players.models import User
from tests.moderation.admin_login import admin_log_in
from tests.moderation.test_admin_browser import WAIT_SECONDS, browser, save_page  # noqa: F401 - the fixture

DOCS = Path(__file__).resolve().parents[2] / "docs"

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def keep(shot: Path) -> None:
    """A screenshot for the README, when asked (it changes with every run)."""
    if os.environ.get("UPDATE_DOCS_SHOTS") == "1":
        shutil.copyfile(shot, DOCS / shot.name)


def test_a_moderator_works_the_report_queue_in_the_browser(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    make_table: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import Select, WebDriverWait

    mod = make_player("maria")
    call_command("add_moderator", "maria", stdout=open("/dev/null", "w"))  # noqa: SIM115
    mod = User.objects.get(pk=mod.pk)
    rude = make_player("rude_rudolf")
    reporters = [make_player(name) for name in ("alice", "bob", "carol")]
    table = make_table(players=2)
    first = moderation.report_create(
        reporter=reporters[0], account=rude, reason="abuse", text="Insults in every game tonight, three times."
    )
    moderation.report_create(reporter=reporters[1], account=rude, reason="stalling", text="Waits out every clock.")
    moderation.report_create(reporter=reporters[2], game_id=table.game_id, reason="cheating", text="Plays like a bot.")
    moderation.moderation_note_add(player=rude, by=mod, text="Known for long sulks; watch the clock.")
    moderation.moderation_player_warn(player=rude, by=mod, text="Keep the table friendly.")
    wait = WebDriverWait(browser, WAIT_SECONDS)

    admin_log_in(browser, wait, "maria", url=f"{live_server.url}/admin/login/?next=/admin/")

    # The queue: open reports, oldest first, with the counts.
    # From the admin's home page, counting clicks: Reports, then "open" above the list.
    clicks = 0

    def click(element: Any) -> None:
        nonlocal clicks
        clicks += 1
        element.click()

    click(
        browser.find_element(
            By.CSS_SELECTOR, f"#content-main a[href='{reverse('admin:moderation_report_changelist')}']"
        )
    )
    click(wait.until(seen.element_to_be_clickable((By.ID, "count-open"))))
    wait.until(seen.url_contains("status=open"))
    counts = wait.until(seen.presence_of_element_located((By.ID, "report-counts"))).text
    assert "3 open" in counts and "0 resolved" in counts
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 3 and "rude_rudolf" in rows[0].text
    save_page(browser, tmp_path / "moderation-queue.png")
    keep(tmp_path / "moderation-queue.png")

    # Open the oldest report, then one click: suspend for 24 hours (the defaults).
    click(rows[0].find_element(By.CSS_SELECTOR, "th a, td a"))
    wait.until(seen.presence_of_element_located((By.ID, "report-outcome-form")))
    save_page(browser, tmp_path / "moderation-report.png")  # artifacts/ only
    opened = time.monotonic()
    assert "Insults in every game" in browser.find_element(By.ID, "report-text").text
    assert Select(browser.find_element(By.NAME, "duration")).first_selected_option.text == "24 hours"
    click(browser.find_element(By.ID, "outcome-suspend"))
    message = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success")))
    seconds = time.monotonic() - opened
    assert f"Report {first.pk}: player suspended." in message.text
    # Both reports about rude_rudolf were one group: resolved at once, the suspension taken once.
    assert "Resolved with it: reports" in message.text
    with capsys.disabled():
        print(f"\nreport opened -> outcome shown: {seconds:.2f} s (one click); home page -> outcome: {clicks} clicks")
    assert clicks == 4
    (tmp_path / "report-to-outcome.txt").write_text(f"{seconds:.3f}\n")

    first.refresh_from_db()
    rude.refresh_from_db()
    assert (first.status, first.outcome, first.resolved_by) == ("resolved", "suspended", mod)
    assert not rude.is_active
    assert AuditEntry.objects.filter(action="player_suspend", moderator=mod, player=rude).exists()
    assert set(Report.objects.filter(account=rude).values_list("status", "outcome")) == {("resolved", "suspended")}
    assert Report.objects.filter(status="open").count() == 1  # back in the queue: the game's report left
    assert "1 open" in browser.find_element(By.ID, "report-counts").text

    # The account's history page: reports, the suspension, the warning and the note, newest first.
    browser.get(live_server.url + reverse("admin:players_user_change", args=[rude.pk]))
    history = wait.until(seen.presence_of_element_located((By.ID, "account-history"))).text
    for expected in ("suspension", "Keep the table friendly.", "Known for long sulks", "stalling"):
        assert expected in history, expected
    save_page(browser, tmp_path / "moderation-history.png")
    keep(tmp_path / "moderation-history.png")


def test_keyboard_shortcuts_in_the_queue_and_the_replay(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    make_table: Any,
) -> None:
    """j / k walk the queue, Enter opens the report; the arrow keys step the replay."""
    import random

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.api.games_helpers import play_turn

    make_player("maria")
    call_command("add_moderator", "maria", stdout=open("/dev/null", "w"))  # noqa: SIM115
    table = make_table(players=2)
    rng = random.Random(5)
    for _ in range(3):
        play_turn(table.clients[table.game().turn_seat], table.game_id, rng)
    reports = [
        moderation.report_create(reporter=make_player(name), account=make_player(f"{name}_target"), reason="spam")
        for name in ("ann", "ben", "cid")
    ]
    wait = WebDriverWait(browser, WAIT_SECONDS)
    admin_log_in(browser, wait, "maria", url=f"{live_server.url}/admin/login/?next=/admin/")

    browser.get(live_server.url + reverse("admin:moderation_report_changelist") + "?status=open")
    assert "j / k" in wait.until(seen.presence_of_element_located((By.ID, "queue-keys"))).text
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    body.send_keys("j")
    body.send_keys("k")
    body.send_keys("j")  # the second row
    current = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "#result_list tr.cf-key-current")))
    assert "ben_target" in current.text
    body.send_keys(Keys.ENTER)
    wait.until(seen.url_contains(reverse("admin:moderation_report_change", args=[reports[1].pk])))

    replay = live_server.url + reverse("admin:games_game_replay", args=[table.game_id])
    browser.get(replay + "?step=1")
    assert "move 1 of 3" in wait.until(seen.presence_of_element_located((By.ID, "replay-position"))).text
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait.until(seen.text_to_be_present_in_element((By.ID, "replay-position"), "move 2 of 3"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait.until(seen.text_to_be_present_in_element((By.ID, "replay-position"), "move 1 of 3"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait.until(seen.text_to_be_present_in_element((By.ID, "replay-position"), "move 3 of 3"))


def test_a_group_with_its_evidence_a_canned_text_a_custom_duration_and_a_lift_in_the_browser(
    browser: Any,  # noqa: F811 - the fixture imported above
    live_server: Any,
    make_player: Any,
    make_table: Any,
) -> None:
    """An account's two reports as one case: the evidence on the page (its game, its
    timeout, think times to the second), a canned warning picked from the list, a
    90-minute mute for the group, then the mute lifted from the account's page."""
    import random
    import re
    from datetime import timedelta

    from django.utils import timezone
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from games import services as game_services
    from games.models import Game
    from moderation import canned
    from moderation.models import Sanction
    from tests.api.games_helpers import play_turn

    make_player("maria")
    call_command("add_moderator", "maria", stdout=open("/dev/null", "w"))  # noqa: SIM115
    table = make_table(players=2, rounds=None, turn_time_limit=30)
    play_turn(table.clients[table.game().turn_seat], table.game_id, random.Random(2))
    game = table.game()
    sulky, other = table.users[game.turn_seat], table.users[1 - game.turn_seat]
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert game_services.turn_timeout(game_id=game.pk, expected_seq=game.seq) is not None
    first = moderation.report_create(reporter=other, account=sulky, reason="stalling", text="Lets the clock run.")
    moderation.report_create(reporter=make_player("kibitzer"), account=sulky, reason="stalling")
    game_report = moderation.report_create(reporter=other, game_id=table.game_id, reason="stalling")
    wait = WebDriverWait(browser, WAIT_SECONDS)
    admin_log_in(browser, wait, "maria", url=f"{live_server.url}/admin/login/?next=/admin/")

    browser.get(live_server.url + reverse("admin:moderation_report_change", args=[game_report.pk]))
    moves = wait.until(seen.presence_of_element_located((By.ID, "report-moves"))).text
    assert re.search(r"\b\d\d:\d\d:\d\d\b", moves) and re.search(r"\d+\.\d s", moves), moves
    assert sorted(cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#report-seats .cf-timeouts")) == [
        "0",
        "1",
    ]

    browser.get(live_server.url + reverse("admin:moderation_report_change", args=[first.pk]))
    totals = wait.until(seen.presence_of_element_located((By.ID, "evidence-totals"))).text
    assert "turns timed out 1," in totals
    assert str(table.game_id) in browser.find_element(By.ID, "evidence-games").text
    assert "2 open reports about this target" in browser.page_source
    Select(browser.find_element(By.NAME, "canned")).select_by_value("stalling")
    reason = browser.find_element(By.NAME, "reason")
    wait.until(lambda _driver: reason.get_attribute("value") == str(canned.WARNINGS["stalling"]))
    browser.find_element(By.NAME, "minutes").send_keys("90")
    assert browser.find_element(By.NAME, "whole_group").is_selected()
    browser.find_element(By.ID, "outcome-mute").click()
    message = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success"))).text
    assert f"Report {first.pk}: player muted." in message and "Resolved with it" in message
    mute = Sanction.objects.get(player=sulky)
    assert mute.ends_at is not None and timedelta(minutes=89) < mute.ends_at - mute.starts_at < timedelta(minutes=91)
    assert Report.objects.filter(account=sulky, status="resolved", target_kind="account").count() == 2

    browser.get(live_server.url + reverse("admin:players_user_change", args=[sulky.pk]))
    wait.until(seen.element_to_be_clickable((By.ID, "tool-lift"))).click()
    wait.until(seen.element_to_be_clickable((By.CSS_SELECTOR, f"input[name=sanction][value='{mute.pk}']"))).click()
    browser.find_element(By.CSS_SELECTOR, "#moderation-action-form input[type=submit]").click()
    message = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ul.messagelist li.success"))).text
    assert f"Sanction lifted on account {sulky.username}." in message
    mute.refresh_from_db()
    assert mute.lifted_at is not None
