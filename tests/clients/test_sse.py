"""The kit's Server-Sent Events parser, on the frames the server sends
(live/streams.py, core/sse.py) and on the corners of the format."""

from __future__ import annotations

from chickenfoot_bot.sse import SseEvent, SseParser


def parse(text: str, last_id: str | None = None) -> tuple[list[SseEvent], SseParser]:
    parser = SseParser(last_id)
    return list(parser.feed(text.splitlines(keepends=True))), parser


def test_the_account_streams_frames():
    events, parser = parse(
        "retry: 2000\n\n"
        'event: snapshot\ndata: {"games":[]}\n\n'
        ": keep-alive\n\n"
        'id: 7.12\nevent: your_turn\ndata: {"game":7,"seq":12,"your_turn":true}\n\n'
        'id: 7.15\nevent: game_over\ndata: {"game":7,"status":"finished"}\n\n'
    )
    assert parser.retry == 2.0
    assert parser.comments == 1
    assert [(e.event, e.id) for e in events] == [("snapshot", None), ("your_turn", "7.12"), ("game_over", "7.15")]
    assert events[0].json() == {"games": []}
    assert events[1].json()["seq"] == 12
    assert parser.last_id == "7.15"  # what a reconnect sends as Last-Event-ID


def test_an_id_carries_over_and_a_resumed_parser_starts_from_its_last_id():
    events, _ = parse("data: a\n\nid: 9\ndata: b\n\ndata: c\n\n", last_id="8")
    assert [(e.data, e.id) for e in events] == [("a", "8"), ("b", "9"), ("c", "9")]


def test_format_corners():
    events, parser = parse(
        "data:no space\r\n\r\n"  # CRLF, no space after the colon
        "data: one\ndata: two\n\n"  # several data lines join with newlines
        "event: nothing\n\n"  # no data: no event
        "id: bad\0id\nfoo: bar\ndata:  two spaces\n\n"  # NUL in an id: ignored; unknown field: ignored
        "retry: soon\n\n"  # not a number: ignored
        "data: unterminated"  # no blank line yet: not dispatched
    )
    assert [(e.event, e.data, e.id) for e in events] == [
        ("message", "no space", None),
        ("message", "one\ntwo", None),
        ("message", " two spaces", None),
    ]
    assert parser.retry is None
    assert parser.line("") == SseEvent("message", "unterminated")
