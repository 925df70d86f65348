"""``--peer boardgameio``: this server and a peer game server - boardgame.io's own
(``tools/peers/boardgameio``: its Koa server, Master and PostgreSQL storage from
npm) - played in one run on this machine, in turns, with the same number of
clients making moves over HTTP.

The peer's clients play as ours do with ``--follow local``: ``--clients``
threads in pairs, one keep-alive connection each, ``games_per_pair`` matches a
pair at once (each partner opens one), one request in flight a client; a move's
answer holds the mover's view (its hand, the open ends, whose turn), and the
mover tells its partner in-process when the turn passes; the partner works its
move out from its own hand. Only the move POSTs are timed. A match is opened
as the peer's lobby API opens one (``create``, a ``join`` for each player) and
each player reads its view once at the start (its hand), as ours GETs its game
at a round's start. A finished match is replaced by a new one.

The two servers take turns, ``repeat`` runs each, in the order ours, peer, peer,
ours ... (``versus.py``'s order). The CPU per accepted move is split by group as
``--compare-bare`` splits it: ``web`` (ours: gunicorn's processes; the peer:
the node process), ``worker`` (ours: Celery; the peer has none) and ``pg`` (the
PostgreSQL backends of each one's own database); ``total`` is their sum (Redis,
which ours uses and the peer does not, is shared by the machine and left out:
``loadtest --spawn`` alone prints it). With ``no_clock`` a third side, ours on
tables without a turn clock (``Options.turn_clock``), takes its turn between the
two: ours, ours-no-clock, peer, peer, ours-no-clock, ours ...
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import statistics
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import orjson

from core.processes import ChildExited, NotReady, spawn, stop_groups, wait_for_http
from tools.loadtest.clients import Run
from tools.loadtest.compare import OWN_GROUPS, SETTLE_SECONDS
from tools.loadtest.connection import Http, error_key
from tools.loadtest.cpu import ServerCpu
from tools.loadtest.options import LoadTestError, Options, parse_url
from tools.loadtest.report import Report
from tools.loadtest.runner import Account, Meter, measure, register_accounts, run_loadtest
from tools.loadtest.spawn import create_database

PEERS = ("boardgameio",)
GAME = "dominoes"  # tools/peers/boardgameio/server.js
LABELS = ("ours", "boardgameio")
#: ``--peer-no-clock``: a third side, ours on tables without a turn clock (what the clock costs a move).
NO_CLOCK = "ours-no-clock"
READY_TIMEOUT_SECONDS = 60  # as ours (spawn.py); the lobby's game list, no database read
STOP_SECONDS = 10
#: What each server does for one accepted move (printed with the figures).
WHAT_OURS_DOES = (
    "ours: POST /api/v1/games/<id>/moves/ - token auth, rate limit, exactly-once move id (expected_seq), "
    "row lock, rules engine on the hidden hands, game row + event log + audit written in one commit, "
    "the next turn's deadline on the game row (beat's turn clock reads the due ones: nothing sent a move), "
    "the mover's view; after the commit the notice published (Redis); ratings when a match ends"
)
WHAT_PEER_DOES = (
    "boardgameio: POST /peer/games/dominoes/<id>/moves - boardgame.io's Master.onUpdate on its per-match queue: "
    "credentials against the match's metadata, state read, reducer (the move validated), broadcast to the "
    "match's pub/sub channel, state + whole log written (bgio-postgres: SELECT FOR UPDATE, UPDATE) and the "
    "metadata upserted; the mover's filtered view"
)


# -- the peer's clients ------------------------------------------------------------


@dataclass
class Seat:
    """A client's seat at one of the peer's matches."""

    match_id: str
    player_id: str
    credentials: str
    state_id: int = 0
    my_turn: bool = False
    hand: list[str] | None = None
    ends: list[int] = field(default_factory=list)
    boneyard: int = 0
    finished: bool = False


def peer_move(hand: list[str], ends: list[int], boneyard: int, rng: random.Random) -> tuple[str, list[Any]]:
    """A legal move of the peer's dominoes (``server.js``): a tile of ``hand`` that
    matches an open end, else a draw while the boneyard has tiles, else a pass."""
    plays = [(tile, end) for tile in hand for end, pip in enumerate(ends) if str(pip) in tile.split("-")]
    if plays:
        tile, end = rng.choice(plays)
        return "play", [tile, end]
    return ("draw", []) if boneyard else ("pass", [])


class PeerClient(threading.Thread):
    """One player of the peer: opens its matches, then plays its seats."""

    def __init__(self, run: Run, index: int, host: str, port: int, name: str) -> None:
        super().__init__(name=f"loadtest-peer-{index}", daemon=True)
        self.run_state = run
        self.options = run.options
        self.index = index
        self.name_ = name
        self.http = Http(host, port)
        self.partner: PeerClient | None = None
        self.seats: dict[str, Seat] = {}
        self.inbox: list[tuple[Any, ...]] = []
        self.inbox_ready = threading.Condition()
        seed = run.options.seed
        self.rng = random.Random(None if seed is None else seed * 1000 + index)
        self.samples: list[tuple[float, float]] = []
        self.failures: list[tuple[float, str]] = []
        self.views: list[float] = []
        self.crashed: BaseException | None = None
        self._turn = 0

    def tell(self, *message: Any) -> None:
        with self.inbox_ready:
            self.inbox.append(message)
            self.inbox_ready.notify()

    # -- set-up ----------------------------------------------------------------
    def open_match(self) -> None:
        """Create a 2-player match, seat both partners, read this player's view."""
        assert self.partner is not None
        created = self.http.json("POST", f"/games/{GAME}/create", body={"numPlayers": 2})
        match_id = str(created["matchID"])
        mine = self.http.json("POST", f"/games/{GAME}/{match_id}/join", body={"playerName": self.name_})
        theirs = self.http.json("POST", f"/games/{GAME}/{match_id}/join", body={"playerName": self.partner.name_})
        self.run_state.count_game(started=1)
        seat = self.seats[match_id] = Seat(match_id, str(mine["playerID"]), str(mine["playerCredentials"]))
        self._read(seat)
        self.partner.tell("new", match_id, str(theirs["playerID"]), str(theirs["playerCredentials"]))

    # -- the loop --------------------------------------------------------------
    def run(self) -> None:
        try:
            while not self.run_state.stop.is_set():
                self._drain(block=False)
                seat = self._next_ready()
                if seat is None:
                    self._drain(block=True)
                elif seat.hand is None:
                    self._read(seat)
                else:
                    self._move(seat)
        except BaseException as error:
            self.crashed = error
            self.run_state.stop.set()
        finally:
            self.http.close()

    def _next_ready(self) -> Seat | None:
        seats = list(self.seats.values())
        for i in range(len(seats)):
            seat = seats[(self._turn + i) % len(seats)]
            if seat.my_turn and not seat.finished:
                self._turn = (self._turn + i + 1) % len(seats)
                return seat
        return None

    def _drain(self, *, block: bool) -> None:
        with self.inbox_ready:
            if block and not self.inbox:
                self.inbox_ready.wait(0.2)
            messages, self.inbox = self.inbox, []
        for kind, match_id, *rest in messages:
            if kind == "new":
                player_id, credentials = rest
                fresh = self.seats[match_id] = Seat(match_id, player_id, credentials)
                self._read(fresh)
            elif kind == "finished":
                self.seats.pop(match_id, None)
            elif kind == "turn":
                told = self.seats.get(match_id)
                # Stale news is dropped: at a match's start this player may have read the
                # state after the partner's move (and moved already) before the partner told it.
                if told is not None and rest[0] >= told.state_id:
                    told.state_id, told.ends, told.boneyard = rest
                    told.my_turn = True

    def _read(self, seat: Seat) -> None:
        """This player's view of the match (its hand): once, at the match's start."""
        started = time.perf_counter()
        status, payload = self.http.request(
            "GET",
            f"/peer/games/{GAME}/{seat.match_id}/state?playerID={seat.player_id}&credentials={quote(seat.credentials)}",
        )
        if self.run_state.in_window(started):
            self.views.append(started)
        if status != 200:
            self._fail(started, status, payload)
            return
        self._apply(seat, orjson.loads(payload))

    def _move(self, seat: Seat) -> None:
        assert seat.hand is not None
        move, args = peer_move(seat.hand, seat.ends, seat.boneyard, self.rng)
        body = {
            "playerID": seat.player_id,
            "credentials": seat.credentials,
            "stateID": seat.state_id,
            "move": move,
            "args": args,
        }
        started = time.perf_counter()
        status, payload = self.http.request("POST", f"/peer/games/{GAME}/{seat.match_id}/moves", body=body)
        done = time.perf_counter()
        if status != 200:
            self._fail(started, status, payload)
            self._read(seat)
            return
        if self.run_state.in_window(done):
            self.samples.append((done, (done - started) * 1000))
        self._apply(seat, orjson.loads(payload))
        assert self.partner is not None
        if seat.finished:
            self.run_state.count_game(finished=1)
            self.seats.pop(seat.match_id, None)
            self.partner.tell("finished", seat.match_id)
            if not self.run_state.stop.is_set():
                try:
                    self.open_match()
                except LoadTestError as error:  # the pair plays on with one match fewer
                    self.failures.append((time.perf_counter(), f"new match: {str(error)[:60]}"))
        elif not seat.my_turn:
            self.partner.tell("turn", seat.match_id, seat.state_id, list(seat.ends), seat.boneyard)

    def _apply(self, seat: Seat, view: dict[str, Any]) -> None:
        g, ctx = view["G"], view["ctx"]
        seat.state_id = int(view["stateID"])
        seat.finished = ctx.get("gameover") is not None
        seat.my_turn = not seat.finished and ctx["currentPlayer"] == seat.player_id
        seat.hand = list(g["players"][seat.player_id]["hand"])
        seat.ends = list(g["ends"])
        seat.boneyard = int(g["boneyardSize"])

    def _fail(self, started: float, status: int, payload: bytes) -> None:
        if self.run_state.in_window(started):
            self.failures.append((started, error_key(status, payload)))


