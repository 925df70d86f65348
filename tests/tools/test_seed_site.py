"""``manage.py seed_site``: a small run is a correctness test (nothing here is timed).

A seeded game must read as one played on the site: its record replays to its
stored result and state, its event log is numbered 1..seq without a gap and its
moves point at their first events; the leaderboard and a player's pages list the
seeded accounts; the same seed makes the same site; another database name than the
connection's writes nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from challenges.models import Challenge, ChallengeStatus
from chat.models import ChatMessage
from games.engine import Match, Ruleset
from games.models import Event, Game, GameStatus, Move
from moderation.models import Report, ReportStatus
from players.models import User
from ratings.models import Rating, RatingChange
from tools.seed_site import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def seed(prefix: str = "seed", seed: int = 3) -> str:
    out = io.StringIO()
    call_command(
        "seed_site",
        "--database", connection.settings_dict["NAME"],
        "--accounts", "200",
        "--finished-games", "20",
        "--open-games", "3",
        "--templates", "8",
        "--seed", str(seed),
        "--prefix", prefix,
        stdout=out,
    )  # fmt: skip
    return out.getvalue()


def test_seeded_games_replay_and_their_logs_are_whole(api_client: APIClient):
    text = seed()
    assert "rows:" in text and "seconds:" in text
    assert User.objects.filter(username__startswith="seed").count() == 200
    finished = list(Game.objects.filter(status=GameStatus.FINISHED).order_by("id"))
    assert len(finished) == 20
    assert Game.objects.filter(status=GameStatus.OPEN).count() == 3
    for game in finished:
        record = api_client.get(f"/api/v1/games/{game.pk}/record/").json()
        match = Match.replay(
            Ruleset.from_dict(record["ruleset"]), record["seed"], [(m["seat"], m["move"]) for m in record["moves"]]
        )
        assert match.status == "ended"
        assert {"totals": match.totals, "winners": match.winners, "tie_break": match.tie_break} == game.result
        assert match.to_dict() == game.state
        seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, game.seq + 1))
        kinds = list(Event.objects.filter(game=game).order_by("seq").values_list("type", flat=True))
        assert kinds[0] == "game_created" and kinds[-1] == "match_ended"
        assert kinds[game.seat_count + 1] == "game_started"
        for move in Move.objects.filter(game=game).order_by("number")[:5]:
            first = Event.objects.get(game=game, seq=move.seq)
            assert first.type in {"tile_played", "drew", "passed"}, (move, first.type)
        assert game.seats.count() == game.seat_count
        if game.rated:
            assert RatingChange.objects.filter(game=game).count() == game.seat_count
    # The event log endpoint pages through a whole seeded game.
    game = finished[0]
    page = api_client.get(f"/api/v1/games/{game.pk}/events/", {"after": 0}).json()
    assert page["events"][0]["seq"] == 1 and page["events"][0]["type"] == "game_created"
    last = api_client.get(f"/api/v1/games/{game.pk}/events/", {"after": game.seq - 1}).json()
    assert [e["seq"] for e in last["events"]] == [game.seq] and not last["has_more"]
    assert ChatMessage.objects.filter(game__in=finished).exists()
    assert Report.objects.filter(status=ReportStatus.OPEN).count() == 20
    assert Challenge.objects.filter(status=ChallengeStatus.PENDING).count() == 10


def test_the_leaderboard_and_a_players_pages_list_seeded_accounts(api_client: APIClient):
    seed()
    rating = Rating.objects.order_by("-ordinal").first()
    assert rating is not None
    board = api_client.get("/api/v1/leaderboard/", {"pool": rating.pool}).json()
    names = [entry["username"] for entry in board["results"]]
    assert names[0] == rating.user.username
    assert all(name.startswith("seed") for name in names)
    player = rating.user.username
    ratings = api_client.get(f"/api/v1/players/{player}/ratings/").json()
    assert any(r["pool"] == rating.pool and r["games"] == rating.games for r in ratings["pools"])
    games = api_client.get("/api/v1/games/", {"player": player, "status": "finished"}).json()
    assert games["results"] and all(g["status"] == "finished" for g in games["results"])
    # Every seeded account may log in with the seeded password.
    login = APIClient().post("/api/v1/session/", {"username": player, "password": PASSWORD}, format="json")
    assert login.status_code in (200, 201), login.content


def test_the_same_seed_makes_the_same_site():
    seed(prefix="first")
    made = list(Game.objects.order_by("id").values_list("seed", "rated", "seq", "status"))
    moves = list(Move.objects.order_by("id").values_list("number", "seat", "payload"))
    seed(prefix="again")
    again = list(Game.objects.order_by("id").values_list("seed", "rated", "seq", "status"))[len(made) :]
    assert again == made
    assert list(Move.objects.order_by("id").values_list("number", "seat", "payload"))[len(moves) :] == moves


def test_another_database_name_writes_nothing():
    with pytest.raises(CommandError, match="not 'chickenfoot_elsewhere'"):
        call_command("seed_site", "--database", "chickenfoot_elsewhere", "--accounts", "10", stdout=io.StringIO())
    assert not User.objects.exists() and not Game.objects.exists()


def test_every_table_written_is_analysed_at_the_end():
    """The seed ends with VACUUM ANALYZE of every table it wrote (``SEEDED_MODELS``):
    a table without statistics gets a planner's guess, and the challenges' invites,
    once left out, made the account stream's snapshot join every account (2.8 s at
    the full size; docs/performance.md, "Hot paths on a large database")."""
    from django.apps import apps

    from tools.seed_site import SEEDED_MODELS

    # A proxy (chat's held messages) reads its concrete model's table: that table is the one analysed.
    tables = [model for model in apps.get_models() if model._meta.managed and not model._meta.proxy]
    before = {model: model._default_manager.count() for model in tables}
    seed(prefix="stat")
    written = {model for model, count in before.items() if model._default_manager.count() > count}
    assert written == set(SEEDED_MODELS), written ^ set(SEEDED_MODELS)
