"""No response shows a tile its viewer may not see.

A rated two-player match of two rounds is played through the API. After every
move each viewer (both seats, an anonymous spectator, a moderator) reads what it
may read, and every JSON answer is scanned against the engine's full state as it
is in the database at that moment: a tile text may appear only if it is on the
layout of the running round, is the round's starting double, or is in the
viewer's own hand. Answers about ended rounds (round_ended events, round
summaries, earlier events and moves) are public and skipped. No key ``boneyard``
may appear, ``hands`` only inside ended rounds, ``seed`` and ``setup`` only as
null (but to the creator of a practice game, who chose them: with either, every
hand and the boneyard's order follow), and no ``drew`` event ever says which tile
was drawn. The match is played as a rated game and as a practice game.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from games.engine import Match
from tests.api.games_helpers import Table, game_url, move, ok, play_turn, refused, view

pytestmark = pytest.mark.django_db

TILE = re.compile(r"^\d{1,2}-\d{1,2}$")


def visible_tiles(state: dict[str, Any], seat: int | None) -> set[str]:
    """What ``seat`` (None: a spectator) may see of the running round's tiles."""
    match = Match.from_dict(state)
    tiles = {node[0] for node in state["layout"]["nodes"]}
    starting = match.ruleset.starting_double(match.round_index)
    tiles.add(f"{starting}-{starting}")
    if seat is not None:
        tiles.update(state["hands"][seat])
    return tiles


def leaks(node: Any, allowed: set[str], round_now: int, path: str = "", *, seed_allowed: bool = False) -> list[str]:
    """Every place in ``node`` that shows what the viewer may not see."""
    found: list[str] = []
    if isinstance(node, dict):
        if isinstance(node.get("round"), int) and node["round"] < round_now:
            return found  # an event or a move of an ended round
        if node.get("type") == "round_ended":
            return found  # the round is over: its hands are revealed
        for key, value in node.items():
            here = f"{path}/{key}"
            if key == "rounds":
                continue  # summaries of ended rounds
            if key in ("hands", "boneyard", "revealed_hands", "full_state") and value is not None:
                found.append(f"{here}: a {key!r} member")
            if key in ("seed", "setup") and value is not None and not seed_allowed:
                found.append(f"{here}: the {key}")
            if key == "setup" and seed_allowed:
                continue  # the creator's own set-up: theirs to see
            found += leaks(value, allowed, round_now, here, seed_allowed=seed_allowed)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += leaks(value, allowed, round_now, f"{path}/{index}", seed_allowed=seed_allowed)
    elif isinstance(node, str) and TILE.match(node) and node not in allowed:
        found.append(f"{path}: {node}")
    return found


def drew_tiles(node: Any) -> list[Any]:
    """``drew`` events that name a tile, anywhere in ``node``."""
    if isinstance(node, dict):
        named = "tile" in node or any(isinstance(v, str) and TILE.match(v) for v in node.values())
        here = [node] if node.get("type") == "drew" and named else []
        return here + [d for value in node.values() for d in drew_tiles(value)]
    if isinstance(node, list):
        return [d for value in node for d in drew_tiles(value)]
    return []


