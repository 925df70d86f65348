"""Django's error views (``handler400/403/404/500`` in ``config.urls``).

Errors raised outside DRF views (an unknown URL, a crash in middleware) get the
same problem documents as the API's own errors - except under ``/admin/``, where
people read the answers: there a refusal is an admin page (the admin's look, its
navigation, the message) with the same status.
"""

from __future__ import annotations

import sys

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from core.problems import Problem, database_unavailable, problem_from_exception, problem_json_response

ADMIN_PREFIX = "/admin/"
ADMIN_ERROR_TEMPLATE = "core/admin_error.html"


def _in_admin(request: HttpRequest) -> bool:
    return request.path.startswith(ADMIN_PREFIX)


def _admin_page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    try:
        context = admin.site.each_context(request)
    except Exception:  # an error page must render even when the admin context cannot
        context = {}
    context.update({"title": title, "message": message, "status": status})
    return render(request, ADMIN_ERROR_TEMPLATE, context, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _in_admin(request):
        return _admin_page(request, 400, _("Bad request"), _("The server could not understand this request."))
    return problem_json_response(Problem.of("bad_request"))


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _in_admin(request):
        return _admin_page(
            request,
            403,
            _("Not allowed"),
            _("Your account does not have the permission this page needs. Ask an administrator if your work needs it."),
        )
    return problem_json_response(Problem.of("permission_denied"))


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _in_admin(request):
        return _admin_page(request, 404, _("Not found"), _("Nothing at %(path)s.") % {"path": request.path})
    return problem_json_response(Problem.of("not_found", _("Nothing at %(path)s.") % {"path": request.path}))


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this while it handles the exception: a database that cannot be
    # reached (in a middleware, say) is a 503 to retry, as in DRF's views.
    error = sys.exc_info()[1]
    if error is not None and database_unavailable(error):
        problem = problem_from_exception(error)
        if _in_admin(request):
            return render(request, ADMIN_ERROR_TEMPLATE, {"title": problem.title, "status": 503}, status=503)
        return problem_json_response(problem)
    if _in_admin(request):
        return render(request, ADMIN_ERROR_TEMPLATE, {"title": _("Server error"), "status": 500}, status=500)
    return problem_json_response(Problem.of("server_error"))
