"""Smoke test of the benchmark script (DESIGN.md: "Benchmarks are scripts that
print numbers, not timed tests"): it runs and ends with its machine-readable line.
Nothing here asserts on speed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_runs_and_prints_moves_per_second() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "games.engine.bench", "0.5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines, "the benchmark printed nothing"
    assert re.fullmatch(r"moves_per_second: \d+", lines[-1]), lines[-1]
