"""The playing clients: threads that register, open and join 2-player duels and
play them over the public API; only the move submissions (``POST .../moves/``)
are timed.

How the clients play. ``--clients`` threads, each with one keep-alive
connection and one account (``tools.loadtest.connection``). Clients are paired;
each pair plays ``games_per_pair`` double-9 duels at once (each partner opens
one), so a client usually has a game where it is its turn and keeps about one
request in flight. A move's answer holds the mover's view (``you.legal_moves``,
``game.seq``), so a client that keeps the turn (it drew a playable tile) moves
again without a GET. How a client learns that the opponent has moved is ``follow``:

* ``local`` (default): the partner thread, which just made that move, tells it
  in-process with the mover's public state (open ends, boneyard size) - standing
  in for the live channel a client would hold, whose cost with hundreds of
  clients is measured on its own by the idle streams (``tools.loadtest.idle``).
  The client works out a legal move from its own hand, like a bot that knows the
  rules: no GET except at a round's start, so the server sees moves and nothing
  else - the load the speed target is about.
* ``notify``: told in-process as above, but the client then GETs the game for
  its legal moves: one GET per turn change, the least a client that does not
  know the rules needs.
* ``poll``: nothing in-process; a client without a turn GETs its games every
  ``poll_interval`` seconds.
* ``longpoll``: nothing in-process; a client without a turn waits on
  ``events/?after=seq&wait=...`` for one of its games, then GETs it.
* ``stream``: every client holds the event stream of each of its games
  (``tools.loadtest.follow``) and does not move in a game until the stream has
  brought the opponent's move; it then works its move out as with ``local``
  (a client that knows the rules could do so from the events; the server's work
  is the same). The server pays for the streams: two per game, woken by every
  move. How long the stream took to bring a move is measured too.

Clients can be given accounts made beforehand (``register_accounts``): runs
that follow each other on one server then skip the slow sign-ups.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import orjson

from tools.loadtest.connection import Http, error_key
from tools.loadtest.follow import GameStreams
from tools.loadtest.options import API, LoadTestError, Options

PASSWORD = "load-test passphrase 7391"
LONG_POLL_SECONDS = 5  # --follow longpoll: a client that waits on the wrong game learns it this late


@dataclass
class Slot:
    """A client's seat at one game, and what it knows of that game."""

    game_id: int
    seq: int = 0
    my_turn: bool = False
    legal: list[dict[str, Any]] | None = None  # known legal moves (my turn only)
    hand: list[str] | None = None
    round: int = 0
    finished: bool = False
    known_at: float = 0.0  # when this client last learnt the game's seq
    heard: int = 0  # --follow stream: the last seq its stream brought
    heard_at: float = 0.0
    awaited: int = 0  # --follow stream: the seq to hear before moving
    told_at: float = 0.0  # when the opponent's move that gave the turn was accepted


