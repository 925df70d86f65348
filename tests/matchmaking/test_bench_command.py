"""``manage.py bench_matching`` as a correctness check (not timed): one small burst,
the matcher in two threads of the command (``--inline``) on real PostgreSQL, before
(``--compare``: the legacy matcher) and after; every seeker is seated exactly once,
at the game its seek names, and the command cleans up after itself."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from games.models import Game
from players.models import User

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_burst_through_the_bench_command_seats_everybody_once_before_and_after():
    out = io.StringIO()
    call_command(
        "bench_matching",
        "--players=4",
        "--seekers=48",
        "--threads=8",
        "--concurrency=2",
        "--compare=1",
        "--timeout=120",
        stdout=out,
    )
    text = out.getvalue()
    assert text.count("matched: 48 seeks into 12 tables") == 2, text
    assert re.findall(r"seated_twice: (\d+), seated_elsewhere_than_matched: (\d+)", text) == [("0", "0")] * 2, text
    assert not User.objects.filter(username__startswith="bench-mm-").exists()
    assert not Game.objects.exists()
