from django.urls import path

from live import stream_views, views

urlpatterns = [
    path("games/", views.GameListCreateApi.as_view(), name="games"),
    path("games/<int:game_id>/", views.GameDetailApi.as_view(), name="game"),
    path("games/<int:game_id>/join/", views.GameJoinApi.as_view(), name="game-join"),
    path("games/<int:game_id>/leave/", views.GameLeaveApi.as_view(), name="game-leave"),
    path("games/<int:game_id>/bots/", views.GameBotAddApi.as_view(), name="game-bots"),
    path("games/<int:game_id>/start/", views.GameStartApi.as_view(), name="game-start"),
    path("games/<int:game_id>/abort/", views.GameAbortApi.as_view(), name="game-abort"),
    path("games/<int:game_id>/resign/", views.GameResignApi.as_view(), name="game-resign"),
    path("games/<int:game_id>/return/", views.GameReturnApi.as_view(), name="game-return"),
    path("games/<int:game_id>/moves/", views.GameMovesApi.as_view(), name="game-moves"),
    path("games/<int:game_id>/events/", stream_views.GameEventsApi.as_view(), name="game-events"),
    path("games/<int:game_id>/stream/", stream_views.GameStreamApi.as_view(), name="game-stream"),
    path("games/<int:game_id>/hands/", views.GameHandsApi.as_view(), name="game-hands"),
    path("games/<int:game_id>/hands/<int:number>/", views.GameHandDetailApi.as_view(), name="game-hand"),
    path("me/stream/", stream_views.AccountStreamApi.as_view(), name="me-stream"),
    path("games/<int:game_id>/record/", views.GameRecordApi.as_view(), name="game-record"),
]
