"""Helpers of the challenges tests: URLs and making challenges through the API."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from challenges.models import ChallengePolicy
from tests.api.games_helpers import ok

CHALLENGES = "/api/v1/challenges/"
POLICY = "/api/v1/me/challenge-policy/"
QUICK = {"set_max": 6, "rounds": 1}


def challenge_url(challenge_id: int, action: str = "") -> str:
    return f"{CHALLENGES}{challenge_id}/{action + '/' if action else ''}"


def create(client: APIClient, invitees: list[str], **body: Any) -> dict[str, Any]:
    body.setdefault("ruleset", dict(QUICK))
    return ok(client.post(CHALLENGES, {"invitees": invitees, **body}, format="json"), 201)


def policy(user: Any, **fields: Any) -> ChallengePolicy:
    """Give the bot account ``user`` a challenge policy (as the admin or the ladder would)."""
    return ChallengePolicy.objects.create(user=user, **fields)
