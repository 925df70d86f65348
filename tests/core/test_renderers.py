"""The API's JSON renderer (orjson) writes what DRF's own renderer writes."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest
from django.urls import get_resolver
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

from core.renderers import JSONRenderer
from core.serializers import FloatField
from tests.contract.test_architecture import APPS as PROJECT_APPS

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


def test_indent_is_left_to_drf() -> None:
    assert JSONRenderer().render({"a": [1]}, "application/json; indent=2") == b'{\n  "a": [\n    1\n  ]\n}'
    assert JSONRenderer().render(None) == b""


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_float_field_refuses_what_json_cannot_write(value: float) -> None:
    """Not written as ``null`` (which orjson would do, and which no ``number`` of the
    contract allows): refused where the answer is made, as DRF's strict JSON did."""

    class Rated(serializers.Serializer[Any]):
        rating = FloatField()

    with pytest.raises(ValueError, match="not JSON compliant"):
        Rated({"rating": value}).data  # noqa: B018 - rendering is the test
    assert Rated({"rating": 1.5}).data == {"rating": 1.5}


def _project_serializers() -> list[type[serializers.BaseSerializer[Any]]]:
    get_resolver().url_patterns  # noqa: B018 - imports every view, and so every serializer the API uses
    found, todo = [], list(serializers.BaseSerializer.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.split(".")[0] in PROJECT_APPS:
            found.append(cls)
    return found


def test_no_answer_has_a_float_field_that_writes_nan() -> None:
    """Every float of every serializer of the project, declared or made from a model
    field, is ``core.serializers.FloatField``: the renderer relies on it."""
    plain = []
    serializer_classes = _project_serializers()
    assert len(serializer_classes) > 50  # the scan does see the API's serializers
    for cls in serializer_classes:
        try:
            fields = cls().fields  # type: ignore[attr-defined]
        except Exception:
            fields = getattr(cls, "_declared_fields", {})
        for name, field in fields.items():
            child = getattr(field, "child", None)
            for candidate in (field, child):
                if type(candidate) is serializers.FloatField:
                    plain.append(f"{cls.__module__}.{cls.__name__}.{name}")
    assert not plain, plain
