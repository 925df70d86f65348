"""``manage.py seed_site``: a realistic large database, made fast with COPY.

Fills a PostgreSQL database of its own (named on the command line: never the
development or test database by accident) with accounts, ratings, finished games
with their full move and event logs, table chat, moderation reports, open tables
and pending challenges, reproducibly from ``--seed``.

How the games stay consistent without playing each one through the services: a
pool of ``--templates`` distinct matches is played by the real engine (random
legal moves, rulesets of two to four players on the double-6 set, one or two
rounds); each finished game takes one of them whole - its ruleset, seed, every
move and the engine's events, its final state and result - and adds the rows
the services would have written around them (``game_created``, a ``seat_taken``
or ``bot_added`` a seat, ``game_started``), numbered exactly as
``games.services`` numbers them. A seeded game's record therefore replays to its
stored result, its event log reads as one played on the site, and its seats,
rating changes and chat belong to it. Games that share a template share a seed.

Rows are generated in Python and sent with psycopg 3's ``cursor.copy`` in
PostgreSQL's text format; ids are reserved from each table's sequence first. The
figures (rows, seconds, size) are printed at the end; what they were on this
machine is in ``docs/performance.md``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

import orjson
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction

from challenges.models import Challenge, ChallengeInvite
from chat.models import ChatMessage
from games.engine import PLAYING, Match, Ruleset
from games.engine import Move as EngineMove
from games.models import Event, Game, Move, Seat
from moderation.models import Report
from players.models import User
from ratings import skill
from ratings.models import Rating, RatingChange, pool_for

#: The password of every seeded account (a load test or a person may log in as one).
PASSWORD = "seeded-password"
#: The database names the command refuses whatever it is told (the development default).
REFUSED_NAMES = {"chickenfoot"}
#: Rulesets of the template matches: (set_max, players, rounds).
RULESETS = [(6, 2, 1), (6, 2, 2), (6, 3, 1), (6, 3, 2), (6, 4, 1), (6, 4, 2)]
STRATEGIES = ("random", "greedy")
CHAT_LINES = ("gg", "nice one", "hi all", "good luck", "wp", "that foot!", "argh", "thanks for the game")
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


#: Every table the seed writes: each is vacuumed and analysed at the end.
SEEDED_MODELS = (
    User, Rating, RatingChange, Game, Seat, Move, Event, ChatMessage, Report, Challenge, ChallengeInvite,
)  # fmt: skip


class SeedRefused(Exception):
    """The target database is not the one named, or is a protected one."""


def _text(value: str) -> str:
    """``value`` escaped for COPY's text format."""
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value


def _json(value: Any) -> str:
    return _text(orjson.dumps(value).decode())


def _ts(moment: datetime) -> str:
    return moment.isoformat()


N = "\\N"


@dataclass
class Template:
    """One match played by the engine, ready to be copied into games."""

    ruleset: dict[str, Any]
    players: int
    seed: int
    opening: list[tuple[str, str]]  # the engine's events of Match.new: (type, data json)
    moves: list[tuple[int, int, str, list[tuple[str, str]]]]  # (round, seat, payload json, its events)
    state: str
    result: dict[str, Any]
    ranks: list[int]  # standing of each seat (1 = won; ties share)
    winners: list[int]
    event_count: int = field(init=False)

    def __post_init__(self) -> None:
        self.event_count = len(self.opening) + sum(len(m[3]) for m in self.moves)


def play_template(rng: random.Random) -> Template:
    set_max, players, rounds = rng.choice(RULESETS)
    ruleset = Ruleset(set_max=set_max, players=players, rounds=rounds)
    seed = rng.randrange(2**53)
    match, opening = Match.new(ruleset, seed)
    moves = []
    while match.status == PLAYING:
        seat = match.turn
        round_number = match.round_number
        move = rng.choice(match.legal_moves())
        events = match.apply(seat, move)
        payload = orjson.dumps(EngineMove.from_dict(move.to_dict()).to_dict()).decode()
        moves.append((round_number, seat, payload, [(e["type"], _json(e)) for e in events]))
    totals = match.totals
    ranks = [1 + sum(1 for other in totals if other < mine) for mine in totals]
    return Template(
        ruleset=ruleset.to_dict(),
        players=players,
        seed=seed,
        opening=[(e["type"], _json(e)) for e in opening],
        moves=moves,
        state=_text(orjson.dumps(match.to_dict(), option=orjson.OPT_NON_STR_KEYS).decode()),
        result={"totals": match.totals, "winners": match.winners, "tie_break": match.tie_break},
        ranks=ranks,
        winners=list(match.winners),
    )


