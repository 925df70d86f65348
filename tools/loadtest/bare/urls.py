"""The benchmark server's URL map: the bare locked write, then the project's own
map unchanged (``config.urls``, with its error handlers)."""

from django.urls import path

from config import urls as project
from tools.loadtest.bare import views

BARE = "api/v1/loadtest/bare/"

urlpatterns = [
    path(BARE, views.BareTablesApi.as_view(), name="loadtest-bare"),
    path(f"{BARE}<int:table_id>/moves/", views.BareMovesApi.as_view(), name="loadtest-bare-moves"),
    *project.urlpatterns,
]

handler400 = project.handler400
handler403 = project.handler403
handler404 = project.handler404
handler500 = project.handler500
