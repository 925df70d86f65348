"""Game analysis for players: every decision of a seat of a finished game judged from
that seat's view (``bots.analysis``), run by a Celery task on a queue of its own, and
hints in practice games. ``docs/bots.md`` says how it judges, ``docs/api.md`` how to
ask for it."""
