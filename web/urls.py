"""The client's routes (``js/app.js`` draws each): included last by ``config.urls``."""

from django.urls import path

from web import views

app_name = "web"

urlpatterns = [
    path("", views.index, name="lobby"),
    path("login/", views.index, name="login"),
    path("register/", views.index, name="register"),
    path("games/<int:game_id>/", views.index, name="table"),
    path("games/<int:game_id>/replay/", views.index, name="replay"),
    path("leaderboard/", views.index, name="leaderboard"),
    path("players/<str:username>/", views.index, name="profile"),
    path("ladder/", views.index, name="ladder"),
]
