"""Playing: moves (accepted, refused by the rules, refused by the game's state,
stale), resigning, taking a seat back, and the public event and move logs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from core.inputs import validated
from games import selectors, services
from games.engine import EVENT_TYPES
from games.models import Event, Move, Seat
from games.serializers import MoveSubmitInput, move_shape, move_submit_input
from live import views as game_views
from tests.api.games_helpers import (
    DRAW,
    DRAW_SETUP,
    EMPTY_SETUP,
    INSTANT_SETUP,
    PASS,
    PLAY_SETUP,
    Table,
    all_events,
    game_url,
    move,
    ok,
    play,
    refused,
    view,
)

pytestmark = pytest.mark.django_db


def submit(table: Table, seat: int, body: dict[str, Any], **headers: str):
    """``seat`` makes a move, deciding on the game's current seq."""
    return move(table.clients[seat], table.game_id, table.game().seq, body, **headers)


def snapshot(table: Table) -> dict[str, Any]:
    """Everything a refused move must leave as it was."""
    game = table.game()
    return {
        "state": game.state,
        "seq": game.seq,
        "turn": (game.turn_seat, game.turn_deadline),
        "moves": list(Move.objects.filter(game=game).values_list("number", "payload")),
        "events": Event.objects.filter(game=game).count(),
        "views": [view(client, table.game_id) for client in table.clients],
    }


# -- accepted moves --------------------------------------------------------------------


def test_a_play(make_table):
    table = make_table(setup=PLAY_SETUP)
    before = table.game().seq
    answer = ok(submit(table, 1, play("1-6", "e1")), 201)  # either way round
    assert answer["move"] == {
        **answer["move"],
        "number": 1,
        "seq": before + 1,
        "round": 1,
        "seat": 1,
        "move": play("6-1", "e1"),
        "source": "player",
    }
    assert [e["data"] for e in answer["events"]] == [
        {"type": "tile_played", "seat": 1, "tile": "6-1", "end": "e1", "outer": 1, "new_ends": ["e5"], "round": 1}
    ]
    assert [e["seq"] for e in answer["events"]] == [before + 1]
    game = answer["game"]
    assert game["game"]["seq"] == before + 1 and game["game"]["turn_seat"] == 0
    assert game["you"]["hand"] == ["6-2", "1-1", "2-0", "3-3"] and game["you"]["your_turn"] is False
    assert game["state"]["open_ends"][-1] == {"id": "e5", "pip": 1, "playable": False}  # the arms come first
    assert view(table.clients[0], table.game_id)["you"]["your_turn"] is True


def test_draw_then_pass_on_a_drawn_tile(make_table):
    table = make_table(setup=DRAW_SETUP)
    answer = ok(submit(table, 1, DRAW), 201)  # draws 1-0: no use, so the turn passes at once
    assert [e["data"] for e in answer["events"]] == [
        {"type": "drew", "seat": 1, "boneyard_size": 23, "round": 1},
        {"type": "passed", "seat": 1, "reason": "drawn_tile_unplayable", "round": 1},
    ]
    assert answer["game"]["you"]["hand"] == ["3-3", "2-1", "1-0"]
    assert answer["game"]["game"]["turn_seat"] == 0

    answer = ok(submit(table, 0, DRAW), 201)  # draws 6-1: it may play it, or pass
    assert [e["data"]["type"] for e in answer["events"]] == ["drew"]
    you = answer["game"]["you"]
    assert you["drawn_tile"] == "6-1" and you["your_turn"] is True
    assert you["legal_moves"] == [play("6-1", f"e{n}") for n in range(1, 5)] + [PASS]
    assert answer["game"]["state"]["round"]["drawn_tile_pending"] is True

    answer = ok(submit(table, 0, PASS), 201)
    assert [e["data"] for e in answer["events"]] == [
        {"type": "passed", "seat": 0, "reason": "declined_drawn_tile", "round": 1}
    ]
    assert answer["game"]["you"]["drawn_tile"] is None and answer["game"]["game"]["turn_seat"] == 1
    assert list(Move.objects.filter(game_id=table.game_id).values_list("payload", flat=True)) == [DRAW, DRAW, PASS]


