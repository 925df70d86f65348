"""The Celery application, named ``config``.

Every setting lives in ``config/settings/celery.py`` under the ``CELERY_`` prefix, so
the web process and the workers read the same environment.  Run a worker with
``celery -A config worker``.  Every worker also re-sends the pending turns when it
starts or reconnects, and records a heartbeat (``ops.worker.Recovery``).
"""

import os

# First: the project's modules below read the settings when imported (core.metrics).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from celery import Celery

from core.request_context import connect_celery
from ops.worker import Recovery

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.steps["consumer"].add(Recovery)
connect_celery()  # request ids across the hop, task counts and run times (core.request_context)


@app.on_after_configure.connect
def _make_broker_folder(sender: Celery, **kwargs: object) -> None:
    """The embedded broker is a folder: make sure it exists before any send."""
    from django.conf import settings

    if sender.conf.broker_url.startswith("filesystem://"):
        (settings.BROKER_DIR / "control").mkdir(parents=True, exist_ok=True)
