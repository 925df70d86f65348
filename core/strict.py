"""Strict request input: a value has the JSON type its field declares, or it is refused.

DRF's fields coerce: a ``CharField`` takes ``0`` as ``"0"``, a ``BooleanField``
takes ``0``, ``"no"`` or ``"off"``, an ``IntegerField`` takes ``"5"``, a
``ChoiceField`` of numbers takes ``"9"``. The contract (``openapi.yaml``) says
``string``, ``boolean``, ``integer``: a client that sends something else has a
bug, and a server that quietly accepts it hides the bug until another server (or
the next version) refuses it. ``check_types`` walks a serializer's fields beside
the data, before DRF sees it, and refuses every value whose type is not the
declared one - for every serializer that ``core.inputs.validated`` is given, so a
new serializer is strict without doing anything.

A JSON body is checked against JSON types; a query string (a ``QueryDict``,
where everything is text) against the text the contract's types serialize to:
``true``/``false`` for a boolean, digits for an integer, a finite decimal number
for a number. An empty query value (``?player=``) is a value, not an absent
parameter: DRF takes it for absent when the field is optional, the contract
(``minLength: 1``, or an integer's digits) refuses it, and so does the server,
for every field that does not allow blank text (``allow_blank``).

Beside types, the rules of the schema that DRF applies to a changed value are
applied to the value as sent: ``maxLength`` and ``pattern`` (DRF checks a string
after trimming its blanks; the contract checks what was sent).

A serializer whose ``schema_extra`` says ``additionalProperties: False`` (the
contract then says so too, ``core.schema``) refuses a member it does not name,
each unknown one an error of its own ("Unknown field."), rather than dropping it
as DRF does: a misspelt optional member would otherwise be taken as absent - the
analysis request's ``{"seet": 2}`` asks for your own seat, and spends your budget.
``STRICT_OBJECT`` is that ``schema_extra``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from django.core.validators import RegexValidator
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from rest_framework import fields, serializers
from rest_framework.settings import api_settings

#: Fields whose JSON form is a string.
TEXT_FIELDS = (
    fields.CharField,
    fields.DateTimeField,
    fields.DateField,
    fields.TimeField,
    fields.DurationField,
    fields.UUIDField,
)
QUERY_INTEGER = re.compile(r"^[+-]?\d+$")
QUERY_BOOLEANS = ("true", "false")

MESSAGES = {
    "string": _("Not a valid string."),
    "boolean": _("Must be a valid boolean."),
    "integer": _("A valid integer is required."),
    "number": _("A valid number is required."),
    "choice": _("Not one of the allowed values."),
    "list": _("Expected a list of items."),
    "object": _("Expected an object."),
    "blank": _("This field may not be blank."),
    "unknown": _("Unknown field."),
}

#: A serializer's ``schema_extra`` for a request object that refuses members it does not name.
STRICT_OBJECT: dict[str, Any] = {"additionalProperties": False}


def refuses_unknown(serializer: Any) -> bool:
    """Does ``serializer`` refuse members it does not name (``STRICT_OBJECT``)?"""
    extra = getattr(serializer, "schema_extra", None) or {}
    return extra.get("additionalProperties") is False


def check_types(serializer: serializers.BaseSerializer, data: Any) -> None:
    """Raise ``ValidationError`` (``{dotted.field: [message]}``) for every value of
    ``data`` whose type is not what ``serializer``'s field for it declares."""
    errors: dict[str, list[str]] = {}
    if isinstance(data, QueryDict):
        _check_query(serializer, data, errors)
    else:
        _check(serializer, data, "", errors)
    if errors:
        raise serializers.ValidationError(errors)


def _check_query(serializer: serializers.BaseSerializer, data: QueryDict, errors: dict[str, list[str]]) -> None:
    for name, field in getattr(serializer, "fields", {}).items():
        if field.read_only or field.source == "*":
            continue
        for value in data.getlist(field.field_name or name):
            message = _query_problem(field, value)
            if message:
                errors.setdefault(name, []).append(message)
                break


def _query_problem(field: fields.Field, value: str) -> str | None:
    """What is wrong with the query value ``value`` for ``field`` (a message), or None."""
    if value == "" and getattr(field, "allow_blank", False):
        return None
    kind = _query_kind(field, value)
    if kind:
        return str(MESSAGES[kind])
    if isinstance(field, fields.CharField):
        return _problem(field, value)  # blank, maxLength and pattern as sent
    if value == "":
        return str(MESSAGES["blank"])  # any other field: an empty value is no value
    return None


