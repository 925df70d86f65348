"""The kit's runner against a scripted server: it recovers from 409 stale_seq with
the game the refusal carries, resumes a dropped or closed stream with
Last-Event-ID after a back-off, waits out a 429 on the stream, and checks the
author's moves."""

from __future__ import annotations

import json
from typing import Any

from chickenfoot_bot import Client, GameState, Move, Runner
from chickenfoot_bot.sse import SseEvent

from tests.clients.fake_server import FakeServer, Reply, Stream

DRAW = {"type": "draw"}
PLAY = {"type": "play", "tile": "6-4", "end": "e1"}


def view(seq: int, *, your_turn: bool = True, moves: list[dict[str, Any]] | None = None, status: str = "running"):
    """A ``GET /games/1/`` body, as much of it as the kit reads."""
    return {
        "game": {"id": 1, "seq": seq, "status": status, "result": None},
        "state": {"round": {"number": 1, "of": 7, "phase": "free"}, "open_ends": [], "hand_sizes": [3, 4]},
        "you": {"seat": 0, "hand": ["6-4"], "your_turn": your_turn, "legal_moves": moves or [DRAW], "drawn_tile": None},
    }


def row(seq: int, *, your_turn: bool = True, status: str = "running") -> dict[str, Any]:
    return {"game": 1, "status": status, "seq": seq, "seat": 0, "your_turn": your_turn, "turn_deadline": None}


def sse(event: str, data: Any, event_id: str | None = None) -> str:
    return (f"id: {event_id}\n" if event_id else "") + f"event: {event}\ndata: {json.dumps(data)}\n\n"


def runner_of(fake: FakeServer, choose, sleeps: list[float], **options) -> Runner:
    return Runner(Client(fake.url, "cf_test", sleep=sleeps.append), choose, sleep=sleeps.append, **options)


def test_stale_seq_is_recovered_from_the_game_the_refusal_carries(fake):
    fake.script("GET", "/games/1/", Reply(200, view(5)))
    stale = {"code": "stale_seq", "current_seq": 6, "game": view(6, moves=[PLAY, DRAW])}
    fake.script("POST", "/games/1/moves/", Reply(409, stale), Reply(201, {"game": view(8, your_turn=False)}))
    seen: list[GameState] = []

    def choose(state: GameState) -> Move:
        seen.append(state)
        return state.legal_moves[0]

    runner = runner_of(fake, choose, [])
    runner.play(1)
    assert [s.seq for s in seen] == [5, 6]  # decided again on the fresh view
    assert seen[1].plays == (Move("play", "6-4", "e1"),) and seen[1].rounds == 7
    posts = fake.requests("POST", "/games/1/moves/")
    assert [p.body for p in posts] == [{**DRAW, "expected_seq": 5}, {**PLAY, "expected_seq": 6}]
    assert posts[0].headers["Idempotency-Key"] != posts[1].headers["Idempotency-Key"]  # a new decision
    assert len(fake.requests("GET", "/games/1/")) == 1  # the refusal's game was used, not a re-read
    assert runner.acted_at[1] == 8 and runner.moves == 1


def test_an_illegal_choice_is_replaced_by_a_legal_move(fake):
    fake.script("GET", "/games/1/", Reply(200, view(5, moves=[PLAY, DRAW])))
    fake.script("POST", "/games/1/moves/", Reply(201, {"game": view(7, your_turn=False)}))
    runner_of(fake, lambda state: {"type": "pass"}, []).play(1)
    assert fake.requests("POST", "/games/1/moves/")[0].body == {**PLAY, "expected_seq": 5}


def test_a_dropped_stream_is_resumed_with_last_event_id_after_a_back_off(fake):
    # 1: the snapshot, a turn that is not ours, then silence past the read timeout (a dead connection).
    # 2: the server closes the stream on purpose. 3: game 1 is gone from the snapshot: it ended.
    first = Stream("retry: 2000\n\n" + sse("snapshot", {"games": [row(4, your_turn=False)]}), hang=3)
    second = Stream(
        sse("snapshot", {"games": [row(4, your_turn=False)]}) + sse("game_started", row(5, your_turn=False), "1.5")
    )
    third = Stream(sse("snapshot", {"games": []}), hang=3)
    fake.script("GET", "/me/stream/", first, second, third)
    fake.script("GET", "/games/1/", Reply(200, view(9, your_turn=False, status="finished")))
    sleeps: list[float] = []
    ended = runner_of(fake, lambda state: state.legal_moves[0], sleeps, game_id=1, read_timeout=0.5).run()
    assert list(ended) == [1] and ended[1]["status"] == "finished"
    streams = fake.requests("GET", "/me/stream/")
    assert [s.headers.get("Last-Event-ID") for s in streams] == [None, None, "1.5"]
    assert sleeps[0] == 2.0  # after the drop: the server's retry: hint, then doubling
    assert 0 < sleeps[1] <= 2.0  # after a clean close: what is left of the retry interval


