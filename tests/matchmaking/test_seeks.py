"""Quick play through the API and the matcher's service, in process: making,
reading and cancelling seeks, every refusal, what the matcher makes of them (a
table of seekers, bots or expiry when a wait runs out, never a player in two
games), the account stream's feed, and the admin's cancel."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from games import services as game_services
from games.models import Game, GameStatus
from matchmaking import feeds, hooks, services
from matchmaking.models import Seek
from players import services as player_services
from tests.api.games_helpers import People, ok, refused

pytestmark = pytest.mark.django_db

SEEKS = "/api/v1/seeks/"


def seek_url(seek_id: int) -> str:
    return f"{SEEKS}{seek_id}/"


def post_seek(client: Any, **body: Any) -> dict[str, Any]:
    body.setdefault("players", 2)
    body.setdefault("preset", "double-6-quick")
    return ok(client.post(SEEKS, body, format="json"), 201)


def later(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


# -- the API --------------------------------------------------------------------------


def test_a_seek_is_made_read_listed_and_cancelled(people: People):
    _user, client = people.player()
    seek = post_seek(client, players=4, preset="double-9", rated=True, turn_time_limit=30, wait_seconds=45)
    assert seek["status"] == "waiting" and seek["game"] is None and seek["reason"] is None
    assert (seek["players"], seek["preset"], seek["rated"], seek["turn_time_limit"]) == (4, "double-9", True, 30)
    assert seek["bot_level"] == hooks.DEFAULT_LEVEL and seek["on_timeout"] == "bots"
    window = services.rating_window()
    assert seek["rating_window"] == {"base": window.base, "per_second": window.per_second, "most": window.most}
    assert ok(client.get(seek_url(seek["id"]))) == seek
    listed = ok(client.get(SEEKS))
    assert listed["count"] == 1 and listed["results"] == [seek]

    cancelled = ok(client.delete(seek_url(seek["id"])))
    assert (cancelled["status"], cancelled["reason"]) == ("cancelled", "by_player")
    refused(client.delete(seek_url(seek["id"])), 409, "seek_closed")
    assert ok(client.get(f"{SEEKS}?status=waiting"))["count"] == 0
    assert ok(client.get(f"{SEEKS}?status=cancelled"))["count"] == 1
    post_seek(client)  # the cancelled one no longer counts


def test_an_omitted_wait_is_the_servers_default(people: People, settings):
    settings.MATCHMAKING_DEFAULT_WAIT_SECONDS = 7
    _user, client = people.player()
    assert post_seek(client)["wait_seconds"] == 7


def test_a_casual_seek_has_no_rating_window(people: People):
    _user, client = people.player()
    assert post_seek(client, rated=False)["rating_window"] is None


def test_another_accounts_seek_is_not_found(people: People):
    _, alice = people.player()
    _, bob = people.player()
    seek = post_seek(alice)
    refused(bob.get(seek_url(seek["id"])), 404, "not_found")
    refused(bob.delete(seek_url(seek["id"])), 404, "not_found")
    assert ok(bob.get(SEEKS))["count"] == 0
    assert ok(alice.get(seek_url(seek["id"])))["status"] == "waiting"


def test_one_waiting_seek_per_account(people: People):
    _, client = people.player()
    first = post_seek(client)
    body = refused(client.post(SEEKS, {"players": 3, "preset": "double-9"}, format="json"), 409, "seek_exists")
    assert body["seek_id"] == first["id"]


def test_no_seek_while_seated_at_an_open_or_running_table(people: People, make_table):
    table = make_table(players=2, start=False)  # open
    body = refused(
        table.clients[1].post(SEEKS, {"players": 2, "preset": "double-6"}, format="json"), 409, "seated_elsewhere"
    )
    assert body["game_id"] == table.game_id
    running = make_table(players=2)
    refused(
        running.clients[0].post(SEEKS, {"players": 2, "preset": "double-6"}, format="json"), 409, "seated_elsewhere"
    )
    game_services.game_resign(game_id=running.game_id, player=running.users[0])  # resigned: free to seek
    post_seek(running.clients[0])


def test_a_suspended_account_cannot_seek(people: People):
    user, client = people.player()
    player_services.user_set_active(user=user, is_active=False)
    refused(client.post(SEEKS, {"players": 2, "preset": "double-6"}, format="json"), 401, "authentication_failed")
    with pytest.raises(services.SeekError) as refusal:
        services.seek_create(user=user, players=2, preset="double-6")
    assert refusal.value.code == "permission_denied"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"players": 2, "preset": "double-7"}, "preset"),
        ({"players": 9, "preset": "double-9"}, "players"),
        ({"players": 1, "preset": "double-9"}, "players"),
        ({"players": 7, "preset": "double-6"}, "players"),  # a double-6 set seats six
        ({"players": 2, "preset": "double-6", "wait_seconds": 0}, "wait_seconds"),
        ({"players": 2, "preset": "double-6", "wait_seconds": 601}, "wait_seconds"),
        ({"players": 2, "preset": "double-6", "on_timeout": "wait"}, "on_timeout"),
        ({"players": 2, "preset": "double-6", "bot_level": "genius"}, "bot_level"),
        ({"players": 2, "preset": "double-6", "turn_time_limit": 1}, "turn_time_limit"),
        ({"preset": "double-6"}, "players"),
    ],
)
def test_invalid_seeks_are_refused(people: People, body, field):
    _, client = people.player()
    problem = refused(client.post(SEEKS, body, format="json"), 400, "validation_error")
    assert field in problem["errors"]


def test_the_service_validates_too(people: People):
    user, _ = people.player()
    with pytest.raises(services.SeekError) as refusal:
        services.seek_create(user=user, players=7, preset="double-6", wait_seconds=0)
    assert set(refusal.value.extra["errors"]) == {"players", "wait_seconds"}


def test_seeks_need_an_account(api_client):
    refused(api_client.post(SEEKS, {"players": 2, "preset": "double-6"}, format="json"), 401, "not_authenticated")
    refused(api_client.get(SEEKS), 401, "not_authenticated")


def test_the_presets_are_listed(api_client):
    presets = ok(api_client.get("/api/v1/presets/"))
    by_name = {p["name"]: p for p in presets}
    assert set(by_name) == set(services.PRESETS)
    assert by_name["double-6"]["max_players"] == 6 and by_name["double-12"]["max_players"] == 8
    assert by_name["double-6-quick"]["rounds"] == 1 and by_name["double-9"]["rounds"] is None


def test_the_presets_are_described_in_the_readers_language(api_client):
    """The descriptions are for people (the lobby shows them): in Estonian with
    Accept-Language: et, every one from the catalogue; the names stay the machine's."""
    english = ok(api_client.get("/api/v1/presets/"))
    response = api_client.get("/api/v1/presets/", HTTP_ACCEPT_LANGUAGE="et")
    estonian = ok(response)
    assert response["Content-Language"] == "et"
    assert [p["name"] for p in estonian] == [p["name"] for p in english]
    assert [p["description"] for p in english] == [services.PRESETS[p["name"]].description for p in english]
    by_name = {p["name"]: p["description"] for p in estonian}
    assert by_name["double-6-quick"].startswith("Topelt-6 komplekt")
    assert all(et != en["description"] for et, en in zip(by_name.values(), english, strict=True))


