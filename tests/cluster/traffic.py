"""Clients playing over HTTP through the cluster's load balancer, and the ledger of
what they were told: the fault suite's witnesses.

* ``Pair``: a thread playing duels for two accounts (the seat whose turn it is
  moves, through the public API). A move is sent with ``expected_seq`` and an
  ``Idempotency-Key``; a 503, or a connection that failed, is retried with the
  same key until a definite answer (so a move is done at most once, and the
  client learns whether it was). Every 2xx answer is written in the ledger.
* ``Stream``: a thread holding a game's event stream, resuming with
  ``Last-Event-ID`` whenever it breaks; any event id that is not the last one
  plus one is a gap.
* ``bot_table``: a table of server bots (the workers play it).

Every client speaks HTTPS to the load balancer and verifies its certificate
against the cluster's own authority (``verify``: the CA file ``deploy/cluster.py``
made), as a real client would verify a public one.

The ledger counts answers 5xx other than 503 (never allowed), and ``check_log``
compares each game's public move log with the 2xx answers: a move answered 2xx
and missing is lost; a move in the log more often than the client sent it is
doubled.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

API = "/api/v1"
PASSWORD = "cluster fault suite 7391"
GIVE_UP_SECONDS = 120.0  # a call that gets no definite answer for this long fails the suite


@dataclass
class Ledger:
    lock: threading.Lock = field(default_factory=threading.Lock)
    acked: dict[tuple[int, int], tuple[int, dict[str, Any]]] = field(default_factory=dict)  # (game, number)
    sent: dict[tuple[int, int], int] = field(default_factory=dict)  # (game, seat) -> moves answered 2xx
    accepted_at: list[float] = field(default_factory=list)  # monotonic times of accepted moves
    bad_5xx: list[str] = field(default_factory=list)
    unavailable: int = 0  # 503 answers and failed connections
    gaps: list[str] = field(default_factory=list)
    repeats: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def accept(self, game: int, seat: int, number: int, move: dict[str, Any]) -> None:
        with self.lock:
            if (game, number) not in self.acked:
                self.sent[(game, seat)] = self.sent.get((game, seat), 0) + 1
            self.acked[(game, number)] = (seat, move)
            self.accepted_at.append(time.monotonic())

    def longest_gap(self, since: float, until: float) -> float:
        """The longest stretch in [since, until] with no move accepted (seconds)."""
        with self.lock:
            times = [t for t in self.accepted_at if since <= t <= until]
        points = [since, *times, until]
        return max(b - a for a, b in itertools.pairwise(points))

    def accepted_since(self, since: float) -> int:
        with self.lock:
            return sum(1 for t in self.accepted_at if t >= since)


class Api:
    """One account's HTTP client through the load balancer, retrying what may be retried."""

    def __init__(self, base: str, ledger: Ledger, token: str = "", verify: str | bool = True) -> None:
        self.client = httpx.Client(base_url=base, timeout=httpx.Timeout(10.0, connect=3.0), verify=verify)
        self.ledger = ledger
        self.token = token
        self.verify = verify

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, httpx.Headers]:
        """The first definite answer (not a 503, not a broken connection)."""
        deadline = time.monotonic() + GIVE_UP_SECONDS
        sent_headers = dict(headers or {})
        if self.token:
            sent_headers["Authorization"] = f"Bearer {self.token}"
        while True:
            try:
                response = self.client.request(method, API + path, json=body, headers=sent_headers)
            except httpx.TransportError:
                with self.ledger.lock:
                    self.ledger.unavailable += 1
                wait = 0.5
            else:
                if response.status_code == 503:
                    with self.ledger.lock:
                        self.ledger.unavailable += 1
                    wait = min(float(response.headers.get("Retry-After", "1")), 2.0)
                    if "retry_after" not in response.text:
                        self.ledger.bad_5xx.append(f"503 without retry_after on {method} {path}: {response.text[:200]}")
                elif response.status_code >= 500:
                    self.ledger.bad_5xx.append(f"{response.status_code} on {method} {path}: {response.text[:300]}")
                    wait = 1.0
                else:
                    try:
                        payload = response.json()
                    except ValueError:
                        payload = response.text
                    return response.status_code, payload, response.headers
            if time.monotonic() > deadline:
                raise TimeoutError(f"{method} {path}: no definite answer in {GIVE_UP_SECONDS:.0f} s")
            time.sleep(wait)

    def ok(self, method: str, path: str, body: Any = None, expect: tuple[int, ...] = (200, 201)) -> Any:
        status, payload, _ = self.call(method, path, body)
        if status not in expect:
            raise AssertionError(f"{method} {path}: {status} {payload}")
        return payload

    def close(self) -> None:
        self.client.close()