def test_pass_when_nothing_can_be_played_or_drawn(make_table):
    table = make_table(setup=EMPTY_SETUP)
    answer = ok(submit(table, 1, PASS), 201)
    assert [e["data"] for e in answer["events"]] == [{"type": "passed", "seat": 1, "reason": "no_play", "round": 1}]


# -- refused by the rules: 422 with the engine's code, and nothing changes ------------------

RULE_CASES = [
    # (set-up, moves before, seat, refused move, code)
    (PLAY_SETUP, [], 0, play("6-5", "e1"), "not_your_turn"),
    (PLAY_SETUP, [], 1, play("6-5", "e1"), "tile_not_in_hand"),
    (PLAY_SETUP, [], 1, play("6-1", "e9"), "no_such_end"),
    (PLAY_SETUP, [], 1, play("2-0", "e1"), "pips_do_not_match"),
    (PLAY_SETUP, [], 1, play("9-9", "e1"), "invalid_move"),  # not a double-6 tile
    (PLAY_SETUP, [], 1, DRAW, "must_play"),
    (PLAY_SETUP, [], 1, PASS, "must_play"),
    (PLAY_SETUP, [(1, play("6-1", "e1"))], 0, play("1-0", "e5"), "spinner_not_filled"),
    (
        PLAY_SETUP,
        [
            (1, play("6-1", "e1")),
            (0, play("6-5", "e2")),
            (1, play("6-2", "e3")),
            (0, play("6-4", "e4")),
            (1, play("1-1", "e5")),
        ],
        0,
        play("5-5", "e6"),
        "foot_not_filled",
    ),
    (DRAW_SETUP, [], 1, PASS, "must_draw"),
    (DRAW_SETUP, [(1, DRAW), (0, DRAW)], 0, DRAW, "already_drew"),
    (DRAW_SETUP, [(1, DRAW), (0, DRAW)], 0, play("5-5", "e1"), "must_play_drawn_tile"),
    (EMPTY_SETUP, [], 1, DRAW, "boneyard_empty"),
]


@pytest.mark.parametrize(
    ("setup", "before", "seat", "refused_move", "code"),
    RULE_CASES,
    ids=[f"{case[-1]}-{n}" for n, case in enumerate(RULE_CASES)],
)
def test_a_move_the_rules_refuse(make_table, setup, before, seat, refused_move, code):
    table = make_table(setup=setup)
    for mover, body in before:
        ok(submit(table, mover, body), 201)
    unchanged = snapshot(table)
    problem = refused(submit(table, seat, refused_move), 422, code)
    assert problem["title"] == code.replace("_", " ").capitalize()  # the kind of problem, exactly
    assert snapshot(table) == unchanged
    turn = table.game().turn_seat  # ... and the game goes on
    ok(submit(table, turn, view(table.clients[turn], table.game_id)["you"]["legal_moves"][0]), 201)


def test_every_rule_code_an_api_client_can_meet_is_covered():
    """Only ``match_over`` is unreachable over HTTP: a finished game answers game_finished first."""
    from games.engine import RULE_CODES

    assert {case[-1] for case in RULE_CASES} == set(RULE_CODES) - {"match_over"}


# -- refused by the game's state ------------------------------------------------------------


def test_a_stale_seq_is_refused_with_the_current_game(make_table):
    table = make_table(setup=PLAY_SETUP)
    seq = table.game().seq
    unchanged = snapshot(table)
    problem = refused(move(table.clients[1], table.game_id, seq - 1, play("6-1", "e1")), 409, "stale_seq")
    assert problem["current_seq"] == seq
    assert problem["game"] == view(table.clients[1], table.game_id)  # the caller's own view, to decide again
    assert problem["game"]["you"]["hand"] == PLAY_SETUP["hands"][1]
    refused(move(table.clients[1], table.game_id, seq + 1, play("6-1", "e1")), 409, "stale_seq")
    assert snapshot(table) == unchanged


