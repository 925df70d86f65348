"""URL map: the versioned API (with its health report), its schema and docs, the admin, and
last the web client's pages (static files are WhiteNoise's, in the middleware)."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from ops.metrics import metrics_page

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
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path(
        "api/redoc/",
        SpectacularRedocView.as_view(url_name="schema", template_name="core/redoc.html"),
        name="redoc",
    ),
    path("api-auth/", include("rest_framework.urls")),
    path("admin/", admin.site.urls),
    path("metrics", metrics_page, name="metrics"),  # Prometheus, off the API (docs/observability.md)
    path("", include("web.urls")),  # last: the browser client's own pages
]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
