"""A notice through Redis carries its publication time (``core.notify``): another
process observes the fan-out lag from it; the publisher still knows its own."""

from __future__ import annotations

import time

from core import metrics, notify


def stamped(message: bytes) -> bytes:
    return b"%s%d;%s" % (notify._Origin.mark, time.time_ns() // 1_000_000, message)


def test_own_notices_are_known_and_others_give_their_lag():
    own = stamped(b'{"seq": 3}')
    assert notify._untag(own) == (True, b'{"seq": 3}')
    other = b"@1.00000000,%d;" % (time.time_ns() // 1_000_000 - 250) + b'{"seq": 4}'
    assert notify._untag(other) == (False, b'{"seq": 4}')
    assert notify.message_of(other) == {"seq": 4}
    before = _lag_count()
    notify._lag(other)
    assert _lag_count() == before + 1
    notify._lag(b"@1.00000000;" + b"{}")  # an older process's notice, without a stamp: nothing to observe
    assert _lag_count() == before + 1


def _lag_count() -> float:
    histogram = metrics.NOTICE_FANOUT_LAG
    return sum(bucket.get() for bucket in histogram._buckets)
