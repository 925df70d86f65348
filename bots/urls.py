from django.urls import path

from bots import views

urlpatterns = [path("bots/", views.BotStrategyListApi.as_view(), name="bots")]
