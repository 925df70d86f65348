"""The one DRF exception handler: every error becomes ``application/problem+json``.

Wired in ``REST_FRAMEWORK["EXCEPTION_HANDLER"]``.  Which exception means which
code is decided in ``core.problems.problem_from_exception``; this module only
adds what a response needs: rollback, logging of 500s, headers, media type.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.signals import got_request_exception
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core.errors import CoreCode
from core.problems import PROBLEM_CONTENT_TYPE, problem_from_exception

logger = logging.getLogger(__name__)


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """Answer ``exc`` with a problem document; never with a traceback."""
    problem = problem_from_exception(exc)
    request = context.get("request")
    if problem.code == CoreCode.DATABASE_UNAVAILABLE:
        # Expected while the database fails over: the client is told to retry.
        logger.warning("Database unavailable on %s: %s", getattr(request, "path", "?"), exc)
    elif problem.status >= 500:
        path = getattr(request, "path", "?")
        logger.error("Internal server error on %s", path, exc_info=exc)
        # Let Django's listeners see it (the test client re-raises it, error
        # reporters record it) even though the client only gets a bare 500.
        got_request_exception.send(sender=None, request=getattr(request, "_request", request))
    set_rollback()
    return Response(
        problem.body(),
        status=problem.status,
        headers=problem.response_headers(),
        content_type=PROBLEM_CONTENT_TYPE,
    )
