"""A report's journey: filed over the API, in the admin's queue (oldest first,
counted by state), opened with its target in context, resolved in one click, and
found in the audit trail (filtered by moderator, account and game) and on the
account's history. Also: mutes, notes, the replay page, sanctions ending."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.engine import Match, full_view
from moderation import selectors
from moderation import services as moderation
from moderation.models import AuditEntry, Report, Sanction
from tests.api.games_helpers import ok, play_turn, view
from tests.moderation.conftest import game_admin_url

pytestmark = pytest.mark.django_db
QUEUE = reverse("admin:moderation_report_changelist")
AUDIT = reverse("admin:moderation_auditentry_changelist")
REPORTS = "/api/v1/reports/"


def report_page(report_id: int) -> str:
    return reverse("admin:moderation_report_change", args=[report_id])


def test_a_report_travels_from_the_api_to_the_queue_to_an_outcome_to_the_audit_log(
    people: Any, mod_client: Client, moderator: Any
) -> None:
    reporter, client = people.player("reporter1")
    target, _target_client = people.player("rude1")
    _other_reporter, other_client = people.player("reporter2")
    older = ok(
        client.post(REPORTS, {"account": target.username, "reason": "abuse", "text": "slurs"}, format="json"), 201
    )
    newer = ok(other_client.post(REPORTS, {"account": target.username, "reason": "spam"}, format="json"), 201)

    # The queue: oldest first, with the counts per state.
    queue = mod_client.get(QUEUE + "?status=open")
    text = queue.content.decode()
    assert queue.status_code == 200 and 'id="report-counts"' in text
    assert "2 open" in text and "0 assigned" in text and "0 resolved" in text
    assert text.index(f"/moderation/report/{older['id']}/") < text.index(f"/moderation/report/{newer['id']}/")
    assert "open (2)" in text  # the filter says its count too

    # The report's page: the target in context (its history), the outcomes.
    page = mod_client.get(report_page(older["id"]))
    text = page.content.decode()
    assert page.status_code == 200 and "slurs" in text and 'id="account-history"' in text
    assert 'id="outcome-suspend"' in text and 'id="outcome-abort"' not in text  # no game to abort

    # One click: suspend for 24 hours.
    done = mod_client.post(
        report_page(older["id"]), {"outcome": "suspend", "reason": "Slurs at the table.", "duration": "24"}
    )
    assert done.status_code == 302
    target.refresh_from_db()
    assert not target.is_active
    suspension = Sanction.objects.get(player=target)
    assert suspension.kind == "suspension" and suspension.ends_at is not None
    assert timedelta(hours=23) < suspension.ends_at - timezone.now() <= timedelta(hours=24)
    resolved = Report.objects.get(pk=older["id"])
    assert (resolved.status, resolved.outcome, resolved.resolved_by) == ("resolved", "suspended", moderator)
    assert ok(client.get(REPORTS))["results"][0]["outcome"] == "suspended"  # the reporter sees the outcome

    # The audit trail, filtered by moderator and by account.
    entry = AuditEntry.objects.get(action="player_suspend")
    assert (entry.moderator, entry.player, entry.details["report"]) == (moderator, target, older["id"])
    for query in (f"?moderator__id__exact={moderator.pk}", f"?player__id__exact={target.pk}"):
        listing = mod_client.get(AUDIT + query).content.decode()
        assert "Slurs at the table." in listing, query
    assert "Slurs at the table." not in mod_client.get(AUDIT + f"?player__id__exact={reporter.pk}").content.decode()

    # The account's history on its page: the reports and the suspension, newest first.
    history = mod_client.get(reverse("admin:players_user_change", args=[target.pk])).content.decode()
    section = history[history.index('id="account-history"') :]
    # Newest first: the suspension, the newer report, the report that led to it.
    assert section.index("Slurs at the table.") < section.index("spam or advertising") < section.index("abuse or")
    assert "cf-history-suspension" in section and "cf-history-report" in section
    # The second report is still open; resolving the first one twice is refused on the page.
    again = mod_client.post(report_page(older["id"]), {"outcome": "dismiss", "reason": "x", "duration": "1"})
    assert again.status_code == 200 and "report_resolved" in again.content.decode()
    assert Report.objects.get(pk=newer["id"]).status == "open"
    assert "1 open" in mod_client.get(QUEUE).content.decode()


def test_a_report_about_a_game_shows_its_moves_and_can_abort_it_or_act_on_a_player(
    people: Any, mod_client: Client, make_table: Any, moderator: Any
) -> None:
    table = make_table(players=3)
    rng = random.Random(5)
    for _ in range(3):
        play_turn(table.clients[table.game().turn_seat], table.game_id, rng)
    reporter = table.clients[2]
    filed = ok(reporter.post(REPORTS, {"game": table.game_id, "reason": "cheating"}, format="json"), 201)
    text = mod_client.get(report_page(filed["id"])).content.decode()
    assert 'id="report-moves"' in text and 'id="outcome-abort"' in text and 'id="target-replay"' in text
    first = table.game().moves.order_by("number").first()
    assert f"{table.users[first.seat].username} " in text  # moves read with names
    # A warning for a game's report names the player: without one it is refused on the page.
    missing = mod_client.post(report_page(filed["id"]), {"outcome": "warn", "reason": "Play fair.", "duration": "1"})
    assert missing.status_code == 200 and "validation_error" in missing.content.decode()
    # Muting one of its players.
    muted = table.users[1]
    done = mod_client.post(
        report_page(filed["id"]),
        {"outcome": "mute", "reason": "Spamming the table.", "duration": "1", "player": str(muted.pk)},
    )
    assert done.status_code == 302 and selectors.is_muted(muted) and not selectors.is_muted(table.users[0])
    # Another report about the same game: abort it.
    second = ok(table.clients[0].post(REPORTS, {"game": table.game_id, "reason": "stalling"}, format="json"), 201)
    done = mod_client.post(report_page(second["id"]), {"outcome": "abort", "reason": "Collusion.", "duration": "1"})
    assert done.status_code == 302
    assert view(table.clients[0], table.game_id)["game"]["abort_reason"] == "Collusion."
    entry = AuditEntry.objects.get(action="game_abort")
    assert entry.game_id == table.game_id and entry.moderator == moderator
    assert "Collusion." in mod_client.get(AUDIT + f"?game__id__exact={table.game_id}").content.decode()


def test_mutes_and_suspensions_end_by_themselves(people: Any, moderator: Any) -> None:
    player, _client = people.player()
    other, _ = people.player()
    soon = timezone.now() + timedelta(minutes=5)
    mute = moderation.moderation_player_mute(player=player, by=moderator, reason="flood", until=soon)
    moderation.moderation_player_suspend(player=other, by=moderator, reason="abuse", until=soon)
    forever = moderation.moderation_player_mute(player=other, by=moderator, reason="for good")
    assert selectors.is_muted(player) and selectors.mute_in_force(user=other) == forever
    refusal = selectors.mute_refusal(player)
    assert refusal is not None and (refusal.code, refusal.status) == ("muted", 403)
    assert refusal.extra == {"until": soon.isoformat(), "reason": "flood"}  # the player is told why
    assert selectors.mute_refusal(other).extra == {"until": None, "reason": "for good"}  # type: ignore[union-attr]
    assert selectors.mute_refusal(moderator) is None
    assert moderation.sanctions_expire(now=timezone.now()) == []  # nothing due yet
    later = soon + timedelta(seconds=1)
    assert not selectors.is_muted(player, now=later)  # past its end it no longer holds, even before beat
    lifted = moderation.sanctions_expire(now=later)
    assert len(lifted) == 2 and mute.pk in lifted
    other.refresh_from_db()
    assert other.is_active and selectors.is_muted(other, now=later)  # the indefinite mute stays
    automatic = AuditEntry.objects.filter(moderator__isnull=True).order_by("id")
    assert [(e.action, e.player) for e in automatic] == [("player_unmute", player), ("player_unsuspend", other)]
    assert moderation.sanctions_expire(now=later) == []  # once only


def test_notes_and_the_sanction_page_of_an_account(people: Any, mod_client: Client) -> None:
    player, client = people.player()
    note = reverse("admin:players_user_note", args=[player.pk])
    assert mod_client.get(note).status_code == 200
    assert mod_client.post(note, {"text": ""}).status_code == 200  # a note needs text
    assert mod_client.post(note, {"text": "Rage-quits when losing."}).status_code == 302
    sanction = reverse("admin:players_user_sanction", args=[player.pk])
    assert mod_client.post(sanction, {"measure": "warn", "period": "0", "reason": "Be kind."}).status_code == 302
    page = mod_client.get(reverse("admin:players_user_change", args=[player.pk])).content.decode()
    assert 'id="tool-note"' in page and "Rage-quits when losing." in page and "Be kind." in page
    assert page.index("Be kind.") < page.index("Rage-quits when losing.")  # newest first
    # The player sees the warning, never the note.
    body = ok(client.get("/api/v1/me/warnings/"))
    assert [w["text"] for w in body["results"]] == ["Be kind."]


def test_the_replay_steps_through_the_public_layout(mod_client: Client, make_table: Any) -> None:
    table = make_table(players=2)
    rng = random.Random(11)
    for _ in range(4):
        play_turn(table.clients[table.game().turn_seat], table.game_id, rng)
    moves = list(table.game().moves.order_by("number"))
    url = game_admin_url(table.game_id, "replay")
    start = mod_client.get(url + "?step=0").content.decode()
    assert "move 0 of 4" in start and "The deal" in start and 'id="replay-forward"' in start
    assert 'id="replay-back"' not in start
    pages = [mod_client.get(f"{url}?step={n}").content.decode() for n in range(1, 5)]
    for n, page in enumerate(pages, start=1):
        assert f"move {n} of 4" in page
        assert f"{table.users[moves[n - 1].seat].username} " in page.split('id="replay-current"')[1][:200]
    assert 'id="replay-forward"' not in pages[-1]
    # Public information only: no hand, no boneyard, no seed on any page.
    full = full_view(Match.from_dict(table.game().state))
    for page in [start, *pages]:
        for hidden in (*full["hands"], full["boneyard"]):
            if hidden:  # an empty hand or boneyard has nothing to leak (and "" is in every page)
                assert " ".join(hidden) not in page
        assert f"Seed: {full['seed']}" not in page
    assert mod_client.get(url + "?step=junk").status_code == 200