# -- the matcher -----------------------------------------------------------------------


def seeker(people: People, **seek: Any) -> tuple[Any, Seek]:
    user, _ = people.player()
    seek.setdefault("players", 2)
    seek.setdefault("preset", "double-6-quick")
    return user, services.seek_create(user=user, **seek)


def test_compatible_seeks_are_matched_into_a_started_table(people: People):
    a, sa = seeker(people, players=3, rated=True, turn_time_limit=20)
    b, sb = seeker(people, players=3, rated=True, turn_time_limit=20)
    seeker(people, players=3, rated=False, turn_time_limit=20)  # casual: another table
    assert services.seeks_match().games == []
    c, sc = seeker(people, players=3, rated=True, turn_time_limit=20)
    report = services.seeks_match()
    assert len(report.games) == 1 and report.matched == 3
    game = Game.objects.get(pk=report.games[0])
    assert game.status == GameStatus.RUNNING and game.rated and game.turn_time_limit == 20
    assert game.ruleset["players"] == 3 and game.ruleset["set_max"] == 6 and game.ruleset["rounds"] == 1
    assert [s.player_id for s in game.seats.order_by("number")] == [a.pk, b.pk, c.pk]  # oldest first
    for seek in (sa, sb, sc):
        seek.refresh_from_db()
        assert (seek.status, seek.reason, seek.game_id) == ("matched", "players", game.pk)
        assert seek.matched_at is not None
    assert services.seeks_match().games == []  # nothing twice


