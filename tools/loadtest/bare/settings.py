"""The benchmark server's settings: the project's own (``config.settings``), plus
the bare locked-write app and a URL map that mounts it
(``DJANGO_SETTINGS_MODULE=tools.loadtest.bare.settings``; ``manage.py loadtest
--compare-bare --spawn`` sets it for the server it starts). Nothing else differs,
so the real move path is served exactly as by ``config.settings``."""

from config.settings import *  # noqa: F403
from config.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tools.loadtest.bare"]
ROOT_URLCONF = "tools.loadtest.bare.urls"
