"""A timed suspension ends by itself: a real Celery worker with beat (on Redis,
against the PostgreSQL test database) runs ``moderation.sanctions_expire`` from
CELERY_BEAT_SCHEDULE - the same schedule ``manage.py serve`` runs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from moderation import selectors
from moderation import services as moderation
from moderation.models import AuditEntry, Sanction
from players.models import User
from tests.integration.workers import WITH_WORKERS, wait_for

pytestmark = WITH_WORKERS


def test_the_lifting_task_is_on_beats_schedule() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["moderation-sanctions-expire"]
    assert entry["task"] == "moderation.sanctions_expire" and entry["schedule"] > 0


def test_a_timed_suspension_and_mute_end_by_themselves(
    make_player: Any, start_worker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SANCTIONS_INTERVAL_SECONDS", "0.5")  # the worker's beat: a short interval
    moderator = make_player("beatmod")
    moderator.is_staff = moderator.is_superuser = True
    moderator.save(update_fields=["is_staff", "is_superuser"])
    player = make_player("timeout-me")
    for_good = make_player("for-good")
    until = timezone.now() + timedelta(seconds=3)
    moderation.moderation_player_suspend(player=player, by=moderator, reason="cool off", until=until)
    moderation.moderation_player_mute(player=player, by=moderator, reason="cool off", until=until)
    moderation.moderation_player_suspend(player=for_good, by=moderator, reason="no end")
    assert not User.objects.get(pk=player.pk).is_active and selectors.is_muted(player)

    worker = start_worker(beat=True)
    reinstated = wait_for(
        lambda: User.objects.get(pk=player.pk).is_active,
        timeout=30,
        what="the suspended account reinstated by beat",
        explain=worker.log,
    )
    assert reinstated and timezone.now() >= until  # not before its end
    wait_for(
        lambda: not Sanction.objects.filter(player=player, lifted_at__isnull=True).exists(),
        timeout=10,
        what="both sanctions lifted",
        explain=worker.log,
    )
    assert not selectors.is_muted(player)
    lifted = Sanction.objects.filter(player=player)
    assert all(s.lifted_at is not None and s.lifted_at >= until and s.lifted_by is None for s in lifted)
    automatic = AuditEntry.objects.filter(player=player, moderator__isnull=True)
    assert sorted(automatic.values_list("action", flat=True)) == ["player_unmute", "player_unsuspend"]
    # A suspension without an end stays.
    assert not User.objects.get(pk=for_good.pk).is_active
    assert Sanction.objects.get(player=for_good).lifted_at is None