class Scanner:
    """Reads the game as each viewer and checks every answer against the full
    state in the database (``refresh`` after every change)."""

    def __init__(self, table: Table, spectator: APIClient, moderator: APIClient) -> None:
        self.table = table
        self.spectator = spectator
        self.moderator = moderator
        self.after_seq = 0
        self.after_move = 0
        self.checked = 0
        self.refresh()

    def refresh(self) -> None:
        game = self.table.game()
        self.running = game.status == "running"
        self.state = game.state
        self.allowed = {seat: visible_tiles(self.state, seat) for seat in (None, *range(len(self.table.clients)))}

    def check(self, seat: int | None, body: Any, what: str) -> None:
        assert not drew_tiles(body), f"{what}: a drew event names its tile"
        self.checked += 1
        if not self.running:
            return  # over: everything is public
        creator = self.table.game().practice and seat == 0  # seat 0 created the table
        problems = leaks(body, self.allowed[seat], self.state["round_index"] + 1, seed_allowed=creator)
        assert not problems, f"{what} as seen by seat {seat} shows hidden information: {problems}"

    def check_view(self, seat: int | None, body: dict[str, Any], what: str) -> None:
        self.check(seat, body, what)
        if self.running:
            assert body["state"]["hand_sizes"] == [len(h) for h in self.state["hands"]]
        if seat is None:
            assert body["you"] is None
        else:
            assert body["you"]["hand"] == self.state["hands"][seat], what

    def read_everything(self, full: bool) -> None:
        table, spectator = self.table, self.spectator
        for seat, client in enumerate(table.clients):
            self.check_view(seat, view(client, table.game_id), "detail")
        self.check_view(None, view(spectator, table.game_id), "detail")
        page = ok(spectator.get(table.action("events"), {"after": self.after_seq}))
        self.check(None, page, "events")
        if page["events"]:
            self.after_seq = page["events"][-1]["seq"]
        page = ok(spectator.get(table.action("moves"), {"after": self.after_move}))
        self.check(None, page, "moves")
        if page["moves"]:
            self.after_move = page["moves"][-1]["number"]
        if not full:
            return
        self.check_view(None, view(self.moderator, table.game_id), "detail")
        hands = ok(spectator.get(table.action("hands")))
        current = [h for h in hands if h["status"] == "playing"]
        self.check(None, current, "hands")
        for hand in current:
            detail = ok(spectator.get(game_url(table.game_id, f"hands/{hand['number']}")))
            assert detail["revealed_hands"] is None
            self.check(None, detail, "hand detail")
        if self.running:
            for someone in (spectator, *table.clients[1:]):
                refused(someone.get(table.action("record")), 409, "game_not_finished")
            if table.game().practice:  # its creator chose the seed: the record is theirs to see
                assert ok(table.clients[0].get(table.action("record")))["seed"] == table.game().seed
            waiting = (self.state["turn"] + 1) % 2  # a stale move shows the caller's own view
            problem = refused(move(table.clients[waiting], table.game_id, 0, {"type": "draw"}), 409, "stale_seq")
            self.check_view(waiting, problem["game"], "stale_seq problem")


@pytest.mark.parametrize("practice", [False, True], ids=["rated", "practice"])
def test_no_answer_shows_a_hidden_tile(make_table, people, api_client, monkeypatch, practice):
    # The anonymous spectator reads far more than 120 times a minute here.
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "anon", "100000/minute")
    table = make_table(2, rounds=2, api=True, **({"seed": 11} if practice else {}))
    assert table.game().practice is practice
    scanner = Scanner(table, api_client, people.staff()[1])
    rng = random.Random(5)
    scanner.read_everything(full=True)
    moves = 0
    while table.game().status == "running":
        turn = table.game().turn_seat
        answer = play_turn(table.clients[turn], table.game_id, rng)  # (its view was scanned just before)
        moves += 1
        scanner.refresh()
        scanner.check_view(turn, answer["game"], "move answer")
        scanner.check(turn, answer["events"], "move answer events")
        scanner.read_everything(full=moves % 4 == 0)
    assert table.game().state["rounds"] and len(table.game().state["rounds"]) == 2
    record = ok(api_client.get(table.action("record")))  # published at the end, and only then
    assert record["seed"] == table.game().seed
    scanner.check(None, record, "record")
    assert scanner.checked > 6 * moves


def test_the_scan_catches_a_leak(make_table):
    """The scan itself: another seat's tile, the boneyard, an unplayed tile in a
    current-round event, or a drew event naming its tile are caught."""
    table = make_table(2, rounds=2, seed=7)  # a fixed deal: some seeds draw the boneyard dry finding the spinner
    state = table.game().state
    assert state["boneyard"], "the fixed deal must leave tiles in the boneyard"
    other, boneyard = state["hands"][0][0], state["boneyard"][0]
    allowed = visible_tiles(state, 1)
    assert leaks({"you": {"hand": state["hands"][1]}}, allowed, 1) == []
    assert leaks({"x": [other]}, allowed, 1) == [f"/x/0: {other}"]
    assert leaks({"deep": {"list": [{"tile": boneyard}]}}, allowed, 1) == [f"/deep/list/0/tile: {boneyard}"]
    assert leaks({"type": "tile_played", "tile": other, "round": 1}, allowed, 1) == [f"/tile: {other}"]
    assert leaks({"type": "tile_played", "tile": other, "round": 1}, allowed, 2) == []  # an ended round
    assert leaks({"boneyard_size": 3, "seed": None}, allowed, 1) == []
    assert len(leaks({"boneyard": [], "seed": 7}, allowed, 1)) == 2
    assert len(leaks({"setup": {"hands": [["6-6"]]}, "seed": 7}, allowed, 1)) == 3  # the set-up, its hands, the seed
    assert leaks({"setup": {"hands": [["6-6"]]}, "seed": 7}, allowed, 1, seed_allowed=True) == []
    assert drew_tiles([{"type": "drew", "seat": 0, "boneyard_size": 3, "round": 1, "tile": "1-0"}])