def sign_up(base: str, ledger: Ledger, username: str, verify: str | bool = True) -> Api:
    api = Api(base, ledger, verify=verify)
    # 409: an attempt the client was told 503 for had signed the account up (the name is this run's own).
    api.ok("POST", "/players/", {"username": username, "password": PASSWORD}, expect=(201, 409))
    issued = api.ok("POST", "/tokens/", {"username": username, "password": PASSWORD, "name": "faults"})
    api.token = issued["token"]
    return api


class Pair(threading.Thread):
    """Two accounts playing duel after duel against each other."""

    def __init__(self, a: Api, b: Api, ledger: Ledger, streams: list[Stream], base: str) -> None:
        super().__init__(daemon=True)
        self.players = [a, b]
        self.ledger = ledger
        self.streams = streams
        self.base = base
        self.stop = threading.Event()
        self.paused = threading.Event()
        self.idle = threading.Event()
        self.games: list[int] = []

    def new_game(self) -> int:
        a, b = self.players
        game = a.ok("POST", "/games/", {"ruleset": {"set_max": 9, "players": 2, "rounds": 3}})["game"]["id"]
        b.ok("POST", f"/games/{game}/join/", {}, expect=(200, 201, 409))  # 409: a retried join that was done
        a.ok("POST", f"/games/{game}/start/", {}, expect=(200, 409))
        self.games.append(game)
        stream = Stream(self.base, a.token, game, self.ledger, a.verify)
        stream.start()
        self.streams.append(stream)
        return int(game)

    def run(self) -> None:
        try:
            game = self.new_game()
            while not self.stop.is_set():
                if self.paused.is_set():
                    self.idle.set()
                    time.sleep(0.1)
                    continue
                self.idle.clear()
                if not self.play_one(game):
                    game = self.new_game()
        except Exception as error:
            self.ledger.errors.append(f"{self.name}: {type(error).__name__}: {error}")
        finally:
            self.idle.set()

    def play_one(self, game: int) -> bool:
        """Make the next move of ``game``; False once it is over."""
        for api in self.players:
            view = api.ok("GET", f"/games/{game}/")
            if view["game"]["status"] != "running":
                return False
            you = view["you"]
            if you and you["your_turn"] and you["legal_moves"]:
                move = you["legal_moves"][0]
                key = uuid.uuid4().hex
                status, body, _ = api.call(
                    "POST",
                    f"/games/{game}/moves/",
                    {**move, "expected_seq": view["game"]["seq"]},
                    headers={"Idempotency-Key": key},
                )
                if status in (200, 201):
                    self.ledger.accept(game, body["move"]["seat"], body["move"]["number"], body["move"]["move"])
                elif status != 409:  # 409: someone (a turn clock) moved first: look again
                    self.ledger.errors.append(f"move in game {game}: {status} {body}")
                    time.sleep(0.5)
                return True
        time.sleep(0.05)  # nobody's turn (a round is being scored): look again
        return True


