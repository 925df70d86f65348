"""Issue 43 (the report queue): the evidence at hand on a report's page (move times
to the second, think times, each seat's timeouts; an account's recent games,
timeouts, resignations and the reports against and by it, a retaliatory report
flagged), reports grouped by target and resolved at once, bulk actions,
reassigning, the moderators' discussion, custom durations, lifting one sanction
from the account's page (and what the player then sees on ``/me/``), canned texts,
report statistics and the reporter filter, and the small ones (usernames as
written, the Reveal-hands help, a 403 logged as a one-line refusal)."""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services as game_services
from games.models import Game, Move
from moderation import canned
from moderation import services as moderation
from moderation.models import AuditEntry, PlayerWarning, Report, ReportComment, Sanction
from tests.api.games_helpers import ok, play_turn
from tests.moderation.conftest import audit_actions, game_admin_url, run_list_action
from tests.moderation.test_sanctions_explained import log_in

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]
QUEUE = reverse("admin:moderation_report_changelist")
ME = "/api/v1/me/"


def report_page(report_id: int) -> str:
    return reverse("admin:moderation_report_change", args=[report_id])


def user_page(user_id: int, page: str) -> str:
    return reverse(f"admin:players_user_{page}", args=[user_id])


def time_out(game: Game) -> None:
    """The turn clock of the seat to move runs out (as beat's task finds it)."""
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert game_services.turn_timeout(game_id=game.pk, expected_seq=game.seq) is not None


def test_a_game_report_shows_each_move_to_the_second_its_think_time_and_the_seats_timeouts(
    make_table: Any, make_player: Any, mod_client: Client
) -> None:
    table = make_table(players=2, rounds=None, turn_time_limit=30)
    rng = random.Random(3)
    play_turn(table.clients[table.game().turn_seat], table.game_id, rng)  # move 1: a player
    time_out(table.game())  # move 2: the turn clock
    first, second = Move.objects.filter(game_id=table.game_id).order_by("number")[:2]
    start = timezone.now().replace(hour=11, minute=13, second=5, microsecond=0) - timedelta(days=1)
    Game.objects.filter(pk=table.game_id).update(started_at=start)
    Move.objects.filter(pk=first.pk).update(created_at=start + timedelta(seconds=2, milliseconds=400))
    Move.objects.filter(pk=second.pk).update(created_at=start + timedelta(seconds=32, milliseconds=400))
    report = moderation.report_create(reporter=make_player("witness"), game_id=table.game_id, reason="stalling")

    page = mod_client.get(report_page(report.pk)).content.decode()
    assert "11:13:07" in page and "11:13:37" in page  # to the second, not "11:13 a.m."
    assert "2.4 s" in page and "30.0 s" in page  # the think times
    timeouts = [cell.split("</td>")[0] for cell in page.split('class="cf-timeouts">')[1:]]
    assert sorted(timeouts) == ["0", "1"]  # the seat that timed out, and the other

    # The game's page (its move log) and the replay show the same.
    game_page = mod_client.get(game_admin_url(table.game_id)).content.decode()
    assert f"{start:%Y-%m-%d} 11:13:07" in game_page and "30.0 s" in game_page
    replay = mod_client.get(reverse("admin:games_game_replay", args=[table.game_id])).content.decode()
    assert "11:13:37" in replay and "(30.0 s)" in replay
    assert 'id="replay-keys"' in replay and "keys.js" in replay  # the arrow keys, documented on the page


