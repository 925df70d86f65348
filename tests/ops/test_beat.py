"""Beat's lease (ops.beat): one holder at a time; another takes over once it expires."""

from __future__ import annotations

import pytest

from ops.beat import Lease
from ops.models import BeatLease

pytestmark = pytest.mark.django_db


def test_one_holder_at_a_time_and_a_takeover_once_it_expires():
    first, second = Lease("beat", seconds=10), Lease("beat", seconds=10)
    assert first.held()
    assert not second.held()  # the first holds it
    assert first.claim()  # renewing is claiming again
    assert BeatLease.objects.get(name="beat").holder == first.holder
    BeatLease.objects.filter(name="beat").update(expires_at=0)  # its host died: no renewal came
    assert second.held()
    assert BeatLease.objects.get(name="beat").holder == second.holder
    first.renew_at = 0  # its next renewal is due: it finds it lost the lease
    assert not first.held()
    assert not first.holding


def test_the_holder_does_not_ask_again_before_its_renewal_is_due(django_assert_num_queries):
    lease = Lease("beat", seconds=10)
    assert lease.held()
    with django_assert_num_queries(0):
        assert lease.held()


def test_a_holder_that_stops_gives_the_lease_up_at_once():
    first, second = Lease("beat", seconds=10), Lease("beat", seconds=10)
    assert first.held()
    first.release()
    assert not BeatLease.objects.filter(name="beat").exists()
    assert second.held()  # no wait for the expiry
    first.release()  # no longer holding: nothing to give up
    assert BeatLease.objects.get(name="beat").holder == second.holder
