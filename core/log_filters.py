"""Logging filters wired in ``config.settings.logging``.

``RefusalFilter``: Django logs a ``PermissionDenied`` raised in a view (the admin's
pages raise it for a staff member without the permission) on ``django.request``
with the exception's traceback. A 403 is a refusal, not a fault: it becomes one
line, "Refused (403): <path> - <why>", at INFO, without the traceback.
"""

from __future__ import annotations

import logging


class RefusalFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.name != "django.request" or getattr(record, "status_code", None) != 403:
            return True
        request = getattr(record, "request", None)
        path = getattr(request, "path", "?")
        error = record.exc_info[1] if record.exc_info else None
        why = str(error) if error is not None and str(error) else "permission denied"
        record.msg, record.args = "Refused (403): %s - %s", (path, why)
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.INFO, "INFO"
        return True
