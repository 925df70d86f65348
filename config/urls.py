"""URL map: the versioned API (with its health report), its schema and docs, the admin, and
last the web client's pages (static files are WhiteNoise's, in the middleware)."""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.vary import vary_on_cookie
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.csp import csp_report, redoc_bundle, redoc_page
from ops.metrics import metrics_page

urlpatterns = [
    path("api/v1/", include("players.urls")),
    path("api/v1/", include("live.urls")),
    path("api/v1/", include("live.bot_views")),
    path("api/v1/", include("ops.urls")),
    path("api/v1/", include("moderation.urls")),
    path("api/v1/", include("challenges.urls")),
    path("api/v1/", include("ratings.urls")),
    path("api/v1/", include("matchmaking.urls")),
    path("api/v1/", include("ladder.urls")),
    path("api/v1/", include("chat.urls")),
    path("api/v1/", include("analysis.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="core/swagger_ui.html"),
        name="swagger-ui",
    ),
    path("api/redoc/", redoc_page, name="redoc"),
    path("api/redoc/redoc.standalone.js", redoc_bundle, name="redoc-bundle"),
    path("api-auth/", include("rest_framework.urls")),
    # The admin's second factor (players.admin_gate): before the admin's own patterns.
    path("admin/second-factor/", include("players.admin_gate")),
    path("admin/", admin.site.urls),
    # The web client's catalogue (djangojs domain) in the reader's language, and the
    # language switch (POST language=et: sets the language cookie); docs/i18n.md.
    path(
        "jsi18n/",
        cache_control(no_cache=True)(vary_on_cookie(JavaScriptCatalog.as_view(domain="djangojs"))),
        name="javascript-catalog",
    ),
    path("i18n/", include("django.conf.urls.i18n")),
    path("csp-report/", csp_report, name="csp-report"),  # browsers' CSP violation reports (core.csp)
    path("metrics", metrics_page, name="metrics"),  # Prometheus, off the API (docs/observability.md)
    path("", include("web.urls")),  # last: the browser client's own pages
]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "web.views.page_not_found"  # the client's page for browser paths, else core's
handler500 = "web.views.server_error"