def test_an_account_report_shows_its_games_timeouts_resignations_and_reports_and_flags_retaliation(
    make_table: Any, make_player: Any, mod_client: Client
) -> None:
    table = make_table(players=2, rounds=None, turn_time_limit=30)
    game = table.game()
    sulky = table.users[game.turn_seat]
    time_out(game)
    other = make_table(players=2)
    game_services.game_resign(game_id=other.game_id, player=other.users[1])
    resigner = other.users[1]
    accuser = table.users[1 - game.turn_seat]
    first = moderation.report_create(reporter=accuser, account=sulky, reason="stalling", text="Waits out the clock.")
    answer = moderation.report_create(reporter=sulky, account=accuser, reason="abuse", text="They are mean.")
    Report.objects.filter(pk=answer.pk).update(created_at=first.created_at + timedelta(minutes=4))
    unrelated = moderation.report_create(reporter=make_player("later"), account=accuser, reason="spam")
    Report.objects.filter(pk=unrelated.pk).update(created_at=first.created_at - timedelta(hours=3))

    page = mod_client.get(report_page(first.pk)).content.decode()
    assert f'href="{game_admin_url(table.game_id)}"' in page  # the account's recent game
    totals = page.split('id="evidence-totals">')[1].split("</p>")[0]
    assert "In all: games 1, turns timed out 1, resignations 0." in totals
    by_it = page.split('id="evidence-reports-by"')[1].split("</table>")[0]
    assert f">{answer.pk}</a>" in by_it and f"possibly retaliatory (after report {first.pk})" in by_it
    against = page.split('id="evidence-reports-against"')[1].split("</table>")[0]
    assert f">{first.pk}</a>" in against and "retaliatory" not in against

    # The answer's own page says it, at the top; a report long after says nothing.
    flagged = mod_client.get(report_page(answer.pk)).content.decode()
    assert 'id="report-retaliation"' in flagged and f"(report {first.pk})" in flagged
    assert 'id="report-retaliation"' not in mod_client.get(report_page(unrelated.pk)).content.decode()

    resigned = moderation.report_create(reporter=other.users[0], account=resigner, reason="stalling")
    totals = mod_client.get(report_page(resigned.pk)).content.decode().split('id="evidence-totals">')[1]
    assert "resignations 1." in totals.split("</p>")[0]


def test_open_reports_on_one_target_are_one_group_resolved_at_once_with_a_custom_duration(
    people: Any, make_player: Any, mod_client: Client, moderator: Any
) -> None:
    target, target_client = people.player()
    reports = [
        moderation.report_create(reporter=make_player(name), account=target, reason=reason, text=f"{name} says")
        for name, reason in (("ann", "abuse"), ("ben", "spam"), ("cid", "abuse"))
    ]
    queue = mod_client.get(QUEUE + "?status=open").content.decode()
    assert queue.count('<td class="field-group">3</td>') == 3  # each row: 3 open on its target

    page = mod_client.get(report_page(reports[0].pk)).content.decode()
    group = page.split('id="report-group"')[1].split("</table>")[0]
    assert "abuse or harassment (2)" in group and "spam or advertising (1)" in group
    assert "ann, ben, cid" in group
    # Mute for 90 minutes (a custom length), the whole group at once.
    before = timezone.now()
    done = mod_client.post(
        report_page(reports[0].pk),
        {"outcome": "mute", "reason": "Insults in the chat.", "duration": "24", "minutes": "90", "whole_group": "on"},
    )
    assert done.status_code == 302, done.content[:3000]
    for report in reports:
        report.refresh_from_db()
        assert (report.status, report.outcome, report.resolved_by) == ("resolved", "muted", moderator)
    mute = Sanction.objects.get(player=target)  # the measure once
    assert mute.ends_at is not None
    assert timedelta(minutes=89) < mute.ends_at - before < timedelta(minutes=91)
    assert audit_actions(moderator=moderator) == ["player_mute", "report_resolve", "report_resolve"]

    # The player sees the mute with its reason and its end on /me/.
    me = ok(target_client.get(ME))
    assert [(s["kind"], s["reason"]) for s in me["sanctions"]] == [("mute", "Insults in the chat.")]
    assert me["sanctions"][0]["ends_at"].startswith(f"{mute.ends_at:%Y-%m-%dT%H:%M}")

    # Lifted from the account's page: audited, and gone from /me/ at once.
    lift_page = mod_client.get(user_page(target.pk, "lift"))
    assert lift_page.status_code == 200 and "Insults in the chat." in lift_page.content.decode()
    lifted = mod_client.post(user_page(target.pk, "lift"), {"sanction": str(mute.pk), "reason": "Apologised."})
    assert lifted.status_code == 302
    mute.refresh_from_db()
    assert mute.lifted_at is not None and mute.lifted_by == moderator
    entry = AuditEntry.objects.filter(moderator=moderator).latest("id")
    assert (entry.action, entry.reason, entry.details) == ("player_unmute", "Apologised.", {"sanctions": [mute.pk]})
    assert ok(target_client.get(ME))["sanctions"] == []


