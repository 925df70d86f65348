"""Project configuration: settings, URLs, WSGI/ASGI entry points, Celery app.

Importing the Celery app here makes ``@shared_task`` bind to it as soon as
Django starts (the pattern from Celery's Django guide).
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
