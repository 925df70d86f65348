"""The load benchmark behind ``manage.py loadtest``: many 2-player matches at once
over HTTP against a running server; prints moves per second and move latency.

Everything a real client does goes through the public API: accounts are
registered and given tokens, tables are opened, joined and started, moves are
posted. Only the move submissions (``POST .../moves/``) are timed.

How the clients play. ``--clients`` threads, each with one keep-alive
connection and one account (stdlib ``http.client``: the load generator runs on
the same machine as the server and must stay cheap; no validation, one
``json.loads`` per answer). Clients are paired; each pair plays
``games_per_pair`` double-9 duels at once (each partner opens one), so a client
usually has a game where it is its turn and keeps about one request in flight.
A move's answer holds the mover's view (``you.legal_moves``, ``game.seq``), so a
client that keeps the turn (it drew a playable tile) moves again without a GET.
How a client learns that the opponent has moved is ``follow``:

* ``local`` (default): the partner thread, which just made that move, tells it
  in-process with the mover's public state (open ends, boneyard size) - standing
  in for the live channel a client would hold, whose cost with hundreds of
  clients is measured on its own by the idle streams. The client works out a
  legal move from its own hand, like a bot that knows the rules: no GET except
  at a round's start, so the server sees moves and nothing else - the load the
  speed target is about.
* ``notify``: told in-process as above, but the client then GETs the game for
  its legal moves: one GET per turn change, the least a client that does not
  know the rules needs.
* ``poll``: nothing in-process; a client without a turn GETs its games every
  ``poll_interval`` seconds.
* ``longpoll``: nothing in-process; a client without a turn waits on
  ``events/?after=seq&wait=...`` for one of its games, then GETs it.

Idle streams (``idle_streams``): that many Server-Sent-Events streams
(``GET .../stream/``) or long-polls (``GET .../events/?after=&wait=``) held open on
games nobody plays in (tables opened for the purpose), from one asyncio loop in a
background thread with raw sockets; a stream that closes is reopened (with
``Last-Event-ID``). They carry the clients' tokens (anonymous requests would meet
the per-address throttle).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import queue
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

API = "/api/v1"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
FOLLOW_MODES = ("local", "notify", "poll", "longpoll")
IDLE_MODES = ("sse", "longpoll")
PASSWORD = "load-test passphrase 7391"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/chickenfoot"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
LONG_POLL_SECONDS = 5  # --follow longpoll: a client that waits on the wrong game learns it this late


class LoadTestError(Exception):
    """The run cannot go on (the server refused the set-up, streams cannot open ...)."""


@dataclass
class Options:
    url: str = "http://127.0.0.1:8000"
    clients: int = 16
    duration: float = 30.0
    warmup: float = 5.0
    games_per_pair: int = 2
    follow: str = "local"
    poll_interval: float = 0.05
    set_max: int = 9
    idle_streams: int = 0
    idle_mode: str = "sse"
    idle_wait: int = 30
    idle_games: int = 10
    seed: int | None = None


@dataclass
class Report:
    """What a run measured; ``lines()`` is what the command prints."""

    options: Options
    measured: float
    latencies_ms: list[float]
    moves: int
    views: int
    longpolls: int
    errors: Counter[str]
    games_started: int
    games_finished: int
    idle_open_min: int = 0
    idle_open_max: int = 0
    idle_reconnects: int = 0
    idle_refused: Counter[str] = field(default_factory=Counter)
    cpu: str | None = None

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.measured if self.measured > 0 else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    def lines(self) -> list[str]:
        o = self.options
        out = [
            f"loadtest: {o.clients} clients, {o.clients // 2 * o.games_per_pair} duels at once (double-{o.set_max}), "
            f"follow={o.follow}, {self.measured:.1f} s measured after {o.warmup:.1f} s warm-up, server {o.url}",
        ]
        if o.idle_streams:
            out.append(f"idle_streams: {o.idle_streams} {o.idle_mode} on {o.idle_games} idle games; open during the "
                       f"measurement: min {self.idle_open_min}, max {self.idle_open_max}; reopened {self.idle_reconnects}"
                       + (f"; refused {dict(self.idle_refused)}" if self.idle_refused else ""))
        per_move = (self.views + self.longpolls) / self.moves if self.moves else 0.0
        out.append(f"requests: {self.moves} moves accepted (201), {self.views} game GETs, {self.longpolls} long-polls "
                   f"({per_move:.2f} other requests per move); matches started {self.games_started}, finished {self.games_finished}")
        if self.errors:
            out.append("errors: " + ", ".join(f"{key}: {n}" for key, n in sorted(self.errors.items())))
        else:
            out.append("errors: 0")
        if self.cpu:
            out.append(self.cpu)
        if self.latencies_ms:
            out.append(f"move latency ms: mean {sum(self.latencies_ms) / len(self.latencies_ms):.1f}, "
                       f"p90 {self.percentile(0.90):.1f}, max {max(self.latencies_ms):.1f}")
        out.append(f"p50_ms: {round(self.percentile(0.50))}")
        out.append(f"moves_per_second: {round(self.moves_per_second)}")
        out.append(f"p99_ms: {round(self.percentile(0.99))}")
        return out


def parse_url(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise LoadTestError(f"{url!r}: give an http:// URL")
    if parts.hostname not in LOCAL_HOSTS:
        raise LoadTestError(f"{url!r}: the load test only ever targets this machine (127.0.0.1 or localhost)")
    return parts.hostname, parts.port or 80


# -- HTTP -----------------------------------------------------------------------

class Http:
    """One keep-alive connection. ``request`` answers (status, body bytes); a
    broken connection answers status 0 after reconnecting (a POST is never
    re-sent: the server may have got it). A connection idle for longer than
    ``IDLE_SECONDS`` is replaced first: servers close idle keep-alive connections
    (ours after 5 s: keepalive in config/gunicorn.conf.py), and a POST sent just then would be lost."""

    IDLE_SECONDS = 3.0

    def __init__(self, host: str, port: int, timeout: float = 60.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.conn = http.client.HTTPConnection(host, port, timeout=timeout)
        self.last_used = time.monotonic()

    def request(self, method: str, path: str, token: str | None = None, body: Any = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        data = None
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if time.monotonic() - self.last_used > self.IDLE_SECONDS:
            self.conn.close()  # http.client connects again on the next request
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                payload = response.read()
                self.last_used = time.monotonic()
                return response.status, payload
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                if method != "GET" or attempt:
                    return 0, b""
        return 0, b""  # pragma: no cover - the loop always returns

    def json(self, method: str, path: str, token: str | None = None, body: Any = None, expect: int = 200) -> Any:
        """For the set-up: the decoded answer, or ``LoadTestError``."""
        status, payload = self.request(method, path, token, body)
        if status != expect:
            raise LoadTestError(f"{method} {path} answered {status}: {payload[:300]!r}")
        return json.loads(payload) if payload else None

    def close(self) -> None:
        self.conn.close()


def error_key(status: int, payload: bytes) -> str:
    """``"409 stale_seq"``: the status and the problem document's code."""
    if status == 0:
        return "connection_error"
    try:
        code = json.loads(payload).get("code", "")
    except (ValueError, AttributeError):
        code = ""
    return f"{status} {code}".strip()