def test_a_seek_whose_wait_ran_out_gets_bots_at_its_level(people: People):
    user, seek = seeker(people, players=4, wait_seconds=5, bot_level="easy")
    assert services.seeks_match().games == []  # still waiting
    report = services.seeks_match(now=later(6))
    assert report.with_bots == 1 and len(report.games) == 1
    game = Game.objects.get(pk=report.games[0])
    seats = list(game.seats.select_related("player").order_by("number"))
    assert seats[0].player == user and game.status == GameStatus.RUNNING and game.bot_strategy == "easy"
    bots: list[Any] = [s.player for s in seats[1:]]
    assert [b.username for b in bots] == ["ladder-easy", "ladder-easy-2", "ladder-easy-3"]
    assert all(b.is_bot and not b.has_usable_password() for b in bots)
    assert all(s.bot_strategy == "easy" for s in seats[1:])
    seek.refresh_from_db()
    assert (seek.status, seek.reason, seek.game_id) == ("matched", "bots", game.pk)
    # the same bot accounts play the next such table (one seat each per table)
    _, _other = seeker(people, players=2, wait_seconds=5, bot_level="easy")
    game2 = Game.objects.get(pk=services.seeks_match(now=later(6)).games[0])
    seats2: list[Any] = list(game2.seats.select_related("player").order_by("number"))
    assert seats2[1].player.username == "ladder-easy"


def test_waiting_seekers_that_chose_bots_share_the_table(people: People):
    a, _first = seeker(people, players=4, wait_seconds=5)
    b, _second = seeker(people, players=4, wait_seconds=60)
    _, shy = seeker(people, players=4, wait_seconds=60, on_timeout="expire")  # would rather wait for people
    report = services.seeks_match(now=later(6))
    game = Game.objects.get(pk=report.games[0])
    players: list[Any] = [s.player for s in game.seats.select_related("player").order_by("number")]
    assert players[:2] == [a, b] and all(p.is_bot for p in players[2:])
    shy.refresh_from_db()
    assert shy.status == "waiting"


def test_a_seek_that_chose_so_expires(people: People):
    _, seek = seeker(people, players=2, wait_seconds=5, on_timeout="expire")
    report = services.seeks_match(now=later(6))
    assert report.expired == 1 and report.games == []
    seek.refresh_from_db()
    assert (seek.status, seek.reason, seek.game_id) == ("expired", "timeout", None)


def test_a_seeker_who_sat_down_elsewhere_is_not_matched(people: People):
    a, sa = seeker(people)
    host, _ = people.player()
    # a takes a seat at an open table while the seek waits
    open_game = game_services.game_create(creator=host, ruleset={"set_max": 6, "players": 3})
    game_services.game_join(game_id=open_game.pk, player=a)
    _, sb = seeker(people)
    report = services.seeks_match()
    assert report.games == [] and report.cancelled == 1
    sa.refresh_from_db()
    sb.refresh_from_db()
    assert (sa.status, sa.reason) == ("cancelled", "seated_elsewhere") and sb.status == "waiting"


def test_a_suspended_seekers_seek_is_cancelled(people: People):
    a, sa = seeker(people)
    player_services.user_set_active(user=a, is_active=False)
    _, _sb = seeker(people)
    assert services.seeks_match().games == []
    sa.refresh_from_db()
    assert (sa.status, sa.reason) == ("cancelled", "suspended")


# -- the account stream's feed ------------------------------------------------------------


def test_the_feed_shows_the_waiting_seek_then_its_outcome_once(people: People):
    user, seek = seeker(people)
    first = feeds.seek_items(user, (), None)
    assert [(i.key, i.event, i.done) for i in first] == [(str(seek.pk), "seek_waiting", False)]
    assert first[0].data["status"] == "waiting"
    seeker(people)
    services.seeks_match()
    known = feeds.seek_items(user, [str(seek.pk)], None)  # a key the stream knows, whatever its state
    assert [(i.event, i.done) for i in known] == [("seek_matched", True)]
    assert known[0].data["game"] is not None and known[0].version != first[0].version
    assert feeds.seek_items(user, (), None) == []  # the snapshot: nothing waits
    assert [i.event for i in feeds.seek_items(user, (), timezone.now() - timedelta(seconds=60))] == ["seek_matched"]


