"""Operator and developer tools that are not the server: the load test
(``manage.py loadtest``, ``tools.loadtest``), the strategies' arena (``manage.py
arena``, ``tools.arena``) and benchmark scripts (``tools/README.md``).
A Django app only so that ``manage.py`` finds its commands: no models, no URLs."""
