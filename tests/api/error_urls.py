"""A URLconf of views that fail on purpose, for the exception handler's tests."""

from __future__ import annotations

from enum import StrEnum

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from core.errors import ApiError, Conflict, register_error_code
from games.engine.errors import RuleError, RulesetError
from games.errors import EngineRefusal

register_error_code("test_stale", status=409, description="Only for the exception handler's tests.")


class TestCode(StrEnum):
    STALE = "test_stale"


class TwoPerMinute(AnonRateThrottle):
    rate = "2/minute"


class Failing(APIView):
    permission_classes = [AllowAny]
    exception: Exception = RuntimeError("set by as_view()")

    def get(self, request: Request) -> Response:
        raise self.exception

    def post(self, request: Request) -> Response:
        return Response({"echo": request.data})


class Throttled(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [TwoPerMinute]

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


def failing(name: str, exception: Exception):
    return path(f"{name}/", Failing.as_view(exception=exception))


urlpatterns = [
    failing("rule", EngineRefusal(RuleError("not_your_turn", "Seat 2 is to move."))),
    failing("ruleset", EngineRefusal(RulesetError("invalid_ruleset", "Set size must be 6, 9, 12 or 15."))),
    failing("conflict", Conflict("The game moved on.", code=TestCode.STALE, extra={"current_seq": 12})),
    failing("family", Conflict("Something else changed.")),
    failing("http404", Http404("No Game matches the given query.")),
    failing("django-denied", DjangoPermissionDenied()),
    failing("crash", RuntimeError("secret internals")),
    failing("api-error", ApiError()),
    path("throttled/", Throttled.as_view()),
]
