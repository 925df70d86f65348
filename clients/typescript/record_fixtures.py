"""Record the fixtures of the TypeScript contract check from a live server.

Plays one short practice match (you, seat 0, against server bots) over the public
API and writes, into ``fixtures/`` next to this file:

* ``game_stream.txt`` - the game's ``text/event-stream`` as received, opened with
  ``Last-Event-ID: 0`` right after the table is created (so every event from
  ``game_created`` to ``match_ended`` is in it), read until the server closes it
  after ``event: end``;
* ``game_view.json`` - ``GET /api/v1/games/{id}/`` at your last turn with a tile to play;
* ``game_view_final.json`` - the same once the match is over;
* ``account_stream.txt`` - ``GET /api/v1/me/stream/`` from before the start (its
  snapshot lists the open table) until this game's ``game_over``.

It starts nothing itself: run a server first, e.g. ``PORT=8123 make serve``, then

    .venv/bin/python clients/typescript/record_fixtures.py --url http://127.0.0.1:8123

(it registers a fresh account; ``--token cf_...`` plays with an existing one instead).
Only the standard library is used.
"""

from __future__ import annotations

import argparse
import http.client
import json
import secrets
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class Api:
    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers | (extra or {})

    def call(self, method: str, path: str, body: Any = None, extra: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = self.headers(extra)
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + "/api/v1" + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raise SystemExit(f"{method} {path}: {error.code} {error.read().decode(errors='replace')}") from None
        return json.loads(raw) if raw else None

    def register(self) -> None:
        username = f"ts-fixtures-{secrets.token_hex(4)}"
        password = secrets.token_urlsafe(18)
        self.call("POST", "/players/", {"username": username, "password": password})
        created = self.call("POST", "/tokens/", {"username": username, "password": password, "name": "fixtures"})
        self.token = created["token"]


class StreamRecorder(threading.Thread):
    """Reads one stream into ``text`` until the server closes it or ``until(text)`` holds."""

    def __init__(self, api: Api, path: str, *, last_event_id: str | None = None, until: Any = None) -> None:
        super().__init__(daemon=True)
        self.api, self.path, self.last_event_id, self.until = api, path, last_event_id, until
        self.chunks: list[str] = []
        self.first_frame = threading.Event()
        self.error: BaseException | None = None

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def run(self) -> None:
        try:
            self._read()
        except BaseException as error:  # reported by the main thread
            self.error = error
            self.first_frame.set()

    def _read(self) -> None:
        parts = urlsplit(self.api.url)
        connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)
        extra = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            extra["Last-Event-ID"] = self.last_event_id
        try:
            connection.request("GET", "/api/v1" + self.path, headers=self.api.headers(extra))
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(f"GET {self.path}: {response.status} {response.read()[:300]!r}")
            while raw := response.readline():
                self.chunks.append(raw.decode("utf-8"))
                if raw in (b"\n", b"\r\n") and any(c.startswith("data:") for c in self.chunks):
                    self.first_frame.set()
                    if self.until is not None and self.until(self.text):
                        return
        finally:
            connection.close()
            self.first_frame.set()


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """The trivial policy: the first legal play, else the first legal move (draw or pass)."""
    moves = view["you"]["legal_moves"]
    return next((move for move in moves if move["type"] == "play"), moves[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8123")
    parser.add_argument("--token", help="an API token (default: register a fresh account)")
    parser.add_argument("--bots", type=int, default=3, help="server bots at the table (default 3)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the match (default 2: small fixtures)")
    parser.add_argument("--seed", type=int, default=7, help="the deal (a practice game)")
    args = parser.parse_args()

    api = Api(args.url, args.token)
    if not args.token:
        api.register()

    ruleset = {"set_max": 6, "players": args.bots + 1, "rounds": args.rounds}
    created = api.call("POST", "/games/", {"ruleset": ruleset, "seed": args.seed})
    game_id = created["game"]["id"]
    marker = f'"game":{game_id},'

    # Both streams are live before the start (the account's snapshot lists the open table).
    account = StreamRecorder(
        api,
        "/me/stream/",
        until=lambda text: "event: game_over" in text and marker in text.rsplit("event: game_over", 1)[1],
    )
    stream = StreamRecorder(api, f"/games/{game_id}/stream/", last_event_id="0")
    for recorder in (account, stream):
        recorder.start()
        recorder.first_frame.wait(30)
        if recorder.error:
            raise recorder.error

    for _ in range(args.bots):
        api.call("POST", f"/games/{game_id}/bots/", {"strategy": "greedy"})
    api.call("POST", f"/games/{game_id}/start/")

    last_play_view: dict[str, Any] | None = None
    while True:
        view = api.call("GET", f"/games/{game_id}/")
        game = view["game"]
        if game["status"] in ("finished", "aborted"):
            break
        if view["you"]["your_turn"]:
            move = choose(view)
            if move["type"] == "play":
                last_play_view = view
            api.call(
                "POST",
                f"/games/{game_id}/moves/",
                move | {"expected_seq": game["seq"]},
                extra={"Idempotency-Key": secrets.token_hex(12)},
            )
            continue
        api.call("GET", f"/games/{game_id}/events/?after={game['seq']}&wait=10")

    for recorder in (stream, account):
        recorder.join(60)
        if recorder.is_alive() or recorder.error:
            raise SystemExit(f"{recorder.path}: not finished ({recorder.error or 'still open'})")
    if last_play_view is None:
        raise SystemExit("never had a tile to play: try another --seed")

    FIXTURES.mkdir(exist_ok=True)
    (FIXTURES / "game_stream.txt").write_text(stream.text, encoding="utf-8")
    (FIXTURES / "account_stream.txt").write_text(account.text, encoding="utf-8")
    for name, body in (("game_view.json", last_play_view), ("game_view_final.json", view)):
        (FIXTURES / name).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    print(f"game {game_id} ({game['status']}, seq {game['seq']}) recorded into {FIXTURES}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
