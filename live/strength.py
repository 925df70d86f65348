"""What the arena measured of each server-bot strategy (``live/strength.json``),
as ``GET /bots/`` lists it: how often it wins against a reference line-up, and
what a decision costs. Measured, not computed here: ``docs/bots.md`` gives the
arena commands that wrote the file, and running them again refreshes it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

STRENGTH_FILE = Path(__file__).with_name("strength.json")


@cache
def measured() -> dict[str, dict[str, Any]]:
    """strategy name -> {"against", "matches", "win_rate", "win_rate_low",
    "win_rate_high", "cpu_ms_mean", "cpu_ms_p99"}; a strategy never measured is absent."""
    if not STRENGTH_FILE.exists():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(STRENGTH_FILE.read_text())
    return data
