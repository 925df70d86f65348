"""The account stream's ``analyses`` feed (``live.account_feeds``): registered when
this module is imported (``AnalysisConfig.ready``)."""

from __future__ import annotations

from analysis import selectors
from analysis.serializers import AnalysisOutput
from live import account_feeds

FEED = account_feeds.AccountFeed(
    name="analyses",
    items=selectors.feed_items,
    serializer=AnalysisOutput,
    component="Analysis",
    events=selectors.FEED_EVENTS,
    description="The analyses you asked for that are still queued or running (their results: GET "
    "/games/{id}/analysis/).",
)
account_feeds.register(FEED)
