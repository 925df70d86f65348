"""The ladder's API: the public listing, a bot opting in and out with its token,
and every refusal as the contract says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from bots.strategies import STRATEGIES
from ladder import services
from ladder.models import LadderEntry
from tests.openapi_check import assert_matches_schema

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

LADDER, ENTRY = "/api/v1/ladder/", "/api/v1/ladder/entry/"


def call(client: APIClient, method: str, url: str, body: object = None, status: int = 200) -> dict:
    response = getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json() if response.content else {}


def test_anyone_sees_the_levels_and_the_schedule_before_the_first_round(api_client, settings):
    settings.LADDER_INTERVAL_SECONDS = 600
    body = call(api_client, "get", LADDER)
    assert [
        (p["username"], p["level"], p["games"], p["joined_at"], p["table_sizes"]) for p in body["participants"]
    ] == [(f"ladder-{level}", level, 0, None, [2, 4]) for level in sorted(STRATEGIES)]
    schedule = body["schedule"]
    assert schedule["interval_seconds"] == 600 and schedule["last_round"] is None
    assert schedule["next_round_at"] is not None  # due now: nothing played yet


def test_a_bot_opts_in_changes_its_terms_and_leaves(make_player, token_client, settings):
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    bot = make_player("robo", is_bot=True)
    client = token_client(bot)
    call(client, "get", ENTRY, status=404)
    entry = call(client, "put", ENTRY, {})
    assert entry == {
        "username": "robo",
        "level": None,
        "active": True,
        "games": 0,
        "games_running": 0,
        "table_sizes": [2, 4],
        "max_games": 1,
        "joined_at": entry["joined_at"],
    }
    entry = call(client, "put", ENTRY, {"table_sizes": [2], "max_games": 3})
    assert (entry["table_sizes"], entry["max_games"]) == ([2], 3)
    assert call(client, "get", ENTRY) == entry

    services.round_play(slot=None, seed="api", table_size=2)  # 6 levels and robo: 3 tables of 2
    listing = call(APIClient(), "get", LADDER)
    rows = {p["username"]: p for p in listing["participants"]}
    assert len(rows) == len(STRATEGIES) + 1 and rows["robo"]["level"] is None
    assert sum(p["games"] for p in rows.values()) == 6
    assert listing["schedule"]["last_round"]["games"] == 3
    assert listing["participants"][-1]["username"] == "robo"  # the levels first, then outside bots

    call(client, "delete", ENTRY, status=204)
    assert call(client, "get", ENTRY)["active"] is False
    problem = call(client, "delete", ENTRY, status=404)
    assert problem["code"] == "not_on_ladder"
    again = call(client, "put", ENTRY, {})  # back on, its record kept
    assert again["active"] and again["joined_at"] == entry["joined_at"]


def test_a_human_account_is_refused(make_player, token_client):
    client = token_client(make_player("alice"))
    problem = call(client, "put", ENTRY, {}, status=403)
    assert problem["code"] == "ladder_bots_only" and "alice is not a bot account" in problem["detail"]
    assert call(client, "delete", ENTRY, status=403)["code"] == "ladder_bots_only"
    assert not LadderEntry.objects.exists()


def test_a_level_account_cannot_opt_in_or_out(token_client):
    (entry, *_) = services.level_entries_ensure()
    client = token_client(entry.user)  # only a test can give it a token
    assert call(client, "put", ENTRY, {}, status=403)["code"] == "ladder_level_account"
    assert call(client, "delete", ENTRY, status=403)["code"] == "ladder_level_account"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"table_sizes": [3]}, "table_sizes.0"),
        ({"table_sizes": []}, "table_sizes"),
        ({"max_games": 0}, "max_games"),
        ({"max_games": 11}, "max_games"),
    ],
)
def test_invalid_terms(make_player, token_client, body, field):
    problem = call(token_client(make_player("robo", is_bot=True)), "put", ENTRY, body, status=400)
    assert problem["code"] == "validation_error" and field in problem["errors"]


def test_the_entry_needs_credentials(api_client):
    for method in ("get", "put", "delete"):
        assert call(api_client, method, ENTRY, status=401)["code"] == "not_authenticated"


def test_the_next_round_is_the_next_slot_once_this_ones_is_played(api_client, settings):
    settings.LADDER_INTERVAL_SECONDS = 600
    settings.LADDER_RULESET = {"set_max": 6, "rounds": 1}
    played = services.round_due()
    assert played is not None and played.slot is not None
    schedule = call(api_client, "get", LADDER)["schedule"]
    expected = datetime.fromtimestamp((played.slot + 1) * 600, tz=UTC)
    assert datetime.fromisoformat(schedule["next_round_at"]) == expected
    assert schedule["last_round"]["table_size"] == 4
    settings.LADDER_INTERVAL_SECONDS = 0
    off = call(api_client, "get", LADDER)["schedule"]
    assert off["next_round_at"] is None and off["interval_seconds"] == 0
