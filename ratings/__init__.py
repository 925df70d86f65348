"""Ratings: an openskill (Plackett-Luce) rating per account and per pool of table
sizes, updated when a rated match finishes (``games.signals.match_finished``),
leaderboards and players' rating pages, and the moderators' void. Builds on
``games``, ``players`` and ``core``, which never import it."""