def _reserve(table: str, count: int) -> int:
    """The first of ``count`` ids reserved from ``table``'s id sequence."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        sequence = cursor.fetchone()[0]
        cursor.execute("SELECT nextval(%s)", [sequence])
        first = int(cursor.fetchone()[0])
        if count > 1:
            cursor.execute("SELECT setval(%s, %s)", [sequence, first + count - 1])
    return first


class Copier:
    """COPY of generated rows into one table, in chunks."""

    CHUNK = 1 << 20

    def __init__(self, model: Any, columns: list[str]) -> None:
        self.table = model._meta.db_table
        self.columns = columns
        self.rows = 0

    def run(self, lines: Iterable[str]) -> int:
        quote = connection.ops.quote_name
        sql = f"COPY {quote(self.table)} ({', '.join(quote(c) for c in self.columns)}) FROM STDIN"
        with connection.cursor() as cursor:
            raw = cursor.cursor  # psycopg's own cursor
            with raw.copy(sql) as copy:
                buffer: list[str] = []
                size = 0
                for line in lines:
                    buffer.append(line)
                    size += len(line)
                    self.rows += 1
                    if size >= self.CHUNK:
                        copy.write("".join(buffer))
                        buffer, size = [], 0
                if buffer:
                    copy.write("".join(buffer))
        return self.rows


@dataclass
class Plan:
    accounts: int
    finished_games: int
    seed: int
    templates: int = 500
    open_games: int = 200
    challenges: int | None = None  # default accounts / 20
    reports: int | None = None  # default accounts / 2000, at least 20
    chat_per_game: int = 2
    active_share: float = 0.2  # the share of accounts that play
    prefix: str = "seed"
    # The rows are consistent by construction: without the foreign keys' checks (a
    # trigger a row, all run at the commit) the commit takes seconds, not minutes.
    # Needs a superuser (session_replication_role); the tests seed with the checks.
    skip_fk_checks: bool = False


@dataclass
class Seeded:
    """What a run made (first ids and counts), and how long each step took."""

    first_user: int = 0
    first_game: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def check_target(database: str) -> None:
    """Refuse unless the connection's database is ``database`` and not a protected one."""
    actual = connection.settings_dict["NAME"]
    if connection.vendor != "postgresql":
        raise SeedRefused("seed_site needs PostgreSQL (it writes with COPY)")
    if actual != database:
        raise SeedRefused(f"the connection's database is {actual!r}, not {database!r}: nothing written")
    if database in REFUSED_NAMES:
        raise SeedRefused(f"{database!r} is the development database: seed a database of its own")


def seed_site(plan: Plan, write: Callable[[str], None]) -> Seeded:
    """Seed everything ``plan`` asks for, in one transaction."""
    out = Seeded()
    with transaction.atomic():
        if plan.skip_fk_checks:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = replica")
        _Seeder(plan, out, write).run()
        started = time.perf_counter()
    out.seconds["commit"] = time.perf_counter() - started
    write(f"commit: {out.seconds['commit']:.1f} s")
    if not connection.in_atomic_block:
        started = time.perf_counter()
        with connection.cursor() as cursor:
            # Every table written (the challenges' invites were left out: without their
            # statistics the account stream's challenges read joined every account).
            for model in SEEDED_MODELS:
                cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
        out.seconds["vacuum analyze"] = time.perf_counter() - started
        write(f"vacuum analyze: {out.seconds['vacuum analyze']:.1f} s")
    return out