def run_peer_load(options: Options, out: Callable[[str], None] = print, server_cpu: ServerCpu | None = None) -> Report:
    """``options.clients`` peer clients for ``options.warmup`` + ``options.duration`` seconds."""
    host, port = parse_url(options.url)
    run = Run(options)
    tag = uuid.uuid4().hex[:8]
    clients = [PeerClient(run, i, host, port, f"load-{tag}-{i}") for i in range(options.clients)]
    for a, b in zip(clients[::2], clients[1::2], strict=True):
        a.partner, b.partner = b, a
    out(f"setting up: {options.clients} peer players, {options.clients // 2 * options.games_per_pair} matches")
    creators = [
        c
        for pair in zip(clients[::2], clients[1::2], strict=True)
        for i, c in enumerate(pair * options.games_per_pair)
        if i < options.games_per_pair
    ]
    try:
        for creator in creators:
            creator.open_match()
        start = time.perf_counter()
        run.window = (start + options.warmup, start + options.warmup + options.duration)
        for client in clients:
            client.start()
        out(f"playing: {options.warmup:.0f} s warm-up, then {options.duration:.0f} s measured")
        meter = Meter([], server_cpu)
        measure(run, meter)
    finally:
        run.stop.set()
        for client in clients:
            if client.is_alive():
                client.join(30)
            else:
                client.http.close()
    crashed = [c.crashed for c in clients if c.crashed is not None]
    if crashed:
        raise LoadTestError(f"a peer client failed: {crashed[0]!r}") from crashed[0]
    errors: Counter[str] = Counter(key for c in clients for _, key in c.failures)
    report = Report(
        options=options,
        measured=max(0.0, min(run.window[1], time.perf_counter()) - run.window[0]),
        latencies_ms=[ms for c in clients for _, ms in c.samples],
        moves=sum(len(c.samples) for c in clients),
        views=sum(len(c.views) for c in clients),
        longpolls=0,
        errors=errors,
        games_started=run.games_started,
        games_finished=run.games_finished,
    )
    meter.fill(report, [done for c in clients for done, _ in c.samples])
    return report


