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
    path("account/", views.index, name="account"),
    path("rules/", views.index, name="rules"),
]
