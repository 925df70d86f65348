"""Request input, validated by a DRF serializer; a refusal is a ``validation_error`` problem."""

from __future__ import annotations

from typing import Any

from core.strict import check_types


def validated(serializer_class: type, data: Any) -> dict[str, Any]:
    """``data`` checked by ``serializer_class``: its validated data, or ``ValidationError``.

    Strictly (``core.strict``): a value of another JSON type than its field declares
    is refused, never coerced."""
    serializer = serializer_class(data=data)
    check_types(serializer, data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
