"""Fields every app's serializers share, and the shape of a problem document.

* ``FloatField``: the one float field of the API's answers. It refuses NaN and
  infinities where they are made (DRF's strict JSON would refuse them at render
  time; ``core.renderers`` no longer walks every answer looking for them, and
  ``tests/core/test_renderers.py`` checks that no serializer uses DRF's own).
* ``ProblemSerializer``, for the OpenAPI document only: responses are built by
  ``core.problems.Problem.body``; this serializer never renders anything, it only
  describes that body (component ``Problem``).
"""

import math
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class FloatField(serializers.FloatField):
    """DRF's float field, which refuses to write a NaN or an infinity: JSON has no
    such number, and a client's ``number`` must not turn into ``null``."""

    def to_representation(self, value: Any) -> float:  # type: ignore[override]  # DRF's stubs say str
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"Out of range float values are not JSON compliant: {number!r}")
        return number


class UniqueListField(serializers.ListField):
    """A list whose items are all different (``uniqueItems`` in the schema,
    ``core.schema``): a repeated item is a ``validation_error``."""

    def to_internal_value(self, data: Any) -> list[Any]:
        items: list[Any] = super().to_internal_value(data)
        seen: list[Any] = []
        for item in items:
            if item in seen:
                raise serializers.ValidationError(
                    _("Every item must be different (%(item)s is repeated).") % {"item": item}
                )
            seen.append(item)
        return items


class ErrorCodeField(serializers.CharField):
    """A stable error code; described as the ``ErrorCode`` enum (``core.schema``)."""


@extend_schema_field({"$ref": "#/components/schemas/GameView"})
class StaleGameField(serializers.JSONField):
    """The game view a ``stale_seq`` answer carries (defined by the games app)."""


class ProblemSerializer(serializers.Serializer):
    """An RFC 9457 problem document; more members may follow a given code."""

    type = serializers.CharField(help_text="`urn:chickenfoot:problem:<code>`.")
    title = serializers.CharField(help_text="Short summary of the kind of problem.")
    status = serializers.IntegerField(help_text="The HTTP status code.")
    detail = serializers.CharField(help_text="What went wrong this time, for people.")
    code = ErrorCodeField(help_text="Stable machine-readable code: branch on this.")
    # The problem document's member is named "errors", like Serializer.errors.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="With `validation_error`: field (dotted for nested fields) -> messages.",
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="With `rate_limited`: seconds to wait before retrying."
    )
    current_seq = serializers.IntegerField(required=False, help_text="With `stale_seq`: the game's seq now.")
    game = StaleGameField(
        required=False, help_text="With `stale_seq`: the game as you may see it now (the `GameView` schema)."
    )
    # Quick play's refusals (matchmaking.errors).
    seek_id = serializers.IntegerField(required=False, help_text="With `seek_exists`: your waiting seek.")
    seek_status = serializers.CharField(
        required=False, help_text="With `seek_closed`: the seek's status (matched, expired or cancelled)."
    )
    game_id = serializers.IntegerField(
        required=False, help_text="With `seated_elsewhere`: the open or running game where you hold a seat."
    )

    class Meta:
        ref_name = "Problem"
