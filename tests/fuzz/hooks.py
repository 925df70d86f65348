"""Schemathesis hooks for the fuzz run (``SCHEMATHESIS_HOOKS=tests.fuzz.hooks``).

Authentication: a fresh API token, fetched with the fuzz account's password from
``FUZZ_USERNAME`` / ``FUZZ_PASSWORD`` and renewed every few seconds - the fuzzer
itself revokes tokens (``DELETE /api/v1/tokens/{id}/`` with ids it guesses),
its own among them.
"""

from __future__ import annotations

import os
from typing import Any

import requests
import schemathesis

REFRESH_SECONDS = 2


@schemathesis.auth(refresh_interval=REFRESH_SECONDS)
class FuzzAccountToken:
    def get(self, case: Any, context: Any) -> str:
        response = requests.post(
            f"{os.environ['FUZZ_BASE_URL']}/api/v1/tokens/",
            json={"username": os.environ["FUZZ_USERNAME"], "password": os.environ["FUZZ_PASSWORD"], "name": "fuzz"},
            timeout=10,
        )
        response.raise_for_status()
        return str(response.json()["token"])

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
