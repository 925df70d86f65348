from django.urls import path

from matchmaking import views

urlpatterns = [
    path("seeks/", views.SeekListCreateApi.as_view(), name="seeks"),
    path("seeks/<int:seek_id>/", views.SeekDetailApi.as_view(), name="seek"),
    path("presets/", views.PresetListApi.as_view(), name="presets"),
]
