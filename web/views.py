"""The one page of the browser client: every client route (the lobby, log-in,
a table, a replay) gets the same HTML; the client's router (``js/app.js``) draws
the route. The page itself is never cached (the assets it names are, by hash).

Any other browser path answers the client's own 404 page (``web/error.html``, in
the reader's language), with DEBUG on too (``make serve``): ``not_found`` is the
last route. Django's error handlers (``config.urls``) give the same page for the
browser and leave ``/api/`` (problem documents) and ``/admin/`` to ``core.views``.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template import loader
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from core import views as core_views

logger = logging.getLogger(__name__)

#: Paths that belong to the server, not to the browser client: their errors stay theirs.
SERVER_PREFIXES = ("/api/", "/api-auth/", "/admin/", "/static/", "/jsi18n/", "/i18n/")


@require_safe
@cache_control(no_cache=True)
def index(request: HttpRequest, **route: int) -> HttpResponse:
    return render(request, "web/index.html")


def _not_found_page(request: HttpRequest) -> HttpResponse:
    context = {
        "status": 404,
        "title": _("Page not found"),
        "message": _("There is no page at this address. The game you are looking for may be at the lobby."),
        "switch": True,
    }
    return render(request, "web/error.html", context, status=404)


def not_found(request: HttpRequest, path: str = "") -> HttpResponse:
    """The last route: a path no other route knows. As Django's APPEND_SLASH would,
    a known path written without its final slash is redirected to it."""
    if not request.path.endswith("/") and request.method in ("GET", "HEAD"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != "not-found":
            query = request.META.get("QUERY_STRING", "")
            return HttpResponseRedirect(request.path + "/" + (f"?{query}" if query else ""))
    return _not_found_page(request)


def _for_server(request: HttpRequest) -> bool:
    return request.path.startswith(SERVER_PREFIXES)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404`` (DEBUG off): the client's page for the browser, problems for the API."""
    if _for_server(request):
        return core_views.page_not_found(request, exception)
    return _not_found_page(request)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500`` (DEBUG off): the client's page, rendered with as little as can
    fail (no context processors, no language switch)."""
    if _for_server(request):
        return core_views.server_error(request)
    try:
        context = {
            "status": 500,
            "title": _("Something went wrong"),
            "message": _("The server hit an error and could not show this page. It has been logged: try again soon."),
            "switch": False,
        }
        return HttpResponse(loader.get_template("web/error.html").render(context), status=500)
    except Exception:  # the last resort must answer whatever broke
        logger.exception("The 500 page could not be rendered")
        return HttpResponse(_("Server error"), content_type="text/plain; charset=utf-8", status=500)
