#!/usr/bin/env python3
"""A complete Chicken Foot bot in the Python standard library: the smallest
client that plays correctly. Copy it and replace ``choose`` with your strategy.

    python examples/bot_client.py --token cf_... --game 12        # play seat you hold in game 12
    python examples/bot_client.py --token cf_... --new-vs-bots 3  # open a table vs 3 server bots

It waits for its turn with the long-poll (`GET .../events/?after=SEQ&wait=25`),
reads its own view (`GET /games/{id}/`: hand, legal moves, seq), and submits one
of `you.legal_moves` with `expected_seq` and an Idempotency-Key, so a retried
request can never move twice.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any


class Api:
    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/") + "/api/v1"
        self.token = token

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json", **(headers or {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:  # problem+json: branch on "code"
            return error.code, json.loads(error.read() or b"null")


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """Your strategy: return one of the legal moves. This one sheds the heaviest tile."""
    moves = view["you"]["legal_moves"]
    plays = [m for m in moves if m["type"] == "play"]
    if not plays:
        return moves[0]  # draw or pass: the only choice
    return max(plays, key=lambda m: sum(map(int, m["tile"].split("-"))) + random.random())


def play(api: Api, game_id: int) -> None:
    seq = 0
    while True:
        status, view = api.call("GET", f"/games/{game_id}/")
        game = view["game"]
        if game["status"] in ("finished", "aborted"):
            print("game over:", json.dumps(game["result"] or game["status"]))
            return
        you = view["you"]
        if you is None:
            sys.exit(f"you have no seat at game {game_id}")
        if you["your_turn"]:
            move = choose(view)
            status, answer = api.call(
                "POST",
                f"/games/{game_id}/moves/",
                {**move, "expected_seq": game["seq"]},
                headers={"Idempotency-Key": str(uuid.uuid4())},
            )
            if status in (200, 201):
                print(f"seat {you['seat']}: {move}")
                seq = answer["game"]["game"]["seq"]
                continue
            if answer.get("code") != "stale_seq":  # anything else is a bug in the bot: show it
                sys.exit(f"{status} {answer['code']}: {answer['detail']}")
            continue  # the game moved on meanwhile: read it again
        # Not our turn: wait (one request, up to 25 s) for anything after what we saw.
        seq = game["seq"]
        api.call("GET", f"/games/{game_id}/events/?after={seq}&wait=25")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--game", type=int, help="a game in which you hold a seat")
    group.add_argument("--new-vs-bots", type=int, metavar="N", help="open a table against N server bots")
    args = parser.parse_args()
    api = Api(args.url, args.token)
    game_id = args.game
    if game_id is None:
        _status, view = api.call(
            "POST", "/games/", {"ruleset": {"set_max": 6, "players": args.new_vs_bots + 1, "rounds": 2}}
        )
        game_id = view["game"]["id"]
        for _ in range(args.new_vs_bots):
            api.call("POST", f"/games/{game_id}/bots/", {"strategy": "greedy"})
        api.call("POST", f"/games/{game_id}/start/")
        print(f"game {game_id} started")
    started = time.monotonic()
    play(api, game_id)
    print(f"done in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
