"""``config.asgi``, the web processes' entry point: the collector's thresholds it
sets (``WEB_GC_THRESHOLDS``), and a wrong value stopping the start with a reason.

Each case imports the entry point in a fresh interpreter, as a gunicorn worker
does (importing it here would freeze this process's heap)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = "import gc, json, config.asgi; print(json.dumps([gc.get_threshold(), gc.get_freeze_count() > 0]))"


def start(thresholds: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "WEB_GC_THRESHOLDS"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    if thresholds is not None:
        env["WEB_GC_THRESHOLDS"] = thresholds
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_web_process_collects_the_young_generation_every_20000_objects_after_freezing_the_app():
    done = start(None)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [[20000, 10, 10], True]


def test_web_gc_thresholds_sets_them():
    done = start("700,10,10")  # Python's own
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])[0] == [700, 10, 10]


def test_a_wrong_web_gc_thresholds_stops_the_start_and_says_why():
    for wrong in ("20000,10", "many,10,10", "-1,10,10"):
        done = start(wrong)
        assert done.returncode != 0
        assert f"WEB_GC_THRESHOLDS={wrong!r}: give three whole numbers" in done.stderr
