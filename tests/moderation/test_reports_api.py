"""The players' side of moderation over the API: reporting an account or a game,
listing one's own reports, and one's warnings - each refusal with its code, as
openapi.yaml documents it."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from moderation import services as moderation
from moderation.models import Report
from tests.api.games_helpers import ok, refused

pytestmark = pytest.mark.django_db
REPORTS = "/api/v1/reports/"
WARNINGS = "/api/v1/me/warnings/"


def report(client: APIClient, **body: Any) -> Any:
    return client.post(REPORTS, {"reason": "abuse", "text": "insults at the table", **body}, format="json")


def test_a_player_reports_an_account_and_a_game_and_lists_their_reports(people: Any, make_table: Any) -> None:
    _, client = people.player()
    target, _ = people.player()
    table = make_table()
    about_account = ok(report(client, account=target.username.upper()), 201)  # usernames ignore case
    assert about_account["target_kind"] == "account" and about_account["account"] == target.username
    assert (about_account["status"], about_account["outcome"], about_account["game"]) == ("open", None, None)
    about_game = ok(report(client, game=table.game_id, reason="stalling", text=""), 201)
    assert (about_game["target_kind"], about_game["game"], about_game["account"]) == ("game", table.game_id, None)
    listed = ok(client.get(REPORTS))
    assert [r["id"] for r in listed["results"]] == [about_game["id"], about_account["id"]]  # newest first
    # Others' reports are not listed.
    _, other = people.player()
    assert ok(other.get(REPORTS))["results"] == []


def test_the_refusals_of_reporting(people: Any, make_table: Any) -> None:
    reporter, client = people.player()
    target, _ = people.player()
    refused(
        APIClient().post(REPORTS, {"reason": "abuse", "account": target.username}, format="json"),
        401,
        "not_authenticated",
    )
    refused(APIClient().get(REPORTS), 401, "not_authenticated")
    refused(report(client, account=reporter.username), 422, "report_self")
    refused(report(client, account="nobody-here"), 404, "not_found")
    refused(report(client, game=999999), 404, "not_found")
    refused(report(client), 400, "validation_error")  # no target
    table = make_table()
    refused(report(client, account=target.username, game=table.game_id), 400, "validation_error")  # two
    refused(report(client, account=target.username, reason="rude"), 400, "validation_error")  # no such category
    refused(report(client, account=target.username, text="x" * 2001), 400, "validation_error")
    first = ok(report(client, account=target.username), 201)
    again = refused(report(client, account=target.username, reason="spam"), 409, "report_exists")
    assert again["report_id"] == first["id"]
    assert Report.objects.count() == 1


def test_a_resolved_report_allows_a_new_one(people: Any, moderator: Any) -> None:
    _, client = people.player()
    target, _ = people.player()
    first = ok(report(client, account=target.username), 201)
    moderation.report_dismiss(report_id=first["id"], by=moderator, reason="nothing in the logs")
    assert ok(client.get(REPORTS))["results"][0]["outcome"] == "dismissed"
    ok(report(client, account=target.username), 201)


def test_reports_are_rate_limited_per_account(people: Any, settings: Any) -> None:
    _, client = people.player()
    _, other = people.player()
    targets = [people.player()[0] for _ in range(4)]
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "reports": "3/hour"}
    settings.REST_FRAMEWORK = rest
    for target in targets[:3]:
        ok(report(client, account=target.username), 201)
    limited = refused(report(client, account=targets[3].username), 429, "rate_limited")
    assert limited["retry_after"] >= 1
    ok(client.get(REPORTS))  # listing is not limited by the reports scope
    ok(report(other, account=targets[3].username), 201)  # per account: another reporter is not limited
    assert Report.objects.count() == 4


def test_warnings_the_player_sees_and_acknowledges_never_naming_the_reporter(people: Any, moderator: Any) -> None:
    _, client = people.player("tattler")
    target, target_client = people.player()
    filed = ok(report(client, account=target.username), 201)
    assert ok(target_client.get(WARNINGS))["results"] == []
    warning = moderation.report_warn(report_id=filed["id"], by=moderator, reason="Keep it civil at the table.")
    listed = ok(target_client.get(WARNINGS))["results"]
    assert [(w["id"], w["text"], w["acknowledged_at"]) for w in listed] == [
        (warning.pk, "Keep it civil at the table.", None)
    ]
    assert b"tattler" not in target_client.get(WARNINGS).content  # the reporter is never named
    acknowledged = ok(target_client.post(f"{WARNINGS}{warning.pk}/acknowledge/"))
    assert acknowledged["acknowledged_at"] is not None
    again = ok(target_client.post(f"{WARNINGS}{warning.pk}/acknowledge/"))
    assert again["acknowledged_at"] == acknowledged["acknowledged_at"]  # the first time stays
    # Nobody else sees or acknowledges it.
    assert ok(client.get(WARNINGS))["results"] == []
    refused(client.post(f"{WARNINGS}{warning.pk}/acknowledge/"), 404, "not_found")
    refused(APIClient().get(WARNINGS), 401, "not_authenticated")
    refused(target_client.post(f"{WARNINGS}99999/acknowledge/"), 404, "not_found")
