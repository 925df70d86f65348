"""Live updates (``live.streams``, ``core.notify``): polling, keep-alives, how long clients may wait."""

from config.settings.env import env

# Waiting clients re-read the database this often even without a notice (give or
# take a quarter, so that they spread out): with Redis a safety net only - a
# process whose notices could not reach Redis has every process re-read once it
# can (core.notify.RESYNC) - and then streams re-check their credentials as
# rarely; without Redis (or while its subscription is down) the short interval,
# the way to see the worker's moves.
LIVE_POLL_SECONDS = env.float("LIVE_POLL_SECONDS", default=60.0)
LIVE_POLL_SECONDS_EMBEDDED = env.float("LIVE_POLL_SECONDS_EMBEDDED", default=0.25)
LIVE_KEEPALIVE_SECONDS = env.float("LIVE_KEEPALIVE_SECONDS", default=15.0)
# The longest a long-poll may wait (the API's `wait` maximum), and how long a
# stream stays open before the server closes it (the client reconnects and
# resumes with Last-Event-ID; 0: for as long as the client likes).
LONG_POLL_MAX_SECONDS = env.float("LONG_POLL_MAX_SECONDS", default=30)
LIVE_STREAM_MAX_SECONDS = env.float("LIVE_STREAM_MAX_SECONDS", default=0)
# A stream closes as soon as a notice says its token was revoked or its account
# suspended; without notices from other processes (no Redis, or Redis away) it
# re-checks this often.
LIVE_CREDENTIALS_RECHECK_SECONDS = env.float("LIVE_CREDENTIALS_RECHECK_SECONDS", default=10)