# -- the peer's server -------------------------------------------------------------


def peer_dir(base_dir: Path, peer: str) -> Path:
    return base_dir / "tools" / "peers" / peer


def check_peer(peer: str, url: str, base_dir: Path) -> str:
    """Whether the peer can be served (before anything is started): the path of ``node``."""
    if peer not in PEERS:
        raise LoadTestError(f"--peer is one of {', '.join(PEERS)}")
    if parse_url(url)[0] not in ("127.0.0.1", "localhost"):
        raise LoadTestError(f"{url}: the peer listens on 127.0.0.1 only")
    node = shutil.which("node")
    if node is None:
        raise LoadTestError(f"--peer {peer} needs Node.js 20+ (node on the PATH)")
    folder = peer_dir(base_dir, peer)
    if not (folder / "node_modules" / "boardgame.io").is_dir():
        raise LoadTestError(f"the peer is not installed: run `make peer-{peer}-install` (npm ci in {folder})")
    return node


@contextmanager
def spawned_peer(
    peer: str, url: str, database_url: str, *, base_dir: Path, log_dir: Path, out: Callable[[str], None] = print
) -> Iterator[int]:
    """The peer's server (``node server.js``) on ``url``'s port and ``database_url``
    (created when missing); yields its pid; stopped at the end."""
    node = check_peer(peer, url, base_dir)
    folder = peer_dir(base_dir, peer)
    host, port = parse_url(url)
    create_database(database_url)
    log_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PORT=str(port), DATABASE_URL=database_url, NODE_ENV="production")
    log = log_dir / f"{peer}.log"
    process = spawn([node, "server.js"], cwd=folder, env=env, log=log, append=False)
    try:
        try:
            wait_for_http(process, host, port, "/games", timeout=READY_TIMEOUT_SECONDS, interval=0.3)
        except ChildExited as exited:
            raise LoadTestError(f"the peer exited ({exited.returncode}); see {log}") from None
        except NotReady:
            raise LoadTestError(f"the peer did not answer within {READY_TIMEOUT_SECONDS} s; see {log}") from None
        out(f"peer: {peer} (node, pid {process.pid}) on {url}, {database_url.rsplit('@', 1)[-1]}; log {log}")
        yield process.pid
    finally:
        stop_groups([process], timeout=STOP_SECONDS)