def test_moves_by_someone_without_a_seat_or_in_the_wrong_state(make_table, people):
    table = make_table(setup=PLAY_SETUP)
    _, stranger = people.player()
    refused(move(stranger, table.game_id, table.game().seq, play("6-1", "e1")), 403, "not_seated")
    refused(move(stranger, 999999, 0, DRAW), 404, "not_found")

    lobby = make_table(start=False)
    refused(move(lobby.clients[0], lobby.game_id, lobby.game().seq, DRAW), 409, "game_not_started")

    finished = make_table(setup=INSTANT_SETUP)
    refused(move(finished.clients[1], finished.game_id, finished.game().seq, DRAW), 409, "game_finished")

    moderator, _ = people.staff()
    services.game_abort_as_moderator(game_id=table.game_id, by=moderator)
    refused(move(table.clients[1], table.game_id, table.game().seq, play("6-1", "e1")), 409, "game_aborted")


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"type": "jump", "expected_seq": 0}, {"type"}),
        ({"type": "play", "tile": "6-1", "expected_seq": 0}, {"tile"}),
        ({"type": "play", "tile": "six-one", "end": "e1", "expected_seq": 0}, {"tile"}),
        ({"type": "play", "tile": "6-1", "end": "1", "expected_seq": 0}, {"end"}),
        ({"type": "draw"}, {"expected_seq"}),
        ({"type": "draw", "expected_seq": -1}, {"expected_seq"}),
    ],
    ids=["type", "no-end", "tile-shape", "end-shape", "no-seq", "negative-seq"],
)
def test_badly_shaped_moves(make_table, body, fields):
    table = make_table(setup=PLAY_SETUP)
    response = table.clients[1].post(table.action("moves"), body, format="json")
    assert set(refused(response, 400, "validation_error")["errors"]) == fields


def test_an_overlong_idempotency_key_is_refused(make_table):
    table = make_table(setup=PLAY_SETUP)
    response = submit(table, 1, play("6-1", "e1"), **{"Idempotency-Key": "k" * 129})
    assert set(refused(response, 400, "validation_error")["errors"]) == {"Idempotency-Key"}
    assert not Move.objects.exists()


def test_moves_need_authentication(make_table, api_client):
    table = make_table(setup=PLAY_SETUP)
    refused(move(api_client, table.game_id, table.game().seq, play("6-1", "e1")), 401, "not_authenticated")


# -- resign and return ------------------------------------------------------------------------


def test_resign_hands_the_seat_to_a_bot(make_table):
    table = make_table(setup=PLAY_SETUP)
    body = ok(table.clients[1].post(table.action("resign")))
    seat = body["game"]["seats"][1]
    assert seat["resigned"] is True and seat["bot_strategy"] == "greedy" and seat["is_bot"] is True
    assert seat["player"]["username"] == table.users[1].username  # still their seat, for the record
    assert body["you"]["resigned"] is True
    # The bot is to move, not the player: no turn, no moves offered that would be refused.
    assert body["you"]["your_turn"] is False and body["you"]["legal_moves"] == []
    assert body["you"]["hand"] == PLAY_SETUP["hands"][1]  # still theirs to watch
    assert Event.objects.filter(game_id=table.game_id, type="seat_resigned").get().data == {
        "type": "seat_resigned",
        "seat": 1,
        "player": table.users[1].username,
        "bot_strategy": "greedy",
    }
    refused(table.clients[1].post(table.action("resign")), 409, "seat_resigned")
    refused(submit(table, 1, play("6-1", "e1")), 409, "seat_resigned")
    refused(table.clients[1].post(table.action("return")), 409, "seat_not_away")  # a resignation is final


def test_resigning_on_your_turn_sends_the_bot_at_once(make_table, django_capture_on_commit_callbacks, monkeypatch):
    """The bot that takes the seat moves now, not when the turn clock runs out:
    the seat to move is a bot's, so the turn has no deadline and a bot turn is queued."""
    from config.celery import app as celery_app
    from live import dispatch

    table = make_table(setup=PLAY_SETUP, turn_time_limit=60)
    assert table.game().turn_deadline is not None
    sent = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, args, **options: sent.append((name, *args)))
    with django_capture_on_commit_callbacks(execute=True):
        body = ok(table.clients[1].post(table.action("resign")))
    assert body["game"]["turn_seat"] == 1 and body["game"]["turn_deadline"] is None
    assert body["you"]["turn_deadline"] is None
    assert sent == [(dispatch.BOT_TURN_TASK, table.game_id, table.game().seq)]


