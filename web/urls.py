"""The client's routes (``js/app.js`` draws each): included last by ``config.urls``."""

from django.urls import path, re_path

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
    path("account/", views.index, name="account"),
    path("rules/", views.index, name="rules"),
]

# Last of all routes: any other browser path is the client's 404 page (not Django's
# DEBUG page); paths of the server itself (the API, the admin, ...) are left alone.
urlpatterns.append(
    re_path(r"^(?!api/|api-auth/|admin/|static/|jsi18n/|i18n/)(?P<path>.*)$", views.not_found, name="not-found")
)
