"""What the browser tests read of Chromium's console about the Content-Security-Policy.

A driver made with ``goog:loggingPrefs`` ``{"browser": "ALL"}`` keeps the page's
console; every blocked script, style, image, frame, worker or connection is logged
there by Chromium as a SEVERE entry naming the "Content Security Policy".
``csp_violations(driver)`` drains the console and answers those entries (reading
consumes them: call it once per page or step, and keep what it answers).
"""

from __future__ import annotations

from typing import Any

MARKERS = ("Content Security Policy", "Content-Security-Policy")


def csp_violations(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if any(m in entry["message"] for m in MARKERS)]
