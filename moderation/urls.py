from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("reports/", views.ReportCollectionApi.as_view(), name="report-list"),
    path("me/warnings/", views.WarningCollectionApi.as_view(), name="warning-list"),
    path("me/sanctions/", views.SanctionCollectionApi.as_view(), name="sanction-list"),
    path("me/sanctions/<int:sanction_id>/appeal/", views.SanctionAppealApi.as_view(), name="sanction-appeal"),
    path("appeals/", views.AppealTokenApi.as_view(), name="appeal-create"),
    path(
        "me/warnings/<int:warning_id>/acknowledge/",
        views.WarningAcknowledgeApi.as_view(),
        name="warning-acknowledge",
    ),
]
