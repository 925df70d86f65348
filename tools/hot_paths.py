"""``manage.py bench_hot_paths``: every hot path timed on a seeded database against
an almost empty one, in one run, turn about (path by path).

Both databases are on the server ``DATABASE_URL`` names; the command keeps one
open connection to each and hands Django the one it times (``--seeded NAME``,
``--empty NAME``: each made by ``seed_site``, the empty one with a few hundred
accounts and a few games so that every path has something to read). The caches
are warmed first (``--warmup`` untimed requests of every path on each database:
PostgreSQL's buffers, the operating system's page cache, each connection's
catalogue); then in rounds, path by path, one untimed request on each database,
then ``--runs`` requests on each, interleaved request by request in ABBA order
(empty, seeded, seeded, empty, ...: the machine's drift falls on both alike). It
times through Django's test client (the real URL map, middleware, views and
serializers; throttles off; the cache cleared before every request, so each one
reads the database as after a change):

* ``move``: a player's ``POST /games/{id}/moves/`` in a running 2-player game
  (two fresh accounts, token authentication; the legal move worked out before
  the clock starts);
* ``lobby open``, ``lobby mine``: the lobby's two lists (``/games/?status=open``,
  ``/games/?mine=true`` of a busy player);
* the busy player is, on both databases, one with as many finished games as the
  empty database's busiest (the same pages and counts: what is compared is the
  site's size, not one account's history); ``lobby mine (busiest)`` and
  ``player games (busiest)`` are the seeded database's busiest account's (its
  thousands of games against the empty one's dozens: what a player's own history
  costs);
* ``events start``, ``events end``: a finished game's event-log page from seq 0
  and its last page;
* ``player games``, ``player ratings``: a busy player's finished games and
  ratings pages;
* ``leaderboard first``, ``leaderboard deep``: the board's first page and the one
  at half its depth as a client reaches it (the ``next`` link of the page before;
  ``DEEP_PAGE`` entries a page, full on both databases),
  as after a rating update (the pages stale, the board's count cached);
  ``leaderboard deep (offset)``: the same depth asked by ``?offset=``;
  ``leaderboard first (new member)``: the first page just after the pool gained a
  member (the cached count moved on by one, as that commit does);
* ``stream snapshot``: what the account stream reads before its first frame (the
  account's games and every account feed's snapshot: challenges, seeks ...);
* ``admin reports``: the admin's report queue (first page, a superuser);
* ``login``: ``POST /session/`` with the seeded password.

Prints a table: per path and database p50 and p99 in ms, the seeded / empty
ratio of each, the p50 ratio's 95% interval (bootstrap) and whether that interval
lies within 10% of the empty database's p50 (yes, no or undecided); then ``EXPLAIN (ANALYZE, BUFFERS)`` of the statements of the worst
three paths (``--explain``). Nothing is timed in the test suite.
"""

from __future__ import annotations

import random
import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Count
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from chat.models import ChatMessage
from games import selectors
from games import services as game_services
from games.engine import Match
from games.models import Event, Game, GameStatus, Move, Seat
from live import account_feeds
from players import second_factor
from players import services as player_services
from players.models import SecondFactor, User
from ratings import cache as rating_cache
from ratings import selectors as rating_selectors
from ratings.models import Rating, RatingChange
from tools.seed_site import PASSWORD
from tools.stats import percentile

MOVE_RULESET = {"set_max": 9, "players": 2}
#: The deep leaderboard pages' size: a full page on both databases (the empty one's
#: board has 56 entries), at half the board's depth (or as deep as a full page goes).
DEEP_PAGE = 20
#: Paths timed as after a rating update (the board's count cached); the others, and
#: "leaderboard first (new member)", with the whole cache cleared.
COUNT_CACHED = {"leaderboard first", "leaderboard deep", "leaderboard deep (offset)", "leaderboard first (new member)"}
#: Paths timed as just after the pool gained a member (what the rating update's commit
#: does to the board's cached count: ``ratings.cache.board_counts_adjust``).
NEW_MEMBER = {"leaderboard first (new member)"}


