from django.urls import path

from ladder import views

app_name = "ladder"

urlpatterns = [
    path("ladder/", views.LadderApi.as_view(), name="ladder"),
    path("ladder/entry/", views.LadderEntryApi.as_view(), name="ladder-entry"),
]