def test_a_group_can_be_left_apart_and_one_report_resolved_alone(make_player: Any, mod_client: Client) -> None:
    target = make_player("target")
    one = moderation.report_create(reporter=make_player("r1"), account=target, reason="spam")
    two = moderation.report_create(reporter=make_player("r2"), account=target, reason="spam")
    done = mod_client.post(report_page(one.pk), {"outcome": "dismiss", "reason": "Nothing.", "duration": "24"})
    assert done.status_code == 302
    one.refresh_from_db()
    two.refresh_from_db()
    assert (one.status, two.status) == ("resolved", "open")


def test_a_suspension_of_minutes_and_lifting_it_reinstates_the_account(
    people: Any, mod_client: Client, moderator: Any
) -> None:
    target, _client = people.player()
    page = user_page(target.pk, "sanction")
    answer = mod_client.post(page, {"measure": "suspend", "period": "0", "minutes": "15", "reason": "Cool down."})
    assert answer.status_code == 302
    suspension = Sanction.objects.get(player=target)
    assert suspension.ends_at is not None
    assert timedelta(minutes=14) < suspension.ends_at - suspension.starts_at <= timedelta(minutes=15, seconds=1)
    target.refresh_from_db()
    assert not target.is_active
    # The player's log-in refusal tells the custom end; after the lift the log-in works.
    refusal = log_in(target.username)
    assert refusal.status_code == 403 and refusal.json()["code"] == "suspended"
    assert refusal.json()["until"].startswith(f"{suspension.ends_at:%Y-%m-%dT%H:%M}")
    assert mod_client.post(user_page(target.pk, "lift"), {"sanction": str(suspension.pk)}).status_code == 302
    target.refresh_from_db()
    assert target.is_active
    assert log_in(target.username).status_code == 201
    assert audit_actions(moderator=moderator) == ["player_suspend", "player_unsuspend"]
    # Lifting it again: refused on the page, nothing changes.
    again = mod_client.post(user_page(target.pk, "lift"), {"sanction": str(suspension.pk)})
    assert again.status_code == 200 and audit_actions(moderator=moderator)[-1] == "player_unsuspend"


def test_reassign_unassign_and_the_moderators_discussion(
    make_player: Any, make_staff: Any, mod_client: Client, moderator: Any
) -> None:
    other = make_staff("mod2")
    watcher = make_staff("watcher", moderate=False)
    report = moderation.report_create(reporter=make_player("r1"), account=make_player("t1"), reason="spam")
    page = report_page(report.pk)
    assert mod_client.post(page, {"outcome": "reassign", "assign_to": str(other.pk)}).status_code == 302
    report.refresh_from_db()
    assert (report.status, report.assignee) == ("assigned", other)
    assert mod_client.post(page, {"outcome": "unassign"}).status_code == 302
    report.refresh_from_db()
    assert (report.status, report.assignee) == ("open", None)
    # Only moderators take reports.
    assert mod_client.post(page, {"outcome": "reassign", "assign_to": str(watcher.pk)}).status_code == 302
    report.refresh_from_db()
    assert report.assignee is None

    assert (
        mod_client.post(page, {"outcome": "comment", "comment": "Looks like a pile-on; check chat."}).status_code == 302
    )
    shown = mod_client.get(page).content.decode()
    assert "Looks like a pile-on; check chat." in shown.split('id="report-comments"')[1]
    assert ReportComment.objects.get(report=report).author == moderator
    assert audit_actions(moderator=moderator) == ["report_assign", "report_unassign", "report_comment"]

    viewer = Client()
    viewer.force_login(watcher)
    assert viewer.post(page, {"outcome": "comment", "comment": "x"}).status_code == 403
    assert ReportComment.objects.count() == 1


def test_bulk_actions_on_the_queue(make_player: Any, mod_client: Client, moderator: Any) -> None:
    reports = [
        moderation.report_create(reporter=make_player(f"r{n}"), account=make_player(f"t{n}"), reason="spam")
        for n in range(3)
    ]
    ids = [r.pk for r in reports]
    mod_client.post(QUEUE, {"action": "assign_selected", "_selected_action": [str(i) for i in ids], "index": "0"})
    assert set(Report.objects.values_list("status", "assignee")) == {("assigned", moderator.pk)}
    mod_client.post(QUEUE, {"action": "unassign_selected", "_selected_action": [str(ids[0])], "index": "0"})
    assert Report.objects.get(pk=ids[0]).status == "open"
    answer = run_list_action(mod_client, QUEUE, "dismiss_selected", ids, reason="Not against the rules.")
    assert answer.status_code == 302
    assert set(Report.objects.values_list("status", "outcome")) == {("resolved", "dismissed")}
    assert audit_actions(moderator=moderator).count("report_dismiss") == 3


