"""The bot kit's typed stream reader (``chickenfoot_bot.streams``): frames as the
contract's union (snapshot, update, notice, end), resumed with Last-Event-ID after the
server closes or drops a connection, through the kit's client or an httpx client."""

from __future__ import annotations

import json

import httpx
import pytest
from chickenfoot_bot import Client
from chickenfoot_bot.streams import (
    End,
    Notice,
    Snapshot,
    StreamError,
    StreamReader,
    Update,
    connect_httpx,
    connect_kit,
)

from tests.clients.fake_server import FakeServer, Reply, Stream

PATH = "/games/7/stream/"


def frame(event: str, data: object, frame_id: str | None = None) -> str:
    return (f"id: {frame_id}\n" if frame_id else "") + f"event: {event}\ndata: {json.dumps(data)}\n\n"


FIRST = (
    "retry: 10\n\n"
    + frame("snapshot", {"game": {"seq": 0}})
    + ": keep-alive\n\n"
    + frame("game_created", {"seq": 1}, "1")
    + frame("chat_message", {"text": "hi"})
    + frame("seat_taken", {"seq": 2}, "2")
)
SECOND = (
    frame("snapshot", {"game": {"seq": 2}}) + frame("game_started", {"seq": 3}, "3") + frame("end", {"seq": 3}, "3")
)


def test_a_closed_stream_is_resumed_after_the_last_id_and_the_frames_are_typed(fake: FakeServer) -> None:
    fake.script("GET", PATH, Stream(FIRST), Stream(SECOND))
    slept: list[float] = []
    comments: list[int] = []
    reader = StreamReader(
        connect_kit(Client(fake.url, "cf_token"), PATH), sleep=slept.append, on_comment=lambda: comments.append(1)
    )
    frames = list(reader)
    assert frames == [
        Snapshot({"game": {"seq": 0}}),
        Update("game_created", "1", {"seq": 1}),
        Notice("chat_message", {"text": "hi"}),  # no id: it does not move Last-Event-ID
        Update("seat_taken", "2", {"seq": 2}),
        Snapshot({"game": {"seq": 2}}),
        Update("game_started", "3", {"seq": 3}),
        End("3", {"seq": 3}),
    ]
    sent = fake.requests("GET", PATH)
    assert [s.headers.get("Last-Event-ID") for s in sent] == [None, "2"]
    assert all(
        s.headers["Accept"] == "text/event-stream" and s.headers["Authorization"] == "Bearer cf_token" for s in sent
    )
    assert slept == [0.01]  # the server's retry: 10 (ms)
    assert comments == [1] and reader.ended and reader.last_id == "3" and reader.connections == 2


def test_a_finished_game_answers_204_and_the_reader_stops(fake: FakeServer) -> None:
    fake.script("GET", PATH, Reply(204))
    reader = StreamReader(connect_kit(Client(fake.url, ""), PATH), last_id="3", sleep=lambda _: None)
    assert list(reader) == [] and reader.ended
    assert fake.requests("GET", PATH)[0].headers["Last-Event-ID"] == "3"


def test_an_error_answer_is_raised_with_its_code(fake: FakeServer) -> None:
    fake.script("GET", PATH, Reply(401, {"code": "authentication_failed", "detail": "revoked"}))
    with pytest.raises(StreamError) as raised:
        list(StreamReader(connect_kit(Client(fake.url, "cf_x"), PATH), sleep=lambda _: None))
    assert raised.value.status == 401 and raised.value.code == "authentication_failed"


def test_reconnect_resumes_at_once_through_an_httpx_client_with_decoded_data(fake: FakeServer) -> None:
    """What a generated client does: its httpx client, the request its operation builds."""
    fake.script("GET", PATH, Stream(FIRST), Stream(SECOND))
    with httpx.Client(base_url=fake.url + "/api/v1", headers={"Authorization": "Bearer cf_g"}) as http:
        reader = StreamReader(
            connect_httpx(http, "get", PATH, params={}, headers={}),
            decode=lambda event, data: (event, data),
            sleep=lambda _: None,
        )
        seen = []
        for item in reader:
            seen.append(item)
            if item == Update("game_created", "1", ("game_created", {"seq": 1})):
                reader.reconnect()  # close after this frame: the next connection resumes after id 1
    assert [type(s).__name__ for s in seen] == ["Snapshot", "Update", "Snapshot", "Update", "End"]
    assert seen[-1] == End("3", ("end", {"seq": 3}))
    assert [s.headers.get("Last-Event-ID") for s in fake.requests("GET", PATH)] == [None, "1"]


def test_a_refused_connection_is_retried_with_a_growing_delay() -> None:
    slept: list[float] = []
    reader = StreamReader(
        connect_kit(Client("http://127.0.0.1:9", ""), PATH), max_connections=4, max_delay=3, sleep=slept.append
    )
    assert list(reader) == []
    assert slept == [1.0, 2.0, 3.0] and not reader.ended