class _Seeder:
    def __init__(self, plan: Plan, out: Seeded, write: Callable[[str], None]) -> None:
        self.plan, self.out, self.write = plan, out, write
        self.rng = random.Random(plan.seed)

    def step(self, name: str, rows: Callable[[], int]) -> None:
        started = time.perf_counter()
        count = rows()
        elapsed = time.perf_counter() - started
        self.out.rows[name] = self.out.rows.get(name, 0) + count
        self.out.seconds[name] = self.out.seconds.get(name, 0.0) + elapsed
        self.write(f"{name}: {count} rows in {elapsed:.1f} s")

    def run(self) -> None:
        plan = self.plan
        started = time.perf_counter()
        self.templates = [play_template(self.rng) for _ in range(plan.templates)]
        self.out.seconds["templates"] = time.perf_counter() - started
        self.write(f"templates: {plan.templates} matches played in {self.out.seconds['templates']:.1f} s")
        self.step("accounts", self.accounts)
        self.games_plan()
        self.step("games", self.games)
        self.step("seats", self.seats)
        self.step("moves", self.moves)
        self.step("events", self.events)
        self.step("rating changes", self.rating_changes)
        self.step("ratings", self.ratings)
        self.step("chat", self.chat)
        self.step("reports", self.reports)
        self.step("challenges", self.challenges)
        with connection.cursor() as cursor:
            for model in (User, Rating, Game, Challenge):
                cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")

    # -- accounts ---------------------------------------------------------------

    def accounts(self) -> int:
        plan, rng = self.plan, self.rng
        first = self.out.first_user = _reserve(User._meta.db_table, plan.accounts)
        password = _text(make_password(PASSWORD))
        self.bots = {first + n for n in range(plan.accounts) if n % 50 == 0}
        self.names = [f"{plan.prefix}{n:07d}" for n in range(plan.accounts)]
        columns = [
            "id", "password", "last_login", "is_superuser", "username", "first_name", "last_name", "email",
            "is_staff", "is_active", "date_joined", "is_bot", "failed_logins", "login_locked_until", "deleted_at",
        ]  # fmt: skip

        def lines() -> Iterator[str]:
            for n in range(plan.accounts):
                uid = first + n
                joined = EPOCH + timedelta(seconds=rng.randrange(60 * 86400 * 12))
                bot = "t" if uid in self.bots else "f"
                yield (
                    f"{uid}\t{password}\t{_ts(joined + timedelta(days=3))}\tf\t{self.names[n]}\t\t\t\t"
                    f"f\tt\t{_ts(joined)}\t{bot}\t0\t{N}\t{N}\n"
                )

        return Copier(User, columns).run(lines())

    # -- games ------------------------------------------------------------------

    def games_plan(self) -> None:
        """Who played which template when: the rows of every later step read it."""
        plan, rng = self.plan, self.rng
        first_user = self.out.first_user
        active = max(8, int(plan.accounts * plan.active_share))
        # A few play a lot, most a little: a player's pages go deep for some.
        weights = [1.0 / (rank + 10) for rank in range(active)]
        players = [first_user + rng.randrange(plan.accounts) for _ in range(active)]
        humans = [p for p in players if p not in self.bots]
        cumulative = list(accumulate(w for p, w in zip(players, weights, strict=True) if p not in self.bots))
        total = plan.finished_games + plan.open_games
        self.out.first_game = first_game = _reserve(Game._meta.db_table, total)
        self.games_list: list[tuple[int, Template | None, list[int | None], bool, datetime]] = []
        span = 86400 * 365
        for n in range(total):
            finished = n < plan.finished_games
            template = rng.choice(self.templates) if finished else None
            seats = template.players if template else rng.choice((2, 3, 4))
            chosen: list[int | None] = []
            while len(chosen) < seats:
                pick = rng.choices(humans, cum_weights=cumulative)[0]
                if pick not in chosen:
                    chosen.append(pick)
            rated = finished and rng.random() < 0.7
            if not rated and finished and seats > 2 and rng.random() < 0.5:
                chosen[-1] = None  # a server bot's seat
            if not finished:
                chosen = chosen[:1] + [None] * (seats - 1)  # an open table: its creator sits and waits
            moment = EPOCH + timedelta(seconds=span * n // total + rng.randrange(600))
            self.games_list.append((first_game + n, template, chosen, rated, moment))

    def games(self) -> int:
        columns = [
            "id", "creator_id", "status", "ruleset", "seed", "setup", "practice", "rated", "turn_time_limit",
            "bot_delay_ms", "bot_strategy", "state", "seq", "turn_seat", "turn_deadline", "result", "abort_reason",
            "moderated", "created_at", "started_at", "finished_at", "last_move_at",
        ]  # fmt: skip

        def lines() -> Iterator[str]:
            for gid, template, seats, rated, moment in self.games_list:
                creator = seats[0]
                if template is None:
                    ruleset = _json(Ruleset(set_max=6, players=len(seats)).to_dict())
                    yield (
                        f"{gid}\t{creator}\topen\t{ruleset}\t{gid - self.out.first_game}\t{N}\tf\tf\t{N}\t0\tgreedy\t{N}\t2\t{N}\t{N}\t{N}\t"
                        f"\tf\t{_ts(moment)}\t{N}\t{N}\t{N}\n"
                    )
                    continue
                seq = 2 + len(seats) + template.event_count
                end = moment + timedelta(seconds=5 * (len(template.moves) + 2))
                yield (
                    f"{gid}\t{creator}\tfinished\t{_json(template.ruleset)}\t{template.seed}\t{N}\tf\t"
                    f"{'t' if rated else 'f'}\t{N}\t0\tgreedy\t{template.state}\t{seq}\t{N}\t{N}\t"
                    f"{_json(template.result)}\t\tf\t{_ts(moment)}\t{_ts(moment + timedelta(seconds=10))}\t"
                    f"{_ts(end)}\t{_ts(end)}\n"
                )

        return Copier(Game, columns).run(lines())

    def seats(self) -> int:
        columns = ["id", "game_id", "number", "player_id", "bot_strategy", "resigned", "away", "timeouts_in_row"]
        first = _reserve(Seat._meta.db_table, sum(len(g[2]) for g in self.games_list))

        def lines() -> Iterator[str]:
            sid = first
            for gid, template, seats, _, _ in self.games_list:
                for number, player in enumerate(seats):
                    if template is None and player is None:
                        yield f"{sid}\t{gid}\t{number}\t{N}\t\tf\tf\t0\n"  # an empty seat of an open table
                    elif player is None:
                        yield f"{sid}\t{gid}\t{number}\t{N}\t{STRATEGIES[gid % 2]}\tf\tf\t0\n"
                    else:
                        yield f"{sid}\t{gid}\t{number}\t{player}\t\tf\tf\t0\n"
                    sid += 1

        return Copier(Seat, columns).run(lines())

    def moves(self) -> int:
        columns = ["id", "game_id", "number", "seq", "round", "seat", "payload", "source", "actor_id",
                   "idempotency_key", "created_at"]  # fmt: skip
        count = sum(len(t.moves) for _, t, _, _, _ in self.games_list if t is not None)
        first = _reserve(Move._meta.db_table, count)

        def lines() -> Iterator[str]:
            mid = first
            for gid, template, seats, _, moment in self.games_list:
                if template is None:
                    continue
                seq = 2 + len(seats) + len(template.opening)  # the last event before the first move
                for number, (round_number, seat, payload, events) in enumerate(template.moves, 1):
                    player = seats[seat]
                    source, actor = ("player", str(player)) if player is not None else ("bot", N)
                    at = _ts(moment + timedelta(seconds=10 + 5 * number))
                    yield (
                        f"{mid}\t{gid}\t{number}\t{seq + 1}\t{round_number}\t{seat}\t{payload}\t{source}\t{actor}\t\t"
                        f"{at}\n"
                    )
                    seq += len(events)
                    mid += 1

        return Copier(Move, columns).run(lines())

    def events(self) -> int:
        columns = ["id", "game_id", "seq", "type", "data", "created_at"]
        # An open table: created and its creator's seat; a finished one: created, a seat each, started, the match.
        count = sum(2 if t is None else 2 + len(s) + t.event_count for _, t, s, _, _ in self.games_list)
        first = _reserve(Event._meta.db_table, count)
        names = self.names
        base = self.out.first_user

        def lines() -> Iterator[str]:
            eid = first
            for gid, template, seats, rated, moment in self.games_list:
                at = _ts(moment)
                creator = names[seats[0] - base]  # type: ignore[operator]
                ruleset = template.ruleset if template else Ruleset(set_max=6, players=len(seats)).to_dict()
                created = {"type": "game_created", "creator": creator, "ruleset": ruleset, "practice": False,
                           "rated": rated}  # fmt: skip
                head: list[dict[str, Any]] = [created]
                for number, player in enumerate(seats):
                    if player is not None:
                        head.append({"type": "seat_taken", "seat": number, "player": names[player - base],
                                     "is_bot": player in self.bots})  # fmt: skip
                    elif template is not None:
                        head.append({"type": "bot_added", "seat": number, "strategy": STRATEGIES[gid % 2]})
                seq = 0
                for data in head:
                    seq += 1
                    yield f"{eid}\t{gid}\t{seq}\t{data['type']}\t{_json(data)}\t{at}\n"
                    eid += 1
                if template is None:
                    continue
                at = _ts(moment + timedelta(seconds=10))
                seq += 1
                yield f'{eid}\t{gid}\t{seq}\tgame_started\t{{"type":"game_started"}}\t{at}\n'
                eid += 1
                for kind, text in template.opening:
                    seq += 1
                    yield f"{eid}\t{gid}\t{seq}\t{kind}\t{text}\t{at}\n"
                    eid += 1
                for number, (_, _, _, events) in enumerate(template.moves, 1):
                    at = _ts(moment + timedelta(seconds=10 + 5 * number))
                    for kind, text in events:
                        seq += 1
                        yield f"{eid}\t{gid}\t{seq}\t{kind}\t{text}\t{at}\n"
                        eid += 1

        return Copier(Event, columns).run(lines())

    # -- ratings ----------------------------------------------------------------

    def rating_changes(self) -> int:
        columns = ["id", "user_id", "game_id", "pool", "mu_before", "sigma_before", "mu_after", "sigma_after", "rank",
                   "players", "won", "forfeit", "created_at", "voided_at"]  # fmt: skip
        rated = [g for g in self.games_list if g[3]]
        first = _reserve(RatingChange._meta.db_table, sum(len(g[2]) for g in rated))
        # Each account's rating in each pool, walked match by match in time order.
        self.standing: dict[tuple[int, str], list[float]] = {}  # (user, pool) -> [mu, sigma, games, wins, at]

        def lines() -> Iterator[str]:
            cid = first
            for gid, template, seats, _, moment in rated:
                assert template is not None
                pool = str(pool_for(template.players))
                at = _ts(moment + timedelta(seconds=5 * (len(template.moves) + 2)))
                for number, player in enumerate(seats):
                    assert player is not None
                    mu, sigma, games, wins, _ = self.standing.get((player, pool), [25.0, 25 / 3, 0, 0, 0])
                    rank = template.ranks[number]
                    won = number in template.winners
                    mu_after = mu + (template.players + 1 - 2 * rank) * sigma * 0.12
                    sigma_after = max(sigma * 0.97, 0.8)
                    self.standing[(player, pool)] = [mu_after, sigma_after, games + 1, wins + won, moment.timestamp()]
                    yield (
                        f"{cid}\t{player}\t{gid}\t{pool}\t{mu!r}\t{sigma!r}\t{mu_after!r}\t{sigma_after!r}\t{rank}\t"
                        f"{template.players}\t{'t' if won else 'f'}\tf\t{at}\t{N}\n"
                    )
                    cid += 1

        return Copier(RatingChange, columns).run(lines())

    def ratings(self) -> int:
        columns = ["id", "user_id", "pool", "mu", "sigma", "ordinal", "games", "wins", "is_bot", "updated_at"]
        first = _reserve(Rating._meta.db_table, len(self.standing))

        def lines() -> Iterator[str]:
            for n, ((user, pool), (mu, sigma, games, wins, at)) in enumerate(sorted(self.standing.items())):
                moment = _ts(datetime.fromtimestamp(at, UTC))
                bot = "t" if user in self.bots else "f"
                yield (
                    f"{first + n}\t{user}\t{pool}\t{mu!r}\t{sigma!r}\t{skill.ordinal(mu, sigma)!r}\t{int(games)}\t"
                    f"{int(wins)}\t{bot}\t{moment}\n"
                )

        return Copier(Rating, columns).run(lines())

    # -- chat, reports, challenges -------------------------------------------------

    def chat(self) -> int:
        plan, rng = self.plan, self.rng
        columns = ["id", "game_id", "channel", "author_id", "text", "created_at", "removed_at", "removed_by_id"]
        finished = [g for g in self.games_list if g[1] is not None]
        self.messages: list[tuple[int, int, int]] = []  # (message, game, author)
        rows = []
        for gid, _, seats, _, moment in finished:
            people = [p for p in seats if p is not None]
            for k in range(rng.randrange(2 * plan.chat_per_game + 1)):
                rows.append((gid, rng.choice(people), rng.choice(CHAT_LINES), moment + timedelta(seconds=30 * k)))
        first = _reserve(ChatMessage._meta.db_table, len(rows))

        def lines() -> Iterator[str]:
            for n, (gid, author, text, at) in enumerate(rows):
                self.messages.append((first + n, gid, author))
                yield f"{first + n}\t{gid}\tplayers\t{author}\t{text}\t{_ts(at)}\t{N}\t{N}\n"

        return Copier(ChatMessage, columns).run(lines())

    def reports(self) -> int:
        plan, rng = self.plan, self.rng
        count = plan.reports if plan.reports is not None else max(20, plan.accounts // 2000)
        columns = ["id", "reporter_id", "target_kind", "target_key", "account_id", "game_id", "message_id", "reason",
                   "text", "status", "created_at", "assignee_id", "assigned_at", "outcome", "resolved_by_id",
                   "resolved_at", "resolution"]  # fmt: skip
        first = _reserve(Report._meta.db_table, count)
        finished = [g for g in self.games_list if g[1] is not None]
        base = self.out.first_user

        def lines() -> Iterator[str]:
            seen: set[tuple[int, str]] = set()
            n = 0
            while n < count:
                gid, _, seats, _, moment = rng.choice(finished)
                people = [p for p in seats if p is not None]
                reporter = rng.choice(people)
                kind = rng.choice(("account", "game", "message")) if self.messages else "game"
                account = game = message = N
                if kind == "account":
                    target = base + rng.randrange(plan.accounts)
                    if target == reporter:
                        continue
                    key, account = f"account:{target}", str(target)
                elif kind == "game":
                    key, game = f"game:{gid}", str(gid)
                else:
                    mid, mgid, _ = rng.choice(self.messages)
                    key, game, message = f"message:{mid}", str(mgid), str(mid)
                if (reporter, key) in seen:
                    continue
                seen.add((reporter, key))
                at = _ts(moment + timedelta(minutes=5))
                reason = rng.choice(("cheating", "abuse", "spam", "stalling", "other"))
                yield (
                    f"{first + n}\t{reporter}\t{kind}\t{key}\t{account}\t{game}\t{message}\t{reason}\t\topen\t{at}\t"
                    f"{N}\t{N}\t\t{N}\t{N}\t\n"
                )
                n += 1

        return Copier(Report, columns).run(lines())

    def challenges(self) -> int:
        plan, rng = self.plan, self.rng
        count = plan.challenges if plan.challenges is not None else plan.accounts // 20
        columns = ["id", "creator_id", "players", "ruleset", "rated", "turn_time_limit", "bot_delay_ms",
                   "bot_strategy", "status", "game_id", "cancel_reason", "expires_at", "created_at", "updated_at"]  # fmt: skip
        first = _reserve(Challenge._meta.db_table, count)
        base = self.out.first_user
        now = datetime.now(UTC)
        invites: list[tuple[int, int, int]] = []
        rulesets = {p: _json(Ruleset(set_max=6, players=p).to_dict()) for p in (2, 3, 4)}

        def lines() -> Iterator[str]:
            for n in range(count):
                players = rng.choice((2, 2, 3, 4))
                people: list[int] = []
                while len(people) < players:
                    pick = base + rng.randrange(plan.accounts)
                    if pick not in people:
                        people.append(pick)
                invites.extend((first + n, invitee, seat) for seat, invitee in enumerate(people[1:], 1))
                at = now - timedelta(seconds=rng.randrange(3600))
                yield (
                    f"{first + n}\t{people[0]}\t{players}\t{rulesets[players]}\tf\t{N}\t0\tgreedy\tpending\t{N}\t\t"
                    f"{_ts(at + timedelta(days=1))}\t{_ts(at)}\t{_ts(at)}\n"
                )

        made = Copier(Challenge, columns).run(lines())
        first_invite = _reserve(ChallengeInvite._meta.db_table, len(invites))
        invite_lines = (
            f"{first_invite + n}\t{challenge}\t{invitee}\t{seat}\tpending\t{N}\tf\n"
            for n, (challenge, invitee, seat) in enumerate(invites)
        )
        columns = ["id", "challenge_id", "invitee_id", "seat", "status", "answered_at", "auto"]
        self.out.rows["challenge invites"] = Copier(ChallengeInvite, columns).run(invite_lines)
        return made
