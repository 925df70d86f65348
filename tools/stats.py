"""Statistics shared by the benchmarks and the arena, in plain Python (no numpy)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q`` (0..1) percentile by nearest rank: the smallest value with at least
    a ``q`` share of the values at or below it (NaN of none)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]
