"""The account stream's ``challenges`` feed (``live.account_feeds``): registered
when this module is imported (``ChallengesConfig.ready``)."""

from __future__ import annotations

from challenges import selectors
from challenges.serializers import ChallengeOutput
from live import account_feeds

FEED = account_feeds.AccountFeed(
    name="challenges",
    items=selectors.feed_items,
    serializer=ChallengeOutput,
    component="Challenge",
    events=selectors.FEED_EVENTS,
    description="Your challenges, sent and received, still waiting for answers.",
)
account_feeds.register(FEED)
