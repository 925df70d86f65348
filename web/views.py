"""The one page of the browser client: every client route (the lobby, log-in,
a table, a replay) gets the same HTML; the client's router (``js/app.js``) draws
the route. The page itself is never cached (the assets it names are, by hash)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


@require_safe
@cache_control(no_cache=True)
def index(request: HttpRequest, **route: int) -> HttpResponse:
    return render(request, "web/index.html")
