"""Helpers and fixtures for the games API tests (``tests/api/test_games_*.py``).

Their fixtures (``people``, ``make_table``) are in ``tests/conftest.py``: the
API and the moderation tests both use them.

Every response a test looks at goes through ``ok`` or ``refused``: both check it
against the committed ``openapi.yaml``; ``refused`` also checks that the
operation documents the error code it answered with.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml
from django.http import HttpResponse
from rest_framework.test import APIClient

from games.models import Game
from tests.api.problems import assert_problem
from tests.openapi_check import OPENAPI_PATH, assert_matches_schema

GAMES = "/api/v1/games/"
BOTS = "/api/v1/bots/"

# Small and quick: double-6, two players, one round.
QUICK_RULESET = {"set_max": 6, "players": 2, "rounds": 1}


def game_url(game_id: int, action: str = "") -> str:
    return f"{GAMES}{game_id}/{action + '/' if action else ''}"


# -- responses ------------------------------------------------------------------


def ok(response: Any, status: int = 200) -> Any:
    """The response has ``status`` and matches the contract; returns its JSON."""
    assert response.status_code == status, (response.status_code, response.content[:2000])
    assert_matches_schema(response)
    return response.json()


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """A problem document with ``status`` and ``code``, allowed by the contract,
    and the operation lists ``code`` among its documented refusals."""
    body = assert_problem(response, status, code)
    assert_matches_schema(response)
    assert_code_documented(response, code)
    return body


@functools.cache
def _document() -> dict[str, Any]:
    return yaml.safe_load(OPENAPI_PATH.read_text())


@functools.cache
def _path_patterns() -> list[tuple[re.Pattern[str], str]]:
    patterns = []
    for template in _document()["paths"]:
        regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        patterns.append((re.compile(f"^{regex}$"), template))
    return patterns


def documented_codes(method: str, path: str, status: int) -> set[str]:
    """The error codes ``openapi.yaml`` lists for ``method path`` with ``status``."""
    document = _document()
    template = next((t for pattern, t in _path_patterns() if pattern.match(path)), None)
    assert template is not None, f"{path} is not in openapi.yaml"
    operation = document["paths"][template][method.lower()]
    response = operation["responses"].get(str(status))
    if response is None:
        return set()
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    examples = response["content"]["application/problem+json"].get("examples", {})
    return {example["value"]["code"] for example in examples.values()}


def documented_event_types() -> set[str]:
    return set(_document()["components"]["schemas"]["EventType"]["enum"])


def assert_code_documented(response: Any, code: str) -> None:
    request = response.wsgi_request
    listed = documented_codes(request.method, request.path, response.status_code)
    assert code in listed, (
        f"{request.method} {request.path} answered {response.status_code} {code}, "
        f"but openapi.yaml lists only {sorted(listed)} for that status"
    )


# -- players and tables ---------------------------------------------------------

_names = itertools.count(1)


@dataclass
class Table:
    """A game and its players: ``clients[n]`` is the client of the player in seat n."""

    game_id: int
    users: list[Any]
    clients: list[APIClient]
    seen: list[tuple[int | None, str, Any]] = field(default_factory=list)  # (seat, what, JSON)

    @property
    def url(self) -> str:
        return game_url(self.game_id)

    def action(self, name: str) -> str:
        return game_url(self.game_id, name)

    @property
    def creator(self) -> APIClient:
        return self.clients[0]

    def game(self) -> Game:
        return Game.objects.get(pk=self.game_id)


@dataclass
class People:
    """Make players (each with a token client) without name clashes."""

    make_player: Callable[..., Any]
    token_client: Callable[[Any], APIClient]

    def player(self, prefix: str = "player", **kwargs: Any) -> tuple[Any, APIClient]:
        user = self.make_player(f"{prefix}{next(_names)}", **kwargs)
        return user, self.token_client(user)

    def staff(self) -> tuple[Any, APIClient]:
        user = self.make_player(f"moderator{next(_names)}")
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        return user, self.token_client(user)


def create_game(client: APIClient, **body: Any) -> dict[str, Any]:
    body.setdefault("ruleset", dict(QUICK_RULESET))
    return ok(client.post(GAMES, body, format="json"), 201)


# -- playing --------------------------------------------------------------------


def view(client: APIClient, game_id: int) -> dict[str, Any]:
    return ok(client.get(game_url(game_id)))


def move(client: APIClient, game_id: int, expected_seq: int, move: dict[str, Any], **headers: str) -> HttpResponse:
    return client.post(
        game_url(game_id, "moves"), {**move, "expected_seq": expected_seq}, format="json", headers=headers
    )


def play_turn(client: APIClient, game_id: int, rng: random.Random, table: Table | None = None) -> dict[str, Any]:
    """Read the game as ``client`` sees it, make a random one of its legal moves;
    returns the move's answer (201). With ``table``, the views are kept in ``table.seen``."""
    body = view(client, game_id)
    you = body["you"]
    assert you is not None and you["your_turn"], body
    if table is not None:
        table.seen.append((you["seat"], "detail", body))
    chosen = rng.choice(you["legal_moves"])
    answer = ok(move(client, game_id, body["game"]["seq"], chosen), 201)
    assert answer["move"]["move"] == chosen
    if table is not None:
        table.seen.append((you["seat"], "move", answer))
    return answer


