from django.urls import path

from challenges import views

urlpatterns = [
    path("challenges/", views.ChallengeListCreateApi.as_view(), name="challenges"),
    path("challenges/<int:challenge_id>/", views.ChallengeDetailApi.as_view(), name="challenge"),
    path("challenges/<int:challenge_id>/accept/", views.ChallengeAcceptApi.as_view(), name="challenge-accept"),
    path("challenges/<int:challenge_id>/decline/", views.ChallengeDeclineApi.as_view(), name="challenge-decline"),
    path("me/challenge-policy/", views.ChallengePolicyApi.as_view(), name="me-challenge-policy"),
]