class Stream(threading.Thread):
    """A game's event stream, resumed with Last-Event-ID; records any gap in the ids."""

    def __init__(self, base: str, token: str, game: int, ledger: Ledger, verify: str | bool = True) -> None:
        super().__init__(daemon=True)
        self.base, self.token, self.game, self.ledger = base, token, game, ledger
        self.verify = verify
        self.last = 0
        self.last_at = time.monotonic()
        self.stop = threading.Event()
        self.finished = False

    def run(self) -> None:
        timeout = httpx.Timeout(30.0, connect=3.0)
        with httpx.Client(base_url=self.base, timeout=timeout, verify=self.verify) as client:
            while not self.stop.is_set() and not self.finished:
                headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
                if self.last:
                    headers["Last-Event-ID"] = str(self.last)
                try:
                    with client.stream("GET", f"{API}/games/{self.game}/stream/", headers=headers) as response:
                        if response.status_code == 204:  # over, and we have its last event
                            self.finished = True
                            return
                        if response.status_code != 200:
                            if response.status_code >= 500 and response.status_code != 503:
                                self.ledger.bad_5xx.append(f"{response.status_code} on stream {self.game}")
                            time.sleep(1.0)
                            continue
                        for event_id, event, data in _events(response.iter_lines()):
                            self._heard(event_id, event, data)
                            if self.stop.is_set() or self.finished:
                                return
                except (httpx.TransportError, httpx.StreamError):
                    pass
                time.sleep(0.5)

    def _heard(self, event_id: str | None, event: str | None, data: str) -> None:
        if event == "snapshot" and not self.last:  # a first connection: events follow the snapshot's seq
            self.last = int(json.loads(data)["game"]["seq"])
            return
        if event == "end":  # the game is over (the frame carries the last event's id again)
            self.finished = True
            return
        if event_id is not None and event_id.isdigit():
            seq = int(event_id)
            if seq <= self.last:  # a repeat (a client drops it by its id): counted, not a gap
                self.ledger.repeats.append(f"game {self.game}: after {self.last} came {seq} ({event}) again")
            elif seq != self.last + 1:
                self.ledger.gaps.append(f"game {self.game}: after {self.last} came {seq}")
            self.last = max(self.last, seq)
            self.last_at = time.monotonic()


def _events(lines: Iterator[str]) -> Iterator[tuple[str | None, str | None, str]]:
    event_id: str | None = None
    event: str | None = None
    data: list[str] = []
    for line in lines:
        if not line:
            if event_id is not None or data:
                yield event_id, event, "\n".join(data)
            event_id, event, data = None, None, []
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "id":
            event_id = value
        elif name == "event":
            event = value
        elif name == "data":
            data.append(value)


def bot_table(api: Api, base: str, ledger: Ledger) -> tuple[int, Stream]:
    """A started table of four server bots, followed by a stream."""
    body = {"ruleset": {"set_max": 9, "players": 4, "rounds": 10}, "sit": False, "bot_delay_ms": 200}
    game = api.ok("POST", "/games/", body)["game"]["id"]
    for strategy in ("greedy", "random", "greedy", "random"):
        api.ok("POST", f"/games/{game}/bots/", {"strategy": strategy})
    api.ok("POST", f"/games/{game}/start/", {})
    stream = Stream(base, api.token, game, ledger, api.verify)
    stream.start()
    return int(game), stream


def move_log(api: Api, game: int) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = []
    while True:
        page = api.ok("GET", f"/games/{game}/moves/?after={moves[-1]['number'] if moves else 0}")
        moves += page["moves"]
        if not page["has_more"]:
            return moves


def check_log(api: Api, ledger: Ledger, games: list[int]) -> tuple[int, int, list[str]]:
    """(lost, doubled, problems): every 2xx move is in its game's log, as sent; no
    seat has more player moves in a log than it was answered 2xx for; the log's
    numbers run 1, 2, 3 ..."""
    lost = doubled = 0
    problems: list[str] = []
    with ledger.lock:
        acked = dict(ledger.acked)
        sent = dict(ledger.sent)
    for game in games:
        log = move_log(api, game)
        numbers = [m["number"] for m in log]
        if numbers != list(range(1, len(log) + 1)):
            problems.append(f"game {game}: move numbers {numbers[:5]}... are not 1..{len(log)}")
        by_number = {m["number"]: m for m in log}
        for (g, number), (seat, move) in acked.items():
            if g != game:
                continue
            found = by_number.get(number)
            if found is None or found["seat"] != seat or found["move"] != move:
                lost += 1
                problems.append(f"game {game}: move {number} {move} by seat {seat} answered 2xx, log has {found}")
        counted: dict[int, int] = {}
        for m in log:
            if m["source"] == "player":
                counted[m["seat"]] = counted.get(m["seat"], 0) + 1
        for seat, count in counted.items():
            extra = count - sent.get((game, seat), 0)
            if extra > 0:
                doubled += extra
                problems.append(f"game {game}: seat {seat} has {count} player moves, {count - extra} answered 2xx")
    return lost, doubled, problems


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