#: One open connection per database, kept for the whole run: switching is handing
#: Django the other one (no new connection, and each database's backend keeps its
#: catalogue and plan caches warm), so the two can alternate request by request.
_WRAPPERS: dict[str, BaseDatabaseWrapper] = {}


def switch(database: str) -> None:
    """Make the default connection the one to ``database`` (same server)."""
    current = connections["default"]
    if current.settings_dict["NAME"] == database:
        return
    if not _WRAPPERS:
        _WRAPPERS[current.settings_dict["NAME"]] = current
    if database not in _WRAPPERS:
        _WRAPPERS[database] = type(current)({**current.settings_dict, "NAME": database}, "default")
    connections["default"] = _WRAPPERS[database]


@dataclass
class Subjects:
    """What one database's paths read: chosen once, before any timing."""

    database: str
    busy: User
    busy_games: int
    busiest: User
    busiest_games: int
    game: Game
    pool: str
    board_size: int
    admin: Client
    api: APIClient
    busiest_api: APIClient
    movers: dict[int, APIClient] = field(default_factory=dict)
    move_game: int = 0


def _token_client(user: User) -> APIClient:
    client = APIClient()
    issued = player_services.token_create(user=user, name="bench")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.secret}")
    return client


def subjects(database: str, tag: str, games_like: int | None = None) -> Subjects:
    """``games_like``: the busy player is the one whose finished games are the fewest
    of those with at least that many (the same pages and counts on both databases);
    else the busiest. ``busiest``: the busiest either way."""
    switch(database)
    by_games = (
        Seat.objects.filter(player__isnull=False, game__status=GameStatus.FINISHED)
        .values("player_id")
        .annotate(n=Count("id"))
    )
    busiest = by_games.order_by("-n", "player_id").first()
    assert busiest is not None, f"{database} has no finished game: seed it first"
    chosen = busiest if games_like is None else by_games.filter(n__gte=games_like).order_by("n", "player_id").first()
    assert chosen is not None
    busy = User.objects.get(pk=chosen["player_id"])
    game = Game.objects.filter(status=GameStatus.FINISHED).order_by("-seq").first()
    assert game is not None, f"{database} has no finished game: seed it first"
    rating = Rating.objects.values("pool").annotate(n=Count("id")).order_by("-n").first()
    assert rating is not None
    admin_user, _ = User.objects.get_or_create(
        username=f"bench-admin-{tag}", defaults={"is_staff": True, "is_superuser": True}
    )
    # A staff session has given its second factor's code (players.admin_gate): a
    # confirmed authenticator and the session's mark, as a whole log-in leaves them.
    SecondFactor.objects.get_or_create(
        user=admin_user, defaults={"key": secrets.token_hex(20), "confirmed_at": timezone.now()}
    )
    admin = Client()
    admin.force_login(admin_user)
    session = admin.session
    session[second_factor.SESSION_KEY] = admin_user.pk
    session.save()
    found = Subjects(
        database=database,
        busy=busy,
        busy_games=chosen["n"],
        busiest=User.objects.get(pk=busiest["player_id"]),
        busiest_games=busiest["n"],
        game=game,
        pool=rating["pool"],
        board_size=rating["n"],
        admin=admin,
        api=_token_client(busy),
        busiest_api=_token_client(User.objects.get(pk=busiest["player_id"])),
    )
    return found


def new_move_game(s: Subjects, tag: str) -> None:
    """A running 2-player game between two fresh accounts, for the move path."""
    players = [
        User.objects.create_user(username=f"bench-mover-{tag}-{random.randrange(10**9)}", password=None)
        for _ in range(2)
    ]
    game = game_services.game_create(creator=players[0], ruleset=MOVE_RULESET)
    game_services.game_join(game_id=game.pk, player=players[1])
    game_services.game_start(game_id=game.pk, by=players[0])
    s.move_game = game.pk
    s.movers = {n: _token_client(p) for n, p in enumerate(players)}


