"""Codes of a TOTP authenticator app, computed as an app does (RFC 6238 by hand,
not with the server's library), for the second factor's tests."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
import time

STEP = 30


def code(secret: str, step: int) -> str:
    """The 6-digit code of the base32 ``secret`` for the 30-second ``step``."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{number % 1_000_000:06d}"


def fresh_step(margin: float = 5.0) -> int:
    """The current step, once at least ``margin`` seconds of it are left (waits at
    most ``margin`` seconds for the next one): codes of this step and the ones
    beside it stay valid for the next ``margin`` seconds whatever the machine's load."""
    deadline = time.monotonic() + margin + 1
    while STEP - time.time() % STEP < margin:
        assert time.monotonic() < deadline, "the clock does not move"
        time.sleep(0.1)
    return int(time.time() // STEP)
