"""GET /api/v1/health/: is the server - and everything behind it - working?"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.renderers import JSONRenderer
from core.schema import problem_responses
from ops import health
from ops.serializers import HealthOutput


class HealthApi(APIView):
    # Nothing to authenticate (and no database read for it): monitors call this.
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    # Load balancers ask every second or so, from one address for all web servers
    # (HAProxy's checks, deploy/haproxy): a rate limit would take every server out.
    throttle_classes: list[type] = []
    renderer_classes = [JSONRenderer]

    @extend_schema(
        operation_id="health_retrieve",
        summary="Health of the server and what it relies on",
        description="Checks the database, Redis, the broker, the workers' heartbeats, the periodic sweep and "
        "whether any bot turn or turn clock is overdue. 200 when all is well; 503 with the same report, and "
        "`problems` saying what is wrong, otherwise.",
        responses={
            200: HealthOutput,
            503: OpenApiResponse(HealthOutput, description="Something is wrong: see `status` and `problems`."),
            **problem_responses("rate_limited"),
        },
    )
    def get(self, request: Request) -> Response:
        report = health.report()
        return Response(HealthOutput(report).data, status=200 if report["status"] == "ok" else 503)