def peer_url(url: str) -> str:
    """The peer's URL by default: ours, one port up."""
    parts = urlsplit(url)
    return parts._replace(netloc=f"{parts.hostname}:{(parts.port or 80) + 1}").geturl()


# -- the comparison ----------------------------------------------------------------


@dataclass
class PeerSide:
    label: str
    url: str
    play: Callable[[Options], Report]


@dataclass
class PeerComparison:
    """The runs in the order they ran: (side, repetition, report)."""

    options: Options
    repeat: int
    urls: tuple[str, str]
    runs: list[tuple[str, int, Report]] = field(default_factory=list)

    @property
    def labels(self) -> tuple[str, ...]:
        """The sides that ran: ours, (ours-no-clock,) the peer."""
        return (LABELS[0], NO_CLOCK, LABELS[1]) if self.of(NO_CLOCK) else LABELS

    @property
    def sides(self) -> dict[str, str]:
        return {label: self.urls[1] if label == LABELS[1] else self.urls[0] for label in self.labels}

    def of(self, label: str) -> list[Report]:
        return [report for side, _, report in self.runs if side == label]

    def summary(self, label: str) -> dict[str, Any]:
        reports = self.of(label)
        cpu: dict[str, Any] = {}
        for group in [*OWN_GROUPS, "total"]:
            values = [v for r in reports if (v := ms_per_move(r, group)) is not None]
            if values:
                cpu[group] = _median_range(values, 2)
        return {
            "runs": len(reports),
            "moves_per_second": _median_range([r.moves_per_second for r in reports], 1),
            "p50_ms": _median_range([r.percentile(0.50) for r in reports], 1),
            "p99_ms": _median_range([r.percentile(0.99) for r in reports], 1),
            "errors": sum(sum(r.errors.values()) for r in reports),
            "cpu_ms_per_move": cpu,
        }

    def ratios(self, label: str = LABELS[0]) -> dict[str, float | None]:
        """``label`` (ours) / peer: above 1 is ours ahead for moves/s, behind for p99 and CPU."""
        ours, peer = self.summary(label), self.summary(LABELS[1])

        def ratio(a: float | None, b: float | None) -> float | None:
            return round(a / b, 2) if a is not None and b else None

        def cpu(s: dict[str, Any]) -> float | None:
            total = s["cpu_ms_per_move"].get("total")
            return total["median"] if total else None

        return {
            "moves_per_second": ratio(ours["moves_per_second"]["median"], peer["moves_per_second"]["median"]),
            "p50_ms": ratio(ours["p50_ms"]["median"], peer["p50_ms"]["median"]),
            "p99_ms": ratio(ours["p99_ms"]["median"], peer["p99_ms"]["median"]),
            "cpu_ms_per_move": ratio(cpu(ours), cpu(peer)),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "options": dataclasses.asdict(self.options),
            "sides": self.sides,
            "repeat": self.repeat,
            "order": [f"{label} {rep}" for label, rep, _ in self.runs],
            "runs": [{"side": label, "repetition": rep, **report.as_dict()} for label, rep, report in self.runs],
            "summary": {label: self.summary(label) for label in self.labels},
            "ratio_ours_to_boardgameio": self.ratios(),
            **({"ratio_ours_no_clock_to_boardgameio": self.ratios(NO_CLOCK)} if NO_CLOCK in self.labels else {}),
        }

    def lines(self) -> list[str]:
        o = self.options
        groups = [*OWN_GROUPS, "total"]
        head = "".join(f"{g:>8}" for g in groups)
        out = [
            f"peer: {o.clients} clients on each server, {o.clients // 2 * o.games_per_pair} matches at once, "
            f"{o.duration:.0f} s measured after {o.warmup:.0f} s warm-up, {self.repeat} repetition(s) interleaved "
            f"({', '.join(f'{s} {r}' for s, r, _ in self.runs)})",
            *(f"{label}: {url}" for label, url in self.sides.items()),
            WHAT_OURS_DOES,
            *(
                [f"{NO_CLOCK}: the same server, its tables opened without a turn clock (turn_time_limit null)"]
                if NO_CLOCK in self.labels
                else []
            ),
            WHAT_PEER_DOES,
            "server CPU ms per accepted move: web (gunicorn's processes / the node process), worker (Celery / none), "
            "pg (the backends of each one's own database); total = their sum",
            "",
            f"{'run':<15}{'moves/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'errors':>7} |{head}",
        ]
        for label, rep, report in self.runs:
            out.append(
                f"{f'{label} {rep}':<15}{report.moves_per_second:>8.1f}{report.percentile(0.5):>8.1f}"
                f"{report.percentile(0.99):>8.1f}{sum(report.errors.values()):>7} |"
                + "".join(f"{_fmt(ms_per_move(report, g)):>8}" for g in groups)
            )
        out.append("")
        out.append(f"{'median':<15}{'moves/s (range)':>20}{'p50 ms':>9}{'p99 ms (range)':>24} |{head}")
        for label in self.labels:
            s = self.summary(label)
            cpu = s["cpu_ms_per_move"]
            out.append(
                f"{label:<15}{_mid(s['moves_per_second'], 1):>20}{s['p50_ms']['median']:>9.1f}"
                f"{_mid(s['p99_ms'], 1):>24} |"
                + "".join(f"{_fmt(cpu[g]['median'] if g in cpu else None):>8}" for g in groups)
            )
        r = self.ratios()
        for label in self.labels[:-1]:
            q = self.ratios(label)
            out.append(
                f"{'ours/peer' if label == LABELS[0] else 'no-clock/peer':<15}{_fmt(q['moves_per_second']):>20}"
                f"{_fmt(q['p50_ms']):>9}{_fmt(q['p99_ms']):>24} |"
                + " " * 8 * (len(groups) - 1)
                + f"{_fmt(q['cpu_ms_per_move']):>8}"
            )
        for label in self.labels:
            reports = self.of(label)
            gets = statistics.median([r.views / r.moves if r.moves else 0.0 for r in reports])
            started = statistics.median([r.games_started for r in reports])
            finished = statistics.median([r.games_finished for r in reports])
            out.append(
                f"{label} besides the moves (median of its runs): {gets:.3f} reads of a game's view per move "
                f"(a round's or match's start), {started:g} matches started and {finished:g} finished a run"
            )
        errors: Counter[str] = Counter()
        for label, _, report in self.runs:
            errors.update({f"{label} {key}": n for key, n in report.errors.items()})
        out.append("errors: " + (", ".join(f"{k}: {n}" for k, n in sorted(errors.items())) if errors else "0"))
        for label in self.labels:
            s = self.summary(label)
            total = s["cpu_ms_per_move"].get("total")
            label = label.replace("-", "_")
            out.append(f"{label}_moves_per_second: {s['moves_per_second']['median']}")
            out.append(f"{label}_p99_ms: {s['p99_ms']['median']}")
            out.append(f"{label}_cpu_ms_per_move: {total['median'] if total else '-'}")
        out.append(f"ratio_moves_per_second: {_fmt(r['moves_per_second'])}")
        out.append(f"ratio_p99_ms: {_fmt(r['p99_ms'])}")
        out.append(f"ratio_cpu_ms_per_move: {_fmt(r['cpu_ms_per_move'])}")
        return out


