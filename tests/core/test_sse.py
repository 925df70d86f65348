"""``core.sse.sse``: one event on the wire, its data as one line of compact JSON that
reads back as what was sent - written by orjson, with Django's encoder for what
orjson does not know, and ``json`` for what it cannot write."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

from django.utils.functional import lazy

from core.sse import sse


def data_of(frame: str) -> str:
    lines = frame.split("\n")
    assert frame.endswith("\n\n") and lines[-2:] == ["", ""]
    (data,) = [line for line in lines if line.startswith("data: ")]
    return data.removeprefix("data: ")


def test_an_event_has_its_id_type_and_data_on_their_lines():
    frame = sse({"seq": 4, "type": "played"}, event="played", event_id=4)
    assert frame == 'id: 4\nevent: played\ndata: {"seq":4,"type":"played"}\n\n'
    assert sse([1, None]) == "data: [1,null]\n\n"


def test_the_data_reads_back_as_sent_text_and_numbers_included():
    value = {"text": 'line one\nline "two" \u2028 k\u00f5ik \U0001f413', "n": [0, -1, 2**62, 1.5], "1": True}
    line = data_of(sse(value, event="chat"))
    assert "\n" not in line  # one data line, whatever the text holds
    assert json.loads(line) == value


def test_datetimes_lazy_text_and_decimals_are_written_as_djangos_encoder_writes_them():
    when = datetime(2026, 12, 5, 8, 30, 1, 123456, tzinfo=UTC)
    lazy_text = lazy(lambda: "translated", str)()
    line = data_of(sse({"at": when, "label": lazy_text, "amount": Decimal("1.50")}))
    assert json.loads(line) == {"at": "2026-12-05T08:30:01.123Z", "label": "translated", "amount": "1.50"}


def test_an_integer_beyond_64_bits_is_still_written():
    assert json.loads(data_of(sse({"big": 2**70}))) == {"big": 2**70}