def _ok(response: Any) -> Any:
    assert response.status_code in (200, 201), (response.status_code, getattr(response, "content", b"")[:300])
    return response


class Paths:
    """Each path: a function that makes one request (untimed preparation inside
    returns the timed call)."""

    def __init__(self, s: Subjects, tag: str) -> None:
        self.s, self.tag = s, tag
        self._deep: str | None = None

    def deep_offset(self) -> int:
        return max(DEEP_PAGE, min(self.s.board_size // 2, self.s.board_size - DEEP_PAGE))

    def deep_link(self) -> str:
        """The board's page at half its depth as a client reaches it: the ``next`` link
        of the page before it (read once, untimed)."""
        if self._deep is None:
            start = self.deep_offset() - DEEP_PAGE
            cache.clear()  # both databases' pages share the one cache
            query = {"pool": self.s.pool, "offset": str(start), "limit": str(DEEP_PAGE)}
            page = _ok(self.s.api.get("/api/v1/leaderboard/", query)).json()
            assert page["next"], page
            self._deep = str(page["next"])
        return self._deep

    def all(self) -> dict[str, Callable[[], Callable[[], Any]]]:
        s = self.s
        name = s.busy.username
        game = s.game
        return {
            "move": self.move,
            "lobby open": lambda: lambda: _ok(s.api.get("/api/v1/games/", {"status": "open"})),
            "lobby mine": lambda: lambda: _ok(s.api.get("/api/v1/games/", {"mine": "true"})),
            "lobby mine (busiest)": lambda: lambda: _ok(s.busiest_api.get("/api/v1/games/", {"mine": "true"})),
            "events start": lambda: lambda: _ok(s.api.get(f"/api/v1/games/{game.pk}/events/", {"after": 0})),
            "events end": lambda: (
                lambda: _ok(s.api.get(f"/api/v1/games/{game.pk}/events/", {"after": max(0, game.seq - 20)}))
            ),
            "player games": lambda: lambda: _ok(s.api.get("/api/v1/games/", {"player": name, "status": "finished"})),
            "player games (busiest)": lambda: (
                lambda: _ok(s.api.get("/api/v1/games/", {"player": s.busiest.username, "status": "finished"}))
            ),
            "player ratings": lambda: lambda: _ok(s.api.get(f"/api/v1/players/{name}/ratings/")),
            "leaderboard first": lambda: lambda: _ok(s.api.get("/api/v1/leaderboard/", {"pool": s.pool})),
            "leaderboard deep": lambda: lambda: _ok(s.api.get(self.deep_link())),
            "leaderboard deep (offset)": lambda: (
                lambda: _ok(
                    s.api.get(
                        "/api/v1/leaderboard/",
                        {"pool": s.pool, "offset": str(self.deep_offset()), "limit": str(DEEP_PAGE)},
                    )
                )
            ),
            "leaderboard first (new member)": lambda: lambda: _ok(s.api.get("/api/v1/leaderboard/", {"pool": s.pool})),
            "stream snapshot": lambda: (
                lambda: (
                    selectors.account_game_list(user=s.busy),
                    account_feeds.snapshot(s.busy),
                )
            ),
            "admin reports": lambda: lambda: _ok(s.admin.get("/admin/moderation/report/")),
            "login": lambda: (
                lambda: _ok(
                    Client().post(
                        "/api/v1/session/", {"username": name, "password": PASSWORD}, content_type="application/json"
                    )
                )
            ),
        }

    def move(self) -> Callable[[], Any]:
        s = self.s
        game = Game.objects.get(pk=s.move_game)
        if game.status != GameStatus.RUNNING:
            new_move_game(s, self.tag)
            game = Game.objects.get(pk=s.move_game)
        match = Match.from_dict(game.state)
        seat = match.turn
        move = match.legal_moves()[0].to_dict()
        client = s.movers[seat]
        body = dict(move, expected_seq=game.seq)
        return lambda: _ok(client.post(f"/api/v1/games/{game.pk}/moves/", body, format="json"))


@dataclass
class Figures:
    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)


def storage(database: str, write: Callable[[str], None]) -> dict[str, float]:
    """Bytes on disk (heap, TOAST and indexes) per stored move - with the events it
    caused - and per finished match (its game row, seats, moves, events, rating
    changes and chat), on ``database``; after VACUUM ANALYZE (what seed_site ends with)."""
    switch(database)
    tables = {model._meta.db_table: model for model in (Game, Seat, Move, Event, RatingChange, ChatMessage)}
    sizes: dict[str, tuple[int, int, int]] = {}
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                "SELECT pg_table_size(%s), pg_indexes_size(%s), (SELECT count(*) FROM "
                + connection.ops.quote_name(table)
                + ")",
                [table, table],
            )
            sizes[table] = cursor.fetchone()
    for table, (heap, index, rows) in sizes.items():
        write(f"storage {table}: {rows} rows, table {heap / 2**20:.1f} MiB, indexes {index / 2**20:.1f} MiB")
    moves = sizes[Move._meta.db_table][2]
    log = sum(sum(sizes[m._meta.db_table][:2]) for m in (Move, Event))
    finished = Game.objects.filter(status=GameStatus.FINISHED).count()
    everything = sum(heap + index for heap, index, _ in sizes.values())
    per_move, per_match = log / max(1, moves), everything / max(1, finished)
    write(f"bytes_per_move (moves and events, tables and indexes): {per_move:.0f}")
    write(f"bytes_per_finished_match (game, seats, moves, events, rating changes, chat): {per_match:.0f}")
    return {"bytes_per_move": per_move, "bytes_per_finished_match": per_match}