def _query_kind(field: fields.Field, value: str) -> str | None:
    """What the query value ``value`` is not, for ``field``; None when its text is right."""
    if isinstance(field, fields.BooleanField):
        return None if value in QUERY_BOOLEANS else "boolean"
    if isinstance(field, fields.IntegerField):
        return None if QUERY_INTEGER.match(value) else "integer"
    if isinstance(field, fields.FloatField | fields.DecimalField):
        try:
            number = float(value)
        except ValueError:
            return "number"
        return None if math.isfinite(number) and value.strip() == value else "number"
    if isinstance(field, fields.ChoiceField) and not isinstance(field, fields.MultipleChoiceField):
        return None if value in {str(key) for key in field.choices} else "choice"
    return None


def _check(field: Any, value: Any, path: str, errors: dict[str, list[str]]) -> None:
    """One value against one field (a serializer is a field too), recursively."""
    if value is None or isinstance(field, fields.JSONField | fields.HiddenField | fields.ReadOnlyField):
        return  # null: DRF answers allow_null itself
    if isinstance(field, serializers.ListSerializer):
        if not isinstance(value, list):
            return  # DRF's own message
        for index, item in enumerate(value):
            _check(field.child, item, f"{path}.{index}" if path else str(index), errors)
        return
    if isinstance(field, serializers.Serializer):
        if not isinstance(value, Mapping):
            return  # DRF's own message ("Invalid data. Expected a dictionary ...")
        if refuses_unknown(field):
            known = {child.field_name or name for name, child in field.fields.items() if not child.read_only}
            for name in value:
                if name not in known:
                    errors.setdefault(f"{path}.{name}" if path else str(name), []).append(str(MESSAGES["unknown"]))
        for name, child in field.fields.items():
            if child.read_only or child.source == "*" or name not in value:
                continue
            _check(child, value[name], f"{path}.{name}" if path else name, errors)
        return
    message = _problem(field, value)
    if message:
        errors.setdefault(path or api_settings.NON_FIELD_ERRORS_KEY, []).append(message)
        return
    if isinstance(field, fields.ListField) and isinstance(value, list):
        for index, item in enumerate(value):
            _check(field.child, item, f"{path}.{index}", errors)
    elif isinstance(field, fields.DictField) and isinstance(value, Mapping):
        for key, item in value.items():
            _check(field.child, item, f"{path}.{key}", errors)


def _problem(field: Any, value: Any) -> str | None:
    """What is wrong with ``value`` for ``field`` (a message), or None."""
    kind = _wrong_type(field, value)
    if kind:
        return str(MESSAGES[kind])
    if not isinstance(field, fields.CharField):
        return None
    if value == "" and not field.allow_blank:
        return str(field.error_messages["blank"])
    max_length = field.max_length
    if max_length is not None and len(value) > max_length:
        return str(field.error_messages["max_length"]).format(max_length=max_length)
    for validator in field.validators:
        # The schema's pattern holds for the string as sent (DRF checks the trimmed one).
        if (
            isinstance(validator, RegexValidator)
            and not isinstance(validator.regex, str)
            and bool(validator.regex.search(value)) == validator.inverse_match
        ):
            return str(validator.message)
    return None


def _wrong_type(field: Any, value: Any) -> str | None:
    """What ``value`` is not, for ``field``; None when its JSON type is right."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(field, fields.BooleanField):
        return None if isinstance(value, bool) else "boolean"
    if isinstance(field, fields.MultipleChoiceField):
        return None if isinstance(value, list) else "list"
    if isinstance(field, fields.ChoiceField):
        # The value itself must be one of the choices, of the same JSON type: "9" is not 9.
        same = any(_json_kind(key) == _json_kind(value) and key == value for key in field.choices)
        return None if same else "choice"
    if isinstance(field, fields.IntegerField):
        return None if is_number and float(value).is_integer() else "integer"
    if isinstance(field, fields.FloatField | fields.DecimalField):
        return None if is_number and math.isfinite(value) else "number"
    if isinstance(field, TEXT_FIELDS):
        return None if isinstance(value, str) else "string"
    if isinstance(field, fields.ListField):
        return None if isinstance(value, list) else "list"
    if isinstance(field, fields.DictField):
        return None if isinstance(value, Mapping) else "object"
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else type(value).__name__
