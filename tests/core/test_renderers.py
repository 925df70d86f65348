"""The API's JSON renderer (orjson) writes what DRF's own renderer writes."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

from core.renderers import JSONRenderer

SAMPLES: list[Any] = [
    {"id": 7, "name": "älice ☃", "tiles": ["9-4", "0-0"], "none": None, "yes": True, "ratio": 0.1},
    {"at": dt.datetime(2026, 12, 2, 11, 49, 14, 123456, tzinfo=dt.UTC), "day": dt.date(2026, 12, 2)},
    {
        "naive": dt.datetime(2026, 12, 2, 11, 49),
        "offset": dt.datetime(2026, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    },
    {1: "int keys", 2: ["become", "strings"]},
    {"lazy": gettext_lazy("This field is required."), "decimal": Decimal("1.50"), "uuid": uuid.UUID(int=5)},
    [{"nested": [[[]], {}]}, "line\u2028separator"],
    {"big": 2**70},
    "a bare string",
]


@pytest.mark.parametrize("data", SAMPLES)
def test_the_same_json_as_drf(data: Any) -> None:
    ours, theirs = JSONRenderer().render(data), DrfJSONRenderer().render(data)
    assert json.loads(ours) == json.loads(theirs)


def test_byte_for_byte_on_a_game_like_answer() -> None:
    answer = {
        "move": {"number": 3, "seat": 1, "move": {"type": "play", "tile": "6-4", "end": "e3"}},
        "game": {"seats": [{"number": 0, "player": {"username": "bob"}}], "turn_deadline": None, "seq": 12},
        "created_at": dt.datetime(2026, 12, 2, 11, 49, 14, 120000, tzinfo=dt.UTC),
    }
    assert JSONRenderer().render(answer) == DrfJSONRenderer().render(answer)


def test_indent_and_nan_are_left_to_drf() -> None:
    assert JSONRenderer().render({"a": [1]}, "application/json; indent=2") == b'{\n  "a": [\n    1\n  ]\n}'
    with pytest.raises(ValueError):  # DRF's strict JSON: NaN is refused, not written as null
        JSONRenderer().render({"x": float("nan")})
    assert JSONRenderer().render(None) == b""