def test_the_feed_reads_with_one_query(people: People, django_assert_num_queries):
    user, _ = seeker(people)
    with django_assert_num_queries(1):
        feeds.seek_items(user, ["1", "2", "x"], timezone.now())


# -- the admin --------------------------------------------------------------------------


def moderator_client(people: People, *, moderate: bool) -> Client:
    user, _ = people.player("mod")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    perms = ["view_seek"] + (["moderate"] if moderate else [])
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    client = Client()
    client.force_login(user)
    return client


def test_moderators_see_and_cancel_seeks_in_the_admin(people: People):
    _, seek = seeker(people)
    changelist = "/admin/matchmaking/seek/"
    looker = moderator_client(people, moderate=False)
    assert looker.get(changelist).status_code == 200
    looker.post(changelist, {"action": "cancel", "_selected_action": [seek.pk]})
    seek.refresh_from_db()
    assert seek.status == "waiting"  # looking is not acting
    mod = moderator_client(people, moderate=True)
    page = mod.get(changelist)
    assert page.status_code == 200 and str(seek.user.username) in page.content.decode()
    mod.post(changelist, {"action": "cancel", "_selected_action": [seek.pk]})
    seek.refresh_from_db()
    assert (seek.status, seek.reason) == ("cancelled", "by_moderator")
    assert mod.get(f"{changelist}{seek.pk}/change/").status_code == 200


def test_a_matcher_that_dies_mid_way_leaves_the_seeks_waiting_and_no_table(people: People, monkeypatch):
    seeks = [seeker(people)[1] for _ in range(2)]
    games_before = Game.objects.count()

    def die(*args: Any, **kwargs: Any) -> None:
        raise SystemExit("the worker was killed")  # after the table was opened, filled and started

    monkeypatch.setattr(services, "_close_matched", die)
    with pytest.raises(SystemExit):
        services.seeks_match()
    assert Game.objects.count() == games_before  # the half-made table went with the transaction
    assert [Seek.objects.get(pk=s.pk).status for s in seeks] == ["waiting", "waiting"]
    monkeypatch.undo()
    assert len(services.seeks_match().games) == 1  # the next run matches them


def test_a_table_the_games_layer_refuses_ends_its_seeks_instead_of_blocking_the_queue(people: People):
    _, broken = seeker(people, players=3)
    for _ in range(2):
        seeker(people, players=2)
    Seek.objects.filter(pk=broken.pk).update(bot_level="retired-strategy", expires_at=timezone.now())
    report = services.seeks_match()
    broken.refresh_from_db()
    assert (broken.status, broken.reason, report.failed) == ("cancelled", "failed", 1)
    assert report.matched == 2  # the others are matched all the same


def test_rated_seeks_use_the_ratings_hook_and_meet_once_the_window_is_wide_enough(people: People, monkeypatch):
    ratings: dict[int, float] = {}
    monkeypatch.setattr(hooks, "rating_of", lambda user, players: ratings[user.pk])
    strong, _ = people.player()
    weak, _ = people.player()
    ratings.update({strong.pk: 30.0, weak.pk: 20.0})  # 10 apart
    for user in (strong, weak):
        services.seek_create(user=user, players=2, preset="double-6", rated=True, wait_seconds=600)
    assert sorted(Seek.objects.values_list("rating", flat=True)) == [20.0, 30.0]
    window = services.RatingWindow(base=3.0, per_second=0.5, most=50.0)  # 10 apart: met after 14 s
    assert services.seeks_match(window=window, now=later(13)).games == []
    report = services.seeks_match(window=window, now=later(15))
    assert len(report.games) == 1 and Game.objects.get(pk=report.games[0]).rated


def test_a_run_out_of_budget_leaves_the_rest_to_the_next_run(people: People):
    for _ in range(4):
        seeker(people)
    assert services.seeks_match(budget_seconds=0).games == []  # no decision started
    assert len(services.seeks_match().games) == 2