# -- players and games ---------------------------------------------------------

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

    def in_window(self, t: float) -> bool:
        return self.window[0] <= t < self.window[1]

    def count_game(self, *, started: int = 0, finished: int = 0) -> None:
        with self.lock:
            self.games_started += started
            self.games_finished += finished


class Client(threading.Thread):
    """One player: registers, opens its tables, then plays its seats."""

    def __init__(self, run: Run, index: int, tag: str, host: str, port: int) -> None:
        super().__init__(name=f"loadtest-client-{index}", daemon=True)
        self.run_state = run
        self.options = run.options
        self.index = index
        self.username = f"load-{tag}-{index}"
        self.http = Http(host, port)
        self.token = ""
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
        self.crashed: BaseException | None = None
        self._turn = 0  # round-robin over the slots

    # -- set-up ----------------------------------------------------------------
    def register(self) -> None:
        self.http.json("POST", f"{API}/players/", body={"username": self.username, "password": PASSWORD}, expect=201)
        issued = self.http.json("POST", f"{API}/tokens/", body={"username": self.username, "password": PASSWORD, "name": "loadtest"},
                                expect=201)
        self.token = issued["token"]

    def open_duel(self) -> tuple[int, dict[str, Any]]:
        """Open a 2-player table, seat the partner, start it: (game id, my view)."""
        assert self.partner is not None
        ruleset = {"set_max": self.options.set_max, "players": 2}
        view = self.http.json("POST", f"{API}/games/", self.token, {"ruleset": ruleset}, expect=201)
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
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            self.crashed = error
            self.run_state.stop.set()
        finally:
            self.http.close()

    def _next_ready(self) -> Slot | None:
        self._drain_inbox(block=False)
        slots = list(self.slots.values())
        for i in range(len(slots)):
            slot = slots[(self._turn + i) % len(slots)]
            if slot.my_turn and not slot.finished:
                self._turn = (self._turn + i + 1) % len(slots)
                return slot
        return None

    def _wait_for_turn(self) -> None:
        follow = self.options.follow
        if follow in ("notify", "local"):
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
            elif kind == "finished":
                self.slots.pop(game_id, None)
            elif kind == "turn":  # the partner moved and the turn is mine
                slot = self.slots.get(game_id)
                if slot is None:
                    continue
                seq, state = rest
                slot.my_turn, slot.seq, slot.legal = True, seq, None
                if self.options.follow == "local" and slot.hand is not None and state["round"]["number"] == slot.round:
                    slot.legal = legal_moves_from(slot.hand, state)

    def _refresh(self, slot: Slot) -> None:
        started = time.perf_counter()
        status, payload = self.http.request("GET", f"{API}/games/{slot.game_id}/", self.token)
        if self.run_state.in_window(started):
            self.views.append(started)
        if status != 200:
            self._fail(started, status, payload)
            return
        self._apply_view(slot, json.loads(payload))

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
            "GET", f"{API}/games/{slot.game_id}/events/?after={slot.seq}&wait={LONG_POLL_SECONDS}", self.token)
        if self.run_state.in_window(started):
            self.longpolls.append(started)
        if status != 200:
            self._fail(started, status, payload)
            return
        if json.loads(payload).get("seq", slot.seq) > slot.seq:
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
        view = json.loads(payload)["game"]
        self._apply_view(slot, view)
        if slot.finished:
            self.run_state.count_game(finished=1)
            assert self.partner is not None
            self.slots.pop(slot.game_id, None)
            self.partner.inbox.put(("finished", slot.game_id))
            if not self.run_state.stop.is_set():
                try:
                    self.seat_new_duel()
                except LoadTestError as error:  # the pair plays on with one duel fewer
                    self.failures.append((time.perf_counter(), f"new duel: {str(error)[:60]}"))
        elif not slot.my_turn and self.options.follow in ("notify", "local"):
            assert self.partner is not None
            self.partner.inbox.put(("turn", slot.game_id, slot.seq, view["state"]))

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