def test_a_move_that_starts_a_turn_clock_sends_no_task(make_table, django_capture_on_commit_callbacks, monkeypatch):
    """The next player's deadline is written with the move, and nothing is sent to the
    broker for it: the turn clock (live.clock) reads the deadlines from the database."""
    from config.celery import app as celery_app

    table = make_table(setup=PLAY_SETUP, turn_time_limit=60)
    sent = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, args, **options: sent.append((name, *args)))
    with django_capture_on_commit_callbacks(execute=True):
        ok(submit(table, 1, play("6-1", "e1")), 201)
    game = table.game()
    assert game.turn_seat == 0 and game.turn_deadline is not None
    assert sent == []


def test_resign_refusals(make_table, people):
    lobby = make_table(start=False)
    refused(lobby.clients[1].post(lobby.action("resign")), 409, "game_not_started")
    table = make_table(setup=PLAY_SETUP)
    _, stranger = people.player()
    refused(stranger.post(table.action("resign")), 403, "not_seated")
    finished = make_table(setup=INSTANT_SETUP)
    refused(finished.clients[1].post(finished.action("resign")), 409, "game_finished")


def test_return_takes_an_away_seat_back(make_table):
    table = make_table(setup=PLAY_SETUP)
    refused(table.clients[1].post(table.action("return")), 409, "seat_not_away")
    # What the turn clock does after repeated timeouts (its own tests drive the clock).
    Seat.objects.filter(game_id=table.game_id, number=1).update(away=True, bot_strategy="greedy", timeouts_in_row=3)
    assert view(table.clients[1], table.game_id)["game"]["seats"][1]["is_bot"] is True
    refused(submit(table, 1, play("6-1", "e1")), 409, "seat_away")
    you = view(table.clients[1], table.game_id)["you"]
    assert you["your_turn"] is False and you["legal_moves"] == []  # until they take the seat back
    body = ok(table.clients[1].post(table.action("return")))
    assert body["game"]["seats"][1]["bot_strategy"] == "" and body["game"]["seats"][1]["is_bot"] is False
    assert body["you"]["your_turn"] is True
    assert Event.objects.filter(game_id=table.game_id).latest("seq").data == {
        "type": "seat_returned",
        "seat": 1,
        "player": table.users[1].username,
    }
    seat = Seat.objects.get(game_id=table.game_id, number=1)
    assert (seat.away, seat.timeouts_in_row) == (False, 0)
    ok(submit(table, 1, play("6-1", "e1")), 201)
    events = ok(table.clients[0].get(table.action("events")))["events"]  # the contract knows the event type
    assert "seat_returned" in [e["type"] for e in events]


def test_return_refusals(make_table, people):
    lobby = make_table(start=False)
    refused(lobby.clients[1].post(lobby.action("return")), 409, "game_not_started")
    table = make_table(setup=PLAY_SETUP)
    _, stranger = people.player()
    refused(stranger.post(table.action("return")), 403, "not_seated")


# -- the event log and the move log ---------------------------------------------------------


def play_a_few(table: Table) -> None:
    for seat, body in [(1, play("6-1", "e1")), (0, play("6-5", "e2")), (1, play("6-2", "e3"))]:
        ok(submit(table, seat, body), 201)


