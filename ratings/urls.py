from django.urls import path

from ratings import views

urlpatterns = [
    path("leaderboard/", views.LeaderboardApi.as_view(), name="leaderboard"),
    path("players/<str:username>/ratings/", views.PlayerRatingsApi.as_view(), name="player-ratings"),
]
