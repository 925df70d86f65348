"""The bots' reasoning: strategies and the search behind them, pure Python on the
rules engine.

* ``bots.strategies``: the registry of server-bot strategies (``STRATEGIES``,
  ``register``, the difficulty levels), which the games services, the ladder,
  quick play and the admin read;
* ``bots.search``: the determinized Monte Carlo search of ``strong`` and its levels;
* ``bots.knowledge``: what a seat knows of a round, and deals sampled to fit it;
* ``bots.sim``: a running round in compact form, for fast play-outs.

No Django, no I/O, nothing of the project but ``games.engine`` (an import-linter
contract); the engine imports nothing of it. ``docs/bots.md`` says how the
strategies work and how strong each measured. The API that lists them is
``live.bot_views``; their Celery task is ``live.tasks.play_bot_turn``.
"""
