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


@app.on_after_configure.connect
def _make_broker_folder(sender: Celery, **kwargs: object) -> None:
    """The embedded broker is a folder: make sure it exists before any send."""
    from django.conf import settings

    if sender.conf.broker_url.startswith("filesystem://"):
        (settings.BROKER_DIR / "control").mkdir(parents=True, exist_ok=True)