def _prime(name: str, paths: Paths) -> None:
    """The cache as the path is timed: cleared (a change was just made), and for the
    leaderboard's pages the board's count kept (it outlives a rating update) - for
    ``NEW_MEMBER`` then moved on by one member, as the commit that adds one does."""
    cache.clear()
    if name in COUNT_CACHED:
        rating_selectors.leaderboard_count(pool=paths.s.pool, kind="all")
    if name in NEW_MEMBER:
        rating_cache.board_counts_adjust(pool=paths.s.pool, changes={"all": 1, "humans": 1})


def _timed(name: str, paths: Paths) -> float:
    call = paths.all()[name]()  # untimed: what the request needs worked out
    _prime(name, paths)
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def _untimed(name: str, paths: Paths) -> None:
    call = paths.all()[name]()
    _prime(name, paths)  # both databases share the one cache: never a page of the other's
    call()


def run(
    *,
    seeded: str,
    empty: str,
    rounds: int,
    runs: int,
    write: Callable[[str], None],
    explain: int = 3,
    storage_only: bool = False,
    warmup: int = 3,
    only: list[str] | None = None,
) -> dict[str, Any]:
    tag = f"{random.randrange(10**6)}"
    databases = {"empty": empty, "seeded": seeded}
    sizes = storage(seeded, write)
    if storage_only:
        return sizes
    found = {"empty": subjects(empty, tag)}
    found["seeded"] = subjects(seeded, tag, games_like=found["empty"].busy_games)
    for kind, s in found.items():
        switch(s.database)
        new_move_game(s, tag)
        write(
            f"{kind} ({s.database}): busy player {s.busy.username} ({s.busy_games} finished games; the busiest "
            f"{s.busiest.username}, {s.busiest_games}), game {s.game.pk} ({s.game.seq} events), "
            f"board {s.pool} of {s.board_size}"
        )
    paths = {kind: Paths(s, tag) for kind, s in found.items()}
    figures = Figures()
    names = [n for n in paths["seeded"].all() if not only or n in only]
    # Warm the caches (PostgreSQL's buffers, the operating system's, each connection's
    # catalogue): every path's requests on both databases, untimed.
    for _ in range(warmup):
        for name in names:
            for kind in databases:
                switch(databases[kind])
                _untimed(name, paths[kind])
    # Request by request, ABBA (empty, seeded, seeded, empty, ...), path by path: the
    # machine's speed drifts within seconds, and what drifts falls on both alike. A
    # switch hands Django the other database's open connection (no reconnection).
    abba = [("empty", "seeded"), ("seeded", "empty")]
    for round_number in range(rounds):
        for name in names:
            for kind in databases:  # untimed: the path's first request of the round
                switch(databases[kind])
                _untimed(name, paths[kind])
            for run_number in range(runs):
                for kind in abba[(run_number + round_number) % 2]:
                    switch(databases[kind])
                    figures.samples.setdefault((name, kind), []).append(_timed(name, paths[kind]))
        write(f"round {round_number + 1} / {rounds}")
    return report(figures, paths, names, write, explain)


