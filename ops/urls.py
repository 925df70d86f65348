from django.urls import path

from ops import views

urlpatterns = [path("health/", views.HealthApi.as_view(), name="health")]