def test_the_default_warning_never_says_the_player_was_reported_and_canned_texts_fill_it(
    people: Any, make_player: Any, mod_client: Client
) -> None:
    target, _client = people.player()
    report = moderation.report_create(reporter=make_player("snitch"), account=target, reason="abuse")
    page = mod_client.get(report_page(report.pk)).content.decode()
    reason_box = page.split('name="reason"')[1].split("</textarea>")[0]
    assert str(canned.WARNINGS["abuse"]) in reason_box
    assert "eport" not in reason_box and "snitch" not in reason_box
    # The canned text is used when the reason is left empty.
    done = mod_client.post(
        report_page(report.pk), {"outcome": "warn", "reason": "", "canned": "stalling", "duration": "24"}
    )
    assert done.status_code == 302
    warning = PlayerWarning.objects.get(player=target)
    assert warning.text == str(canned.WARNINGS["stalling"])
    # On the account's page too (warnings and notes).
    note = mod_client.post(user_page(target.pk, "note"), {"text": "", "canned": "watch"})
    assert note.status_code == 302
    assert target.moderator_notes.get().text == str(canned.NOTES["watch"])


def test_a_message_keeps_the_username_as_written(people: Any, mod_client: Client) -> None:
    target, _client = people.player()
    type(target).objects.filter(pk=target.pk).update(username="bob")
    done = mod_client.post(user_page(target.pk, "sanction"), {"measure": "warn", "period": "0", "reason": "Be kind."})
    shown = mod_client.get(done["Location"]).content.decode()
    assert "Account bob warned." in shown and "Bob" not in shown
    users = reverse("admin:players_user_changelist")
    answer = run_list_action(mod_client, users, "revoke_tokens", [target.pk], reason="x")
    assert "Account bob: 1 token revoked." in mod_client.get(answer["Location"]).content.decode()


def test_the_reveal_hands_help_says_what_happens_to_the_reason(make_table: Any, mod_client: Client) -> None:
    table = make_table()
    page = mod_client.get(game_admin_url(table.game_id, "hands")).content.decode()
    assert "also shown to its players" not in page
    assert "the game&#x27;s players are not shown it" in page or "the game's players are not shown it" in page


def test_a_403_is_logged_as_a_one_line_refusal_without_a_traceback(make_staff: Any, make_table: Any) -> None:
    table = make_table()
    viewer = Client()
    viewer.force_login(make_staff("watcher", moderate=False))
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep()
    logger = logging.getLogger("django.request")
    logger.addHandler(keep)
    try:
        assert viewer.get(game_admin_url(table.game_id, "abort")).status_code == 403
    finally:
        logger.removeHandler(keep)
    [record] = records
    assert record.exc_info is None and record.levelno == logging.INFO
    assert record.getMessage().startswith(f"Refused (403): {game_admin_url(table.game_id, 'abort')}")
    assert "\n" not in logging.Formatter().format(record)


def test_report_statistics_by_reason_and_the_reporter_filter(make_player: Any, mod_client: Client) -> None:
    ann, ben = make_player("ann"), make_player("ben")
    first = moderation.report_create(reporter=ann, account=make_player("t1"), reason="abuse")
    moderation.report_create(reporter=ann, account=make_player("t2"), reason="spam")
    moderation.report_create(reporter=ben, account=make_player("t3"), reason="abuse")
    moderation.report_dismiss(report_id=first.pk, by=type(ann).objects.get(username="mod"), reason="no")
    queue = mod_client.get(QUEUE).content.decode()
    abuse = queue.split('id="reason-abuse"')[1].split("</tr>")[0]
    assert [cell.split("</td>")[0] for cell in abuse.split("<td>")[2:]] == ["1", "1", "0"]
    assert 'id="queue-keys"' in queue and "keys.js" in queue  # j/k, documented on the page
    mine = mod_client.get(QUEUE + f"?reporter={ann.pk}").content.decode()
    rows = mine.split('<td class="field-reporter nowrap">')[1:]
    assert [row.split("</td>")[0] for row in rows] == ["ann", "ann"], rows[:1]