def _loads(payload: bytes) -> dict[str, Any]:
    try:
        value = json.loads(payload)
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
            if pip == high or pip == low:
                moves.append({"type": "play", "tile": tile, "end": end})
    if moves:
        return moves
    return [{"type": "draw"}] if state["boneyard_size"] else [{"type": "pass"}]


# -- idle streams ----------------------------------------------------------------

class IdleStreams:
    """``count`` SSE streams or long-polls held open from one asyncio loop in a
    background thread. ``open`` is how many are open right now."""

    def __init__(self, host: str, port: int, targets: list[tuple[int, int, str]], count: int, mode: str, wait: int) -> None:
        self.host, self.port = host, port
        self.targets = targets  # (game id, its seq, token), used round-robin
        self.count, self.mode, self.wait = count, mode, wait
        self.open = 0
        self.reconnects = 0
        self.requests = 0  # streams opened or long-polls sent
        self.refused: Counter[str] = Counter()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, name="loadtest-idle-streams", daemon=True)
        self._stopping: asyncio.Event | None = None

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        if self._stopping is not None:
            self.loop.call_soon_threadsafe(self._stopping.set)
        self.thread.join(15)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._all())
        self.loop.close()

    async def _all(self) -> None:
        self._stopping = asyncio.Event()
        tasks = []
        for i in range(self.count):
            game_id, seq, token = self.targets[i % len(self.targets)]
            one = self._sse if self.mode == "sse" else self._long_poll
            tasks.append(asyncio.create_task(one(game_id, seq, token)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # open them in batches, not in one burst
        await self._stopping.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.host, self.port, limit=1 << 20)

    @staticmethod
    async def _status(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
        line = await reader.readline()
        if not line:
            raise ConnectionError("closed")
        status = int(line.split()[1])
        headers = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                return status, headers
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()

    async def _sse(self, game_id: int, seq: int, token: str) -> None:
        last_id = ""
        first = True
        while True:
            writer = None
            try:
                reader, writer = await self._connect()
                extra = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
                writer.write((f"GET {API}/games/{game_id}/stream/ HTTP/1.1\r\nHost: {self.host}\r\n"
                              f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n{extra}\r\n").encode())
                status, _ = await self._status(reader)
                if status != 200:
                    self.refused[str(status)] += 1
                    await asyncio.sleep(1)
                    continue
                if not first:
                    self.reconnects += 1
                first = False
                self.open += 1
                self.requests += 1
                try:
                    while line := await reader.readline():
                        if line.startswith(b"id:"):
                            last_id = line[3:].strip().decode()
                finally:
                    self.open -= 1
            except (OSError, ConnectionError, ValueError, IndexError):
                await asyncio.sleep(0.5)
            finally:
                if writer is not None:
                    writer.close()

    async def _long_poll(self, game_id: int, seq: int, token: str) -> None:
        after = seq  # a client that has the game: wait for what comes next
        writer = None
        first = True
        # Clients arrive at random moments, so their waits run out at random
        # moments: a first wait of random length keeps 500 long-polls from
        # expiring, and coming back, all at once.
        wait = round(random.uniform(1, self.wait), 1)
        while True:
            try:
                if writer is None:
                    reader, writer = await self._connect()
                    if not first:
                        self.reconnects += 1
                    first = False
                writer.write((f"GET {API}/games/{game_id}/events/?after={after}&wait={wait} HTTP/1.1\r\n"
                              f"Host: {self.host}\r\nAccept: application/json\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
                self.open += 1
                self.requests += 1
                try:
                    status, headers = await self._status(reader)
                    body = await reader.readexactly(int(headers.get("content-length", "0")))
                finally:
                    self.open -= 1
                if status != 200:
                    self.refused[str(status)] += 1
                    await asyncio.sleep(1)
                    continue
                after = max(after, json.loads(body).get("seq", after))
                wait = self.wait
                if headers.get("connection", "").lower() == "close":
                    writer.close()
                    writer = None
            except (OSError, ConnectionError, ValueError, asyncio.IncompleteReadError):
                if writer is not None:
                    writer.close()
                writer = None
                await asyncio.sleep(0.5)


# -- CPU accounting (Linux /proc; nothing elsewhere) ------------------------------

def machine_cpu() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine since boot, summed over cores."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(v) for v in stat.readline().split()[1:8]]
    except OSError:
        return None
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / hz, sum(ticks) / hz


def process_tree_cpu(root: int) -> float:
    """User + system CPU seconds of ``root`` and its live descendants."""
    stats: dict[int, tuple[int, float]] = {}  # pid -> (parent, seconds)
    hz = os.sysconf("SC_CLK_TCK")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / hz)
    wanted, total = {root}, 0.0
    changed = True
    while changed:
        changed = False
        for pid, (parent, _) in stats.items():
            if parent in wanted and pid not in wanted:
                wanted.add(pid)
                changed = True
    for pid in wanted:
        total += stats.get(pid, (0, 0.0))[1]
    return total


@dataclass
class CpuSnapshot:
    machine: tuple[float, float] | None
    loadgen: float
    server: float | None

    @classmethod
    def take(cls, server_pids: list[int]) -> CpuSnapshot:
        times = os.times()
        server = sum(process_tree_cpu(pid) for pid in server_pids) if server_pids and os.path.isdir("/proc") else None
        return cls(machine_cpu(), times.user + times.system, server)


def cpu_line(a: CpuSnapshot, b: CpuSnapshot, moves: int) -> str | None:
    """Where the CPU went during the measurement: the whole machine (other work
    on it skews every number), this load generator, the spawned server."""
    if a.machine is None or b.machine is None:
        return None
    busy, total = b.machine[0] - a.machine[0], b.machine[1] - a.machine[1]
    cores = os.cpu_count() or 1
    wall = total / cores if total else 0.0
    line = f"cpu: machine {busy / wall if wall else 0:.2f} of {cores} cores busy; load generator {(b.loadgen - a.loadgen) / wall if wall else 0:.2f}"
    if a.server is not None and b.server is not None and moves:
        server = b.server - a.server
        line += f"; server processes {server / wall if wall else 0:.2f} ({server * 1000 / moves:.1f} ms per accepted move)"
    return line


# -- the whole run ---------------------------------------------------------------

def run_loadtest(options: Options, out: Callable[[str], None] = print, server_pids: list[int] | None = None) -> Report:
    """Set up, warm up, measure, stop; ``out`` gets progress lines. ``server_pids``:
    processes (with their children) whose CPU time is reported per move."""
    if options.clients < 2 or options.clients % 2:
        raise LoadTestError("--clients must be an even number, 2 or more (clients play in pairs)")
    if options.follow not in FOLLOW_MODES:
        raise LoadTestError(f"--follow is one of {', '.join(FOLLOW_MODES)}")
    if options.idle_mode not in IDLE_MODES:
        raise LoadTestError(f"--idle-mode is one of {', '.join(IDLE_MODES)}")
    host, port = parse_url(options.url)
    run = Run(options)
    tag = uuid.uuid4().hex[:8]
    clients = [Client(run, i, tag, host, port) for i in range(options.clients)]
    for a, b in zip(clients[::2], clients[1::2], strict=True):
        a.partner, b.partner = b, a

    out(f"setting up: {options.clients} players (register, token), {options.clients // 2 * options.games_per_pair} duels")
    _parallel([c.register for c in clients])
    creators = [c for pair in zip(clients[::2], clients[1::2], strict=True)
                for i, c in enumerate(pair * options.games_per_pair) if i < options.games_per_pair]
    _parallel([c.seat_new_duel for c in creators])

    idle = None
    if options.idle_streams:
        idle_games = [clients[i % len(clients)].open_idle_table() for i in range(max(1, options.idle_games))]
        targets = [(*idle_games[i % len(idle_games)], clients[i % len(clients)].token)
                   for i in range(max(len(idle_games), len(clients)))]
        idle = IdleStreams(host, port, targets, options.idle_streams, options.idle_mode, options.idle_wait)
        idle.start()
        deadline = time.monotonic() + 60
        while idle.open < options.idle_streams and time.monotonic() < deadline:
            time.sleep(0.1)
        if idle.open < options.idle_streams:
            idle.stop()
            raise LoadTestError(f"only {idle.open} of {options.idle_streams} idle {options.idle_mode} streams opened "
                                f"within 60 s (refused: {dict(idle.refused)})")
        out(f"idle streams: {idle.open} open")

    start = time.perf_counter()
    run.window = (start + options.warmup, start + options.warmup + options.duration)
    for client in clients:
        client.start()
    out(f"playing: {options.warmup:.0f} s warm-up, then {options.duration:.0f} s measured")
    open_counts = []
    cpu_start = cpu_end = None
    try:
        while time.perf_counter() < run.window[1] and not run.stop.is_set():
            time.sleep(min(0.25, max(0.0, run.window[1] - time.perf_counter())))
            now = time.perf_counter()
            if run.in_window(now):
                if cpu_start is None:
                    cpu_start = (now, CpuSnapshot.take(server_pids or []))
                if idle is not None:
                    open_counts.append(idle.open)
        cpu_end = CpuSnapshot.take(server_pids or [])
    finally:
        run.stop.set()
        for client in clients:
            client.join(30)
        reconnects = idle.reconnects if idle else 0
        if idle is not None:
            idle.stop()
    crashed = [c.crashed for c in clients if c.crashed is not None]
    if crashed:
        raise LoadTestError(f"a client failed: {crashed[0]!r}") from crashed[0]

    end = min(run.window[1], time.perf_counter())
    measured = max(0.0, end - run.window[0])
    errors: Counter[str] = Counter()
    for client in clients:
        errors.update(key for _, key in client.failures)
    report = Report(
        options=options, measured=measured,
        latencies_ms=[ms for c in clients for _, ms in c.samples],
        moves=sum(len(c.samples) for c in clients),
        views=sum(len(c.views) for c in clients),
        longpolls=sum(len(c.longpolls) for c in clients),
        errors=errors, games_started=run.games_started, games_finished=run.games_finished,
    )
    if cpu_start is not None and cpu_end is not None:
        # The first snapshot is up to 0.25 s late: count moves from that moment on.
        moves_since = sum(1 for c in clients for done, _ in c.samples if done >= cpu_start[0])
        report.cpu = cpu_line(cpu_start[1], cpu_end, moves_since)
    if idle is not None:
        report.idle_open_min = min(open_counts, default=idle.open)
        report.idle_open_max = max(open_counts, default=idle.open)
        report.idle_reconnects = reconnects
        report.idle_refused = idle.refused
    return report


def _parallel(calls: list[Callable[[], None]]) -> None:
    """Run set-up calls in threads (registration hashes passwords: slow on purpose)."""
    errors: list[BaseException] = []

    def call(fn: Callable[[], None]) -> None:
        try:
            fn()
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=call, args=(fn,)) for fn in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


# -- a production-style server (--spawn) -------------------------------------------

@contextmanager
def spawned_server(url: str, *, web_workers: int = 4, base_dir: Path, log_dir: Path,
                   out: Callable[[str], None] = print) -> Iterator[list[int]]:
    """The Procfile's web server (gunicorn with ``config/gunicorn.conf.py``) with
    ``web_workers`` processes, and one Celery worker, DEBUG off,
    on ``DATABASE_URL`` / ``REDIS_URL`` (or local defaults); migrates first; stops
    both at the end. Yields their pids."""
    host, port = parse_url(url)
    env = dict(os.environ)
    env.update(
        DEBUG="false",
        SECRET_KEY=env.get("SECRET_KEY") or secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=env.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        REDIS_URL=env.get("REDIS_URL") or DEFAULT_REDIS_URL,
        LOG_LEVEL=env.get("LOG_LEVEL") or "WARNING",
        # Rate limits stay on (their cost is part of every request) but high: a
        # load-test client moves about 11 times a second, over a real account's
        # 600 moves a minute.
        THROTTLE_MOVES=env.get("THROTTLE_MOVES") or "100000/minute",
        THROTTLE_USER=env.get("THROTTLE_USER") or "100000/minute",
        # Every client registers and logs in from this one address.
        THROTTLE_REGISTER=env.get("THROTTLE_REGISTER") or "100000/hour",
        THROTTLE_LOGIN=env.get("THROTTLE_LOGIN") or "100000/hour",
    )
    if not env["DATABASE_URL"].startswith("postgres"):
        raise LoadTestError("--spawn serves on PostgreSQL: set DATABASE_URL=postgres://...")
    _create_database(env["DATABASE_URL"])
    log_dir.mkdir(parents=True, exist_ok=True)
    out(f"spawn: migrating {env['DATABASE_URL'].rsplit('@', 1)[-1]}")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=base_dir, env=env, check=True)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name, command in (
            ("web", [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "--bind", f"{host}:{port}",
                     "--workers", str(web_workers), "--log-level", "warning"]),
            ("worker", [sys.executable, "-m", "celery", "-A", "config", "worker", "-c", "1", "-l", "warning",
                        "--without-gossip", "--without-mingle", "--without-heartbeat"]),
        ):
            log = open(log_dir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
            # The web processes take a connection pool (gunicorn.conf.py); the worker does not.
            processes.append(subprocess.Popen(command, cwd=base_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                              start_new_session=True))
            log.close()
        _wait_until_serving(host, port, processes[0], log_dir / "web.log")
        out(f"spawn: gunicorn ({web_workers} workers, pid {processes[0].pid}) and a Celery worker (pid {processes[1].pid}) "
            f"on {url}; logs in {log_dir}")
        yield [process.pid for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _create_database(url: str) -> None:
    """Create the database named in ``url`` when it does not exist yet."""
    import psycopg  # the server's own driver
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(scheme="postgresql", path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _wait_until_serving(host: str, port: int, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LoadTestError(f"the web server exited ({process.returncode}); see {log}")
        try:
            connection = http.client.HTTPConnection(host, port, timeout=2)
            connection.request("GET", f"{API}/games/?limit=1")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise LoadTestError(f"the web server did not answer within {timeout:.0f} s; see {log}")
