"""The bare locked write: the yardstick ``manage.py loadtest --compare-bare`` holds
the real move path against.

A Django app of its own, installed only in the benchmark server
(``DJANGO_SETTINGS_MODULE=tools.loadtest.bare.settings``, which ``--spawn`` sets
when comparing): the project's settings and URLs plus one endpoint doing what a
move minimally must - API token authentication (the project's own), a small
input serializer, ``select_for_update`` of one row of ~2 KB of JSON, a save, an
insert and a JSON answer. Nothing of the server imports it; its tables are made
by ``migrate --run-syncdb`` under those settings (no migration: a deployment
never gets them).

* ``models``   - the row (``BareTable``) and the inserted ``BareMove``
* ``views``    - the two endpoints (``POST .../bare/``, ``POST .../bare/<id>/moves/``)
* ``urls``     - those two in front of the project's own URL map
* ``settings`` - the project's settings, this app installed, that URL map
"""