def test_events_after_a_seq(make_table, api_client):
    table = make_table(setup=PLAY_SETUP)
    play_a_few(table)
    everything = ok(api_client.get(table.action("events")))
    seq = table.game().seq
    assert everything["seq"] == seq and everything["has_more"] is False
    assert [e["seq"] for e in everything["events"]] == list(range(1, seq + 1))
    assert [e["type"] for e in everything["events"]][:6] == [
        "game_created",
        "seat_taken",
        "seat_taken",
        "game_started",
        "round_started",
        "spinner_placed",
    ]
    assert all(e["type"] == e["data"]["type"] for e in everything["events"])
    assert all("round" in e["data"] for e in everything["events"] if e["type"] in EVENT_TYPES)
    later = ok(api_client.get(table.action("events"), {"after": 6}))
    assert later["events"] == everything["events"][6:] and later["seq"] == seq
    assert ok(api_client.get(table.action("events"), {"after": seq}))["events"] == []
    refused(api_client.get(table.action("events"), {"after": -1}), 400, "validation_error")
    refused(api_client.get(game_url(999999, "events")), 404, "not_found")


def test_every_event_type_the_server_writes_is_documented():
    """The services write event payloads as literals; each type must be in the
    contract's EventType, or a client validating the event log breaks on it."""
    import re
    from pathlib import Path

    from tests.api.games_helpers import documented_event_types

    sources = "".join(path.read_text() for path in Path(services.__file__).parent.glob("*.py"))
    written = set(re.findall(r'"type": "([a-z_]+)"', sources))
    assert written, "no event payloads found: has the services module changed shape?"
    assert written | set(EVENT_TYPES) <= documented_event_types()


def test_events_come_in_pages(make_table, api_client, monkeypatch):
    table = make_table(setup=PLAY_SETUP)
    play_a_few(table)
    everything = ok(api_client.get(table.action("events")))["events"]
    monkeypatch.setattr(selectors, "EVENT_PAGE_SIZE", 4)
    first = ok(api_client.get(table.action("events")))
    assert first["has_more"] is True and first["events"] == everything[:4]
    assert list(all_events(api_client, table.game_id)) == everything


def test_moves_after_a_number(make_table, api_client, monkeypatch):
    table = make_table(setup=PLAY_SETUP)
    play_a_few(table)
    page = ok(api_client.get(table.action("moves")))
    assert page["has_more"] is False and page["seq"] == table.game().seq
    assert [(m["number"], m["seat"], m["move"], m["source"]) for m in page["moves"]] == [
        (1, 1, play("6-1", "e1"), "player"),
        (2, 0, play("6-5", "e2"), "player"),
        (3, 1, play("6-2", "e3"), "player"),
    ]
    events = {e["seq"]: e for e in ok(api_client.get(table.action("events")))["events"]}
    for m in page["moves"]:  # a move's seq is the seq of its first event
        assert events[m["seq"]]["data"] == {
            **events[m["seq"]]["data"],
            "type": "tile_played",
            "tile": m["move"]["tile"],
        }
    assert ok(api_client.get(table.action("moves"), {"after": 1}))["moves"] == page["moves"][1:]
    monkeypatch.setattr(game_views, "PAGE", 2)
    first = ok(api_client.get(table.action("moves")))
    assert first["has_more"] is True and first["moves"] == page["moves"][:2]
    refused(api_client.get(table.action("moves"), {"after": "x"}), 400, "validation_error")
    refused(api_client.get(game_url(999999, "moves")), 404, "not_found")


_MOVE_VALUES = st.one_of(
    st.sampled_from(["play", "draw", "pass", "Play", "", "9-4", " 9-4", "9-4\n", "e3", "e03 ", "٣-٤", "e", "x"]),
    st.integers(min_value=-3, max_value=2**70),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=600, deadline=None)
@given(
    body=st.one_of(
        st.dictionaries(st.sampled_from(["type", "tile", "end", "expected_seq", "other"]), _MOVE_VALUES, max_size=5),
        _MOVE_VALUES,
    )
)
def test_the_move_input_fast_path_gives_what_the_serializer_gives(body: Any) -> None:
    """``move_submit_input`` checks well-formed moves without the serializer: whatever
    it accepts, the serializer accepts as the same move; the rest is the serializer's."""
    try:
        expected: Any = dict(validated(MoveSubmitInput, move_shape(body)))
    except ValidationError as error:
        expected = ("refused", error.detail)
    try:
        got: Any = move_submit_input(body)
    except ValidationError as error:
        got = ("refused", error.detail)
    assert got == expected
