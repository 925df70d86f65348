"""A move's answer is freed by reference counting as soon as the server drops it,
not left to Python's cyclic garbage collector.

DRF ties the view, the response and its ``renderer_context`` into reference
cycles on every request, and the layout's tree was built by two closures that
referred to each other: each move left its whole answer (a few hundred lists
and dicts of the game's view) and the engine's layout as cyclic garbage, which
cost the web processes a collection about once a request
(``core.renderers``, ``games.engine.layout``; docs/performance.md, tenth round).

The request goes through Django's WSGI handler as a server would call it
(``ClientHandler`` without the test client's own additions, which tie the
response to itself), with the collector told to keep what it finds.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.test import RequestFactory
from django.test.client import ClientHandler
from rest_framework.response import Response

from games.engine import Match
from games.engine.layout import Layout
from tests.api.games_helpers import game_url

pytestmark = pytest.mark.django_db


@contextmanager
def cyclic_garbage() -> Iterator[list[Any]]:
    """What the collector finds unreachable at the end of the block (kept, not freed)."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list[Any] = []
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def serve(environ: dict[str, Any]) -> tuple[int, bytes]:
    response = ClientHandler(enforce_csrf_checks=False)(environ)
    return response.status_code, b"".join(response)


def test_a_moves_answer_leaves_no_cyclic_garbage(make_table):
    table = make_table(players=2, set_max=6)
    game = table.game()
    match = Match.from_dict(game.state)
    body = {**match.legal_moves()[0].to_dict(), "expected_seq": game.seq}
    auth = table.clients[match.turn]._credentials["HTTP_AUTHORIZATION"]
    post = RequestFactory().post(
        game_url(table.game_id, "moves"), json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=auth
    )
    get = RequestFactory().get(game_url(table.game_id), HTTP_AUTHORIZATION=auth)

    with cyclic_garbage() as garbage:
        status, content = serve(post.environ)
        assert status == 201, content[:300]
        status, content = serve(get.environ)
        assert status == 200, content[:300]

    assert json.loads(content)["state"]["layout"]["tile"]  # the answer holds the layout's tree
    # type(), not isinstance(): a lazy object in the garbage (the request's CSP nonce)
    # must not be evaluated by the look.
    kept = [type(o).__name__ for o in garbage if issubclass(type(o), Response | Layout)]
    kept += ["an answer's game view" for o in garbage if type(o) is dict and "legal_moves" in o]
    assert kept == []
