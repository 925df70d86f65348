"""The bare locked write: what a move minimally costs on this stack.

``POST /api/v1/loadtest/bare/<id>/moves/`` with ``{"expected_seq": N, "tile": "9-4"}``:
the project's API token authentication without its per-process cache (the
token and account read on every request, as the baseline the issue measured:
the cache is one of the cuts the move path gets), an input serializer, in one transaction
``select_for_update`` of the caller's row (~2 KB of JSON), ``409`` if its seq is
not ``expected_seq``, else the tile appended to the JSON, the row saved and a
move row inserted; answers ``201`` with the new seq and the row's JSON. No rate
limit, no event, no notice, no rules: the same middleware, DRF and ORM as a real
move, and nothing else. ``POST /api/v1/loadtest/bare/`` makes the caller a row."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.authentication import ApiTokenAuthentication, request_account
from tools.loadtest.bare.models import BareMove, BareTable, initial_state


class BareMoveInput(serializers.Serializer[Any]):
    expected_seq = serializers.IntegerField(min_value=0)
    tile = serializers.RegexField(r"^\d{1,2}-\d{1,2}$", max_length=5)


class UncachedTokenAuthentication(ApiTokenAuthentication):
    cached = False


class BareApi(APIView):
    authentication_classes = [UncachedTokenAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = []
    renderer_classes = [JSONRenderer]


class BareTablesApi(BareApi):
    def post(self, request: Request) -> Response:
        table = BareTable.objects.create(owner=request_account(request), state=initial_state())
        return Response({"id": table.pk, "seq": table.seq}, status=status.HTTP_201_CREATED)


class BareMovesApi(BareApi):
    def post(self, request: Request, table_id: int) -> Response:
        data = BareMoveInput(data=request.data)
        data.is_valid(raise_exception=True)
        expected, tile = data.validated_data["expected_seq"], data.validated_data["tile"]
        with transaction.atomic():
            table = BareTable.objects.select_for_update().filter(pk=table_id, owner=request_account(request)).first()
            if table is None:
                return Response({"code": "not_found"}, status=status.HTTP_404_NOT_FOUND)
            if table.seq != expected:
                return Response({"code": "stale_seq", "current_seq": table.seq}, status=status.HTTP_409_CONFLICT)
            table.seq += 1
            table.state["layout"] = [*table.state["layout"][1:], tile]  # the JSON stays ~2 KB
            table.state["turn"] = table.seq % 2
            table.save(update_fields=["seq", "state", "updated_at"])
            BareMove.objects.create(table=table, seq=table.seq, tile=tile)
        return Response(
            {"seq": table.seq, "move": {"seq": table.seq, "tile": tile}, "state": table.state},
            status=status.HTTP_201_CREATED,
        )
