"""Quick play (``matchmaking``): the rating window of rated seeks
(``matchmaking.matching.RatingWindow``: base + per_second x seconds waited, at most
``most``; in the units of the ratings' ``rating_of`` - the defaults suit
openskill's mu, 25 for a new account). How often beat runs the matcher is
``MATCHMAKING_INTERVAL_SECONDS`` (``celery``)."""

from config.settings.env import env

MATCHMAKING_RATING_WINDOW_BASE = env.float("MATCHMAKING_RATING_WINDOW_BASE", default=3.0)
MATCHMAKING_RATING_WINDOW_PER_SECOND = env.float("MATCHMAKING_RATING_WINDOW_PER_SECOND", default=0.1)
MATCHMAKING_RATING_WINDOW_MOST = env.float("MATCHMAKING_RATING_WINDOW_MOST", default=25.0)

# How long a seek waits for players when it does not say (``wait_seconds`` omitted):
# the web client's quick play leaves it to the server.
MATCHMAKING_DEFAULT_WAIT_SECONDS = env.int("MATCHMAKING_DEFAULT_WAIT_SECONDS", default=60)