def bootstrap(
    empty: list[float], seeded: list[float], rng: random.Random, resamples: int = 2000
) -> tuple[float, float]:
    """The 95% interval of the ratio of the medians (seeded / empty), by the
    percentile bootstrap (each database's samples resampled apart)."""
    ratios = sorted(
        statistics.median(rng.choices(seeded, k=len(seeded))) / statistics.median(rng.choices(empty, k=len(empty)))
        for _ in range(resamples)
    )
    return ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]


def verdict(low: float, high: float, target: float = 1.10) -> str:
    """Within 10% of the empty database's median: yes when the whole interval is, no
    when none of it is, else undecided (more samples, or a quieter machine)."""
    return "yes" if high <= target else "no" if low > target else "undecided"


def report(
    figures: Figures, paths: dict[str, Paths], names: list[str], write: Callable[[str], None], explain: int
) -> dict[str, Any]:
    write("")
    write(
        "| path | samples | empty p50 ms | seeded p50 ms | p50 seeded/empty | 95% interval | within 10% "
        "| empty p99 ms | seeded p99 ms | p99 seeded/empty |"
    )
    write("| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: |")
    ratios: dict[str, float] = {}
    rng = random.Random(45)
    for name in names:
        e, s = figures.samples[(name, "empty")], figures.samples[(name, "seeded")]
        e50, s50 = statistics.median(e) * 1000, statistics.median(s) * 1000
        e99, s99 = percentile(e, 0.99) * 1000, percentile(s, 0.99) * 1000
        low, high = bootstrap(e, s, rng)
        ratios[name] = s50 / e50
        write(
            f"| {name} | {len(s)} | {e50:.2f} | {s50:.2f} | {s50 / e50:.2f} | {low:.2f}-{high:.2f} | "
            f"{verdict(low, high)} | {e99:.2f} | {s99:.2f} | {s99 / e99:.2f} |"
        )
    worst = sorted(ratios, key=lambda n: -ratios[n])[:explain]
    for name in worst:
        explain_path(name, paths["seeded"], write)
    return ratios


def explain_path(name: str, paths: Paths, write: Callable[[str], None]) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of one request of ``name``:
    each of its statements explained, the one with the longest execution time
    shown (the captured times have a millisecond's resolution)."""
    switch(paths.s.database)
    call = paths.all()[name]()
    _prime(name, paths)  # as it was timed
    with CaptureQueriesContext(connection) as captured:
        call()
    statements = [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    plans = []
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
            lines = [line for (line,) in cursor.fetchall()]
            took = next((float(line.split()[2]) for line in lines if line.startswith("Execution Time:")), 0.0)
            plans.append((took, sql, lines))
    if not plans:
        return
    _, sql, lines = max(plans, key=lambda plan: plan[0])
    write("")
    write(f"### {name}: its slowest statement")
    write("```")
    write(sql)
    for line in lines:
        write(line)
    write("```")
