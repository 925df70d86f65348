from django.urls import path

from chat import views

urlpatterns = [
    path("games/<int:game_id>/chat/", views.ChatApi.as_view(), name="game-chat"),
]