def play_to_end(
    table: Table,
    rng: random.Random,
    *,
    after_move: Callable[[dict[str, Any]], None] | None = None,
    max_moves: int = 5000,
) -> dict[str, Any]:
    """Every seat plays random legal moves from its own view until the match ends;
    returns the last move's answer."""
    answer: dict[str, Any] | None = None
    turn = table.game().turn_seat
    for _ in range(max_moves):
        if turn is None:
            break
        answer = play_turn(table.clients[turn], table.game_id, rng, table)
        if after_move is not None:
            after_move(answer)
        turn = answer["game"]["game"]["turn_seat"]
    else:  # pragma: no cover - a runaway match
        pytest.fail(f"the match did not end within {max_moves} moves")
    assert answer is not None
    return answer


def all_events(client: APIClient, game_id: int, after: int = 0) -> Iterator[dict[str, Any]]:
    while True:
        page = ok(client.get(game_url(game_id, "events"), {"after": after}))
        yield from page["events"]
        if not page["has_more"]:
            return
        after = page["events"][-1]["seq"]


# -- positions (practice set-ups on a double-6 set; 6-6 starts round 1) ------------


def double_six() -> list[str]:
    return [f"{a}-{b}" for a in range(7) for b in range(a + 1)]


def rest_of_set(*taken: list[str]) -> list[str]:
    held = {t for tiles in taken for t in tiles}
    return [t for t in double_six() if t not in held]


# Seat 0 places the 6-6 spinner (ends e1-e4 need a 6); seat 1 moves first and can
# play 6-1 or 6-2. Scripted on from there: 6-1 on e1 (opens e5, needs 1), 6-5 on e2,
# 6-2 on e3, 6-4 on e4 (spinner complete), 1-1 on e5 (chicken foot e9-e11).
PLAY_SETUP = {"hands": [["6-6", "6-5", "6-4", "5-5", "1-0", "4-0"], ["6-1", "6-2", "1-1", "2-0", "3-3"]]}

# Nobody but the spinner's owner holds a 6: seat 1 must draw; it draws 1-0 (no use),
# then seat 0 (holding 5-5 only) draws 6-1, which it may play or pass on.
DRAW_HANDS = [["6-6", "5-5"], ["3-3", "2-1"]]
DRAW_SETUP = {"hands": DRAW_HANDS, "boneyard": ["1-0", "6-1", *rest_of_set(*DRAW_HANDS, ["1-0", "6-1"])]}

# The boneyard is empty from the start and seat 1 holds no 6: it can only pass.
SIXES = ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"]
EMPTY_HANDS = [SIXES, rest_of_set(SIXES)]
EMPTY_SETUP = {"hands": EMPTY_HANDS, "boneyard": []}

# Seat 0 goes out with the spinner itself: with one round the match is over at the start.
INSTANT_SETUP = {"hands": [["6-6"], ["5-5", "4-1"]]}


def play(tile: str, end: str) -> dict[str, str]:
    return {"type": "play", "tile": tile, "end": end}


DRAW = {"type": "draw"}
PASS = {"type": "pass"}
