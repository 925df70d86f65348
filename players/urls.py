from django.urls import path

from players import views

app_name = "players"

urlpatterns = [
    path("players/", views.PlayerCollectionApi.as_view(), name="player-list"),
    path("players/<str:username>/", views.PlayerDetailApi.as_view(), name="player-detail"),
    path("me/", views.MeApi.as_view(), name="me"),
    path("session/", views.SessionApi.as_view(), name="session"),
    path("me/password/", views.PasswordApi.as_view(), name="me-password"),
    path("me/delete/", views.AccountDeleteApi.as_view(), name="me-delete"),
    path("me/data/", views.AccountDataApi.as_view(), name="me-data"),
    path("me/second-factor/", views.SecondFactorApi.as_view(), name="me-second-factor"),
    path("me/second-factor/confirm/", views.SecondFactorConfirmApi.as_view(), name="me-second-factor-confirm"),
    path("me/second-factor/disable/", views.SecondFactorDisableApi.as_view(), name="me-second-factor-disable"),
    path("tokens/", views.TokenCollectionApi.as_view(), name="token-list"),
    path("tokens/<int:token_id>/", views.TokenDetailApi.as_view(), name="token-detail"),
]
