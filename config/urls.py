"""URL map: the versioned API (with its health report), its schema and docs, the admin, and
last the web client's pages (static files are WhiteNoise's, in the middleware)."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.csp import csp_report, redoc_bundle, redoc_page

urlpatterns = [
    path("api/v1/", include("players.urls")),
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("bots.urls")),
    path("api/v1/", include("ops.urls")),
    path("api/v1/", include("moderation.urls")),
    path("api/v1/", include("challenges.urls")),
    path("api/v1/", include("ratings.urls")),
    path("api/v1/", include("matchmaking.urls")),
    path("api/v1/", include("ladder.urls")),
    path("api/v1/", include("chat.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="core/swagger_ui.html"),
        name="swagger-ui",
    ),
    path("api/redoc/", redoc_page, name="redoc"),
    path("api/redoc/redoc.standalone.js", redoc_bundle, name="redoc-bundle"),
    path("api-auth/", include("rest_framework.urls")),
    path("admin/", admin.site.urls),
    path("csp-report/", csp_report, name="csp-report"),  # browsers' CSP violation reports (core.csp)
    path("", include("web.urls")),  # last: the browser client's own pages
]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