def run_peer_comparison(
    options: Options,
    repeat: int,
    ours: tuple[str, list[int], ServerCpu | None],
    peer: tuple[str, ServerCpu | None],
    out: Callable[[str], None] = print,
    *,
    no_clock: bool = False,
) -> PeerComparison:
    """``repeat`` runs on our server (url, pids, CPU split) and on the peer (url, CPU
    split), interleaved ours, peer, peer, ours ...; ``no_clock``: also ours on tables
    without a turn clock, between the two (ours, ours-no-clock, peer, peer, ours-no-clock, ours ...)."""
    if repeat < 1:
        raise LoadTestError("--repeat is 1 or more")
    if options.clients < 2 or options.clients % 2:
        raise LoadTestError("--clients must be an even number, 2 or more (clients play in pairs)")
    if options.follow != "local" or options.idle_streams:
        raise LoadTestError("--peer plays with --follow local and no idle streams (the peer has neither)")
    our_url, our_pids, our_cpu = ours
    peer_url_, peer_cpu = peer
    out(f"peer: signing up {options.clients} accounts on ours ({our_url}), once for every run")
    accounts: list[Account] = register_accounts(our_url, options.clients)
    sides = [
        PeerSide(
            LABELS[0],
            our_url,
            lambda o: run_loadtest(o, out, our_pids, accounts=accounts, server_cpu=our_cpu),
        ),
        PeerSide(LABELS[1], peer_url_, lambda o: run_peer_load(o, out, peer_cpu)),
    ]
    if no_clock:
        sides.insert(
            1,
            PeerSide(
                NO_CLOCK,
                our_url,
                lambda o: run_loadtest(
                    dataclasses.replace(o, turn_clock=False), out, our_pids, accounts=accounts, server_cpu=our_cpu
                ),
            ),
        )
    comparison = PeerComparison(options, repeat, (our_url, peer_url_))
    order = [side for rep in range(repeat) for side in (sides if rep % 2 == 0 else sides[::-1])]
    done: Counter[str] = Counter()
    for n, side in enumerate(order, 1):
        done[side.label] += 1
        out(f"run {n}/{len(order)}: {side.label} {done[side.label]}")
        report = side.play(dataclasses.replace(options, url=side.url))
        comparison.runs.append((side.label, done[side.label], report))
        out(
            f"  {side.label} {done[side.label]}: {report.moves_per_second:.1f} moves/s, "
            f"p50 {report.percentile(0.5):.1f} ms, p99 {report.percentile(0.99):.1f} ms, "
            f"errors {sum(report.errors.values())}" + (f"; {report.cpu}" if report.cpu else "")
        )
        if n < len(order):
            time.sleep(SETTLE_SECONDS)
    return comparison


def ms_per_move(report: Report, group: str) -> float | None:
    """CPU ms per accepted move of ``group`` (``total``: web + worker + pg, those measured)."""
    figures = report.cpu_figures
    if figures is None:
        return None
    if group == "total":
        parts = [v for g in OWN_GROUPS if (v := figures.ms_per_move(g)) is not None]
        return sum(parts) if parts else None
    return figures.ms_per_move(group)


def _median_range(values: list[float], digits: int) -> dict[str, Any]:
    return {
        "median": round(statistics.median(values), digits),
        "range": [round(min(values), digits), round(max(values), digits)],
    }


def _mid(summary: dict[str, Any], digits: int) -> str:
    low, high = summary["range"]
    return f"{summary['median']:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
