"""Request input, validated by a DRF serializer; a refusal is a ``validation_error`` problem."""

from __future__ import annotations

from typing import Any


def validated(serializer_class: type, data: Any) -> dict[str, Any]:
    """``data`` checked by ``serializer_class``: its validated data, or ``ValidationError``."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
