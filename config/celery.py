"""The Celery application, named ``config``.

Every setting lives in ``config/settings.py`` under the ``CELERY_`` prefix, so
the web process and the workers read the same environment.  Run a worker with
``celery -A config worker``.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
