"""Django's error views (``handler400/403/404/500`` in ``config.urls``).

Errors raised outside DRF views (an unknown URL, a crash in middleware) get the
same problem documents as the API's own errors.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from core.problems import Problem, problem_json_response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return problem_json_response(Problem.of("bad_request"))


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return problem_json_response(Problem.of("permission_denied"))


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return problem_json_response(Problem.of("not_found", f"Nothing at {request.path}."))


def server_error(request: HttpRequest) -> JsonResponse:
    return problem_json_response(Problem.of("server_error"))