def test_a_rate_limited_stream_waits_its_retry_after_and_a_turn_in_the_snapshot_is_played(fake):
    fake.script(
        "GET",
        "/me/stream/",
        Reply(429, {"code": "rate_limited", "retry_after": 3}, {"Retry-After": "3"}),
        Stream(sse("snapshot", {"games": [row(5)]}) + sse("game_over", row(6, status="finished"), "1.6"), hang=3),
    )
    fake.script("GET", "/games/1/", Reply(200, view(5)))
    fake.script("POST", "/games/1/moves/", Reply(201, {"game": view(6, your_turn=False)}))
    sleeps: list[float] = []
    runner = runner_of(fake, lambda state: state.legal_moves[0], sleeps, games=1)
    assert list(runner.run()) == [1]
    assert sleeps == [3.0]
    assert fake.requests("POST", "/games/1/moves/")[0].body == {**DRAW, "expected_seq": 5}


def challenge(challenge_id: int, your_invite: str | None = "pending") -> dict[str, Any]:
    """A ``Challenge`` as the account stream sends it, as much of it as the kit reads."""
    return {"id": challenge_id, "status": "pending", "creator": {"username": "alice"}, "your_invite": your_invite}


def test_accept_challenges_accepts_those_in_the_snapshot_and_each_one_received(fake):
    fake.script(
        "GET",
        "/me/stream/",
        Stream(
            sse("snapshot", {"games": [], "challenges": [challenge(7), challenge(8, None), challenge(9, "accepted")]})
            + sse("challenge_received", challenge(10), "challenges.10.pending-1")
            + sse("challenge_received", challenge(10), "challenges.10.pending-2")  # sent again: accepted once
            + sse("challenge_received", challenge(11), "challenges.11.pending-1")
            + sse("game_started", row(5, your_turn=False), "1.5")
            + sse("game_over", row(6, status="finished"), "1.6"),
            hang=3,
        ),
    )
    fake.script("POST", "/challenges/7/accept/", Reply(200, {**challenge(7, "accepted")}))
    fake.script("POST", "/challenges/10/accept/", Reply(200, {**challenge(10, "accepted"), "status": "started"}))
    fake.script("POST", "/challenges/11/accept/", Reply(409, {"code": "challenge_expired"}))
    runner = runner_of(fake, lambda state: state.legal_moves[0], [], games=1, accept_challenges=True)
    assert list(runner.run()) == [1]  # a refused acceptance (expired) does not stop it
    accepted = [seen.path for seen in fake.seen if seen.method == "POST"]
    assert accepted == ["/challenges/7/accept/", "/challenges/10/accept/", "/challenges/11/accept/"]


def test_without_accept_challenges_no_challenge_is_answered(fake):
    fake.script(
        "GET",
        "/me/stream/",
        Stream(
            sse("snapshot", {"games": [], "challenges": [challenge(7)]})
            + sse("challenge_received", challenge(10), "challenges.10.pending-1")
            + sse("game_over", row(6, status="finished"), "1.6"),
            hang=3,
        ),
    )
    runner = runner_of(fake, lambda state: state.legal_moves[0], [], games=1)
    assert list(runner.run()) == [1]
    assert [seen for seen in fake.seen if seen.method == "POST"] == []


def test_a_sanction_on_the_stream_is_logged_with_its_reason_and_end(fake, caplog):
    mute = {
        "id": 3,
        "kind": "mute",
        "reason": "Spam in the chat.",
        "starts_at": "2026-12-06T10:00:00Z",
        "ends_at": "2026-12-07T10:00:00Z",
        "lifted_at": None,
        "appeal": None,
    }
    runner = runner_of(fake, lambda state: state.legal_moves[0], [])
    with caplog.at_level("WARNING", logger="chickenfoot_bot"):
        runner.on_event(SseEvent("snapshot", json.dumps({"games": [], "sanctions": [mute]})))
        runner.on_event(SseEvent("sanction_lifted", json.dumps({**mute, "lifted_at": "2026-12-06T11:00:00Z"}), "s"))
    assert "mute (2026-12-07T10:00:00Z): Spam in the chat." in caplog.text
    assert "the mute (Spam in the chat.) was lifted" in caplog.text
