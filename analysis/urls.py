from django.urls import path

from analysis import views

urlpatterns = [
    path("games/<int:game_id>/analysis/", views.GameAnalysisApi.as_view(), name="game-analysis"),
    path("games/<int:game_id>/hint/", views.GameHintApi.as_view(), name="game-hint"),
]