class Run:
    """What all the threads share: the clock, the stop flag, the counters of
    games started and finished."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.stop = threading.Event()
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.lock = threading.Lock()
        self.games_started = 0
        self.games_finished = 0
        self.streams: GameStreams | None = None  # --follow stream

    def in_window(self, t: float) -> bool:
        return self.window[0] <= t < self.window[1]

    def count_game(self, *, started: int = 0, finished: int = 0) -> None:
        with self.lock:
            self.games_started += started
            self.games_finished += finished


class Client(threading.Thread):
    """One player: registers, opens its tables, then plays its seats."""

    def __init__(
        self, run: Run, index: int, tag: str, host: str, port: int, account: tuple[str, str] | None = None
    ) -> None:
        super().__init__(name=f"loadtest-client-{index}", daemon=True)
        self.run_state = run
        self.options = run.options
        self.index = index
        self.username, self.token = account or (f"load-{tag}-{index}", "")
        self.http = Http(host, port)
        self.partner: Client | None = None
        self.slots: dict[int, Slot] = {}
        self.inbox: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        seed = run.options.seed
        self.rng = random.Random(None if seed is None else seed * 1000 + index)
        # (completed at, ms) of accepted moves; (at, key) of failures; counts.
        self.samples: list[tuple[float, float]] = []
        self.failures: list[tuple[float, str]] = []
        self.views: list[float] = []
        self.longpolls: list[float] = []
        self.heard_ms: list[float] = []  # --follow stream: accepted move -> heard on the opponent's stream
        self.crashed: BaseException | None = None
        self._turn = 0  # round-robin over the slots

    # -- set-up ----------------------------------------------------------------
    def register(self) -> None:
        if not self.token:
            self.token = sign_up(self.http, self.username)

    def open_duel(self) -> tuple[int, dict[str, Any]]:
        """Open a 2-player table, seat the partner, start it: (game id, my view)."""
        assert self.partner is not None
        ruleset = {"set_max": self.options.set_max, "players": 2}
        body: dict[str, Any] = {"ruleset": ruleset}
        if not self.options.turn_clock:
            body["turn_time_limit"] = None  # no clock: no follow-up task a move
        view = self.http.json("POST", f"{API}/games/", self.token, body, expect=201)
        game_id = view["game"]["id"]
        self.http.json("POST", f"{API}/games/{game_id}/join/", self.partner.token, {})
        view = self.http.json("POST", f"{API}/games/{game_id}/start/", self.token, {})
        self.run_state.count_game(started=1)
        return game_id, view

    def seat_new_duel(self) -> None:
        """Open a duel and give both players their slots (before the threads run,
        or from this thread when a match has ended)."""
        assert self.partner is not None
        game_id, view = self.open_duel()
        mine = self.slots[game_id] = Slot(game_id)
        self._apply_view(mine, view)
        self._follow(game_id)
        self.partner.inbox.put(("new", game_id, view["game"]["seq"], mine.my_turn))

    def open_idle_table(self) -> tuple[int, int]:
        """A table that stays open and quiet for idle streams: (id, seq)."""
        ruleset = {"set_max": self.options.set_max, "players": 2}
        game = self.http.json("POST", f"{API}/games/", self.token, {"ruleset": ruleset}, expect=201)["game"]
        return int(game["id"]), int(game["seq"])

    # -- the loop --------------------------------------------------------------
    def run(self) -> None:
        try:
            while not self.run_state.stop.is_set():
                slot = self._next_ready()
                if slot is None:
                    self._wait_for_turn()
                    continue
                if slot.legal is None:
                    self._refresh(slot)
                    continue
                self._move(slot, self.rng.choice(slot.legal))
        except BaseException as error:
            self.crashed = error
            self.run_state.stop.set()
        finally:
            self.http.close()

    def _next_ready(self) -> Slot | None:
        self._drain_inbox(block=False)
        slots = list(self.slots.values())
        for i in range(len(slots)):
            slot = slots[(self._turn + i) % len(slots)]
            if slot.my_turn and not slot.finished and slot.heard >= slot.awaited:
                self._turn = (self._turn + i + 1) % len(slots)
                return slot
        return None

    def _wait_for_turn(self) -> None:
        follow = self.options.follow
        if follow in ("notify", "local", "stream"):
            self._drain_inbox(block=True)
        elif follow == "poll":
            for slot in list(self.slots.values()):
                if not slot.finished and not self.run_state.stop.is_set():
                    self._refresh(slot)
            if not any(s.my_turn for s in self.slots.values()):
                time.sleep(self.options.poll_interval)
            self._drain_inbox(block=False)
        else:
            self._long_poll()

    def _drain_inbox(self, *, block: bool) -> None:
        while True:
            try:
                message = self.inbox.get(timeout=0.2) if block else self.inbox.get_nowait()
            except queue.Empty:
                return
            block = False
            kind, game_id, *rest = message
            if kind == "new":  # the partner opened a duel with me in it
                seq, creator_moves = rest
                self.slots[game_id] = Slot(game_id, seq=seq, my_turn=not creator_moves)
                self._follow(game_id)
            elif kind == "finished":
                self.slots.pop(game_id, None)
                if self.run_state.streams is not None:
                    self.run_state.streams.unwatch(game_id, self.token)
            elif kind == "turn":  # the partner moved and the turn is mine
                slot = self.slots.get(game_id)
                if slot is None:
                    continue
                seq, state, accepted_at = rest
                slot.my_turn, slot.seq, slot.legal = True, seq, None
                if self.options.follow == "stream":
                    slot.awaited, slot.told_at = seq, accepted_at
                    if slot.heard >= seq:  # the stream was first
                        self._heard_in_time(slot, slot.heard_at)
                if (
                    self.options.follow in ("local", "stream")
                    and slot.hand is not None
                    and state["round"]["number"] == slot.round
                ):
                    slot.legal = legal_moves_from(slot.hand, state)
            elif kind == "heard":  # --follow stream: my stream brought this seq
                slot = self.slots.get(game_id)
                seq, at = rest
                if slot is None or seq <= slot.heard:
                    continue
                slot.heard, slot.heard_at = seq, at
                if slot.told_at and seq >= slot.awaited:
                    self._heard_in_time(slot, at)

    def _follow(self, game_id: int) -> None:
        """--follow stream: open the game's stream (it reports to this client's inbox)."""
        if self.run_state.streams is not None:
            self.run_state.streams.watch(game_id, self.token, self.inbox)

    def _heard_in_time(self, slot: Slot, heard_at: float) -> None:
        """How long after the opponent's move was accepted this client's stream brought it."""
        if self.run_state.in_window(heard_at):
            self.heard_ms.append(max(0.0, heard_at - slot.told_at) * 1000)
        slot.told_at = 0.0

    def _refresh(self, slot: Slot) -> None:
        started = time.perf_counter()
        status, payload = self.http.request("GET", f"{API}/games/{slot.game_id}/", self.token)
        if self.run_state.in_window(started):
            self.views.append(started)
        if status != 200:
            self._fail(started, status, payload)
            return
        self._apply_view(slot, orjson.loads(payload))

    def _long_poll(self) -> None:
        """Wait on one game's event log until something happens, then GET it: the
        game this client has not heard of for the longest (the opponent moves in
        its games in turn, so that is where news is likeliest)."""
        waiting = [s for s in self.slots.values() if not s.finished and not s.my_turn]
        if not waiting:
            self._drain_inbox(block=True)
            return
        slot = min(waiting, key=lambda s: s.known_at)
        slot.known_at = time.perf_counter()  # next time, another game first
        started = time.perf_counter()
        status, payload = self.http.request(
            "GET", f"{API}/games/{slot.game_id}/events/?after={slot.seq}&wait={LONG_POLL_SECONDS}", self.token
        )
        if self.run_state.in_window(started):
            self.longpolls.append(started)
        if status != 200:
            self._fail(started, status, payload)
            return
        if orjson.loads(payload).get("seq", slot.seq) > slot.seq:
            self._refresh(slot)
        else:  # nothing new: the server does not hold long-polls, or the wait ran out
            self._drain_inbox(block=False)

    def _move(self, slot: Slot, move: dict[str, Any]) -> None:
        body = dict(move, expected_seq=slot.seq)
        started = time.perf_counter()
        status, payload = self.http.request("POST", f"{API}/games/{slot.game_id}/moves/", self.token, body)
        done = time.perf_counter()
        if status != 201:
            self._fail(started, status, payload)
            slot.legal = None
            if status == 409:  # stale_seq carries the game; others (game over ...) -> re-read
                document = _loads(payload)
                if isinstance(document.get("game"), dict):
                    self._apply_view(slot, document["game"])
            elif status == 429:
                time.sleep(float(_loads(payload).get("retry_after", 1) or 1))
            return
        if self.run_state.in_window(done):
            self.samples.append((done, (done - started) * 1000))
        view = orjson.loads(payload)["game"]
        self._apply_view(slot, view)
        if slot.finished:
            self.run_state.count_game(finished=1)
            assert self.partner is not None
            self.slots.pop(slot.game_id, None)
            if self.run_state.streams is not None:
                self.run_state.streams.unwatch(slot.game_id, self.token)
            self.partner.inbox.put(("finished", slot.game_id))
            if not self.run_state.stop.is_set():
                try:
                    self.seat_new_duel()
                except LoadTestError as error:  # the pair plays on with one duel fewer
                    self.failures.append((time.perf_counter(), f"new duel: {str(error)[:60]}"))
        elif not slot.my_turn and self.options.follow in ("notify", "local", "stream"):
            assert self.partner is not None
            self.partner.inbox.put(("turn", slot.game_id, slot.seq, view["state"], done))

    def _apply_view(self, slot: Slot, view: dict[str, Any]) -> None:
        game = view["game"]
        slot.seq = game["seq"]
        slot.known_at = time.perf_counter()
        if game["status"] != "running":
            slot.finished, slot.my_turn, slot.legal = game["status"] in ("finished", "aborted"), False, None
            return
        you = view["you"] or {}
        slot.my_turn = bool(you.get("your_turn"))
        slot.legal = you.get("legal_moves") if slot.my_turn else None
        slot.hand = you.get("hand")
        slot.round = view["state"]["round"]["number"]

    def _fail(self, started: float, status: int, payload: bytes) -> None:
        if self.run_state.in_window(started):
            self.failures.append((started, error_key(status, payload)))


def sign_up(http: Http, username: str) -> str:
    """Register ``username`` and get an API token of it (two password hashes: slow on purpose)."""
    http.json("POST", f"{API}/players/", body={"username": username, "password": PASSWORD}, expect=201)
    issued = http.json(
        "POST", f"{API}/tokens/", body={"username": username, "password": PASSWORD, "name": "loadtest"}, expect=201
    )
    return str(issued["token"])


def _loads(payload: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(payload)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def legal_moves_from(hand: list[str], state: dict[str, Any]) -> list[dict[str, Any]]:
    """The moves a seat starting its turn may make, from its hand and the public
    state (the open ends say which are playable: spinner arms and chicken-foot
    toes first). The server stays the judge: a wrong guess is refused with 422."""
    ends = [(str(end["pip"]), end["id"]) for end in state["open_ends"] if end["playable"]]
    moves = []
    for tile in hand:
        high, low = tile.split("-")
        for pip, end in ends:
            if pip in (high, low):
                moves.append({"type": "play", "tile": tile, "end": end})
    if moves:
        return moves
    return [{"type": "draw"}] if state["boneyard_size"] else [{"type": "pass"}]
