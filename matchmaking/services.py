"""Every change to seeks: make one, cancel one, and the matcher's decisions.

A seek is made and cancelled by its player (or cancelled by a moderator); the
matcher (``seeks_match``, run by the Celery task ``matchmaking.match`` after new
seeks (``match_soon``: coalesced), at their deadlines and every few seconds by beat) is the only one
that matches or expires seeks. Each of its decisions is one transaction with the
matcher's lock row and the waiting seeks locked: the table is opened, filled and
started through ``games.services`` and the seeks marked matched together, or
nothing happened (a worker killed mid-way leaves the seeks waiting, and the next
run decides again from the database).
"""

from __future__ import annotations

import logging
import math
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Case, Value, When
from django.utils import timezone
from django.utils.translation import gettext

from bots.strategies import STRATEGIES
from core import metrics
from core.cache import send_all
from core.errors import ApiError, CoreCode
from core.redisconn import redis_client
from games import services as game_services
from games.models import Game, GameStatus, Seat
from live import account_feeds
from matchmaking import hooks
from matchmaking.errors import SeekCode, SeekError
from matchmaking.matching import Candidate, RatingWindow, all_groups, next_timeout
from matchmaking.models import MatcherLock, OnTimeout, Seek, SeekEndReason, SeekStatus
from matchmaking.presets import PRESETS
from players.models import User

log = logging.getLogger(__name__)

#: The Celery task that runs the matcher (``matchmaking.tasks``), sent by name.
MATCH_TASK = "matchmaking.match"
#: The bounds of ``wait_seconds`` and its default.
MIN_WAIT_SECONDS, MAX_WAIT_SECONDS, DEFAULT_WAIT_SECONDS = 1, 600, 60
MIN_PLAYERS, MAX_PLAYERS = 2, 8


def rating_window() -> RatingWindow:
    """The rating window of the settings (``MATCHMAKING_RATING_WINDOW_*``)."""
    return RatingWindow(
        base=settings.MATCHMAKING_RATING_WINDOW_BASE,
        per_second=settings.MATCHMAKING_RATING_WINDOW_PER_SECOND,
        most=settings.MATCHMAKING_RATING_WINDOW_MOST,
    )


def seated_game(user_id: int) -> int | None:
    """A table that is open or running where ``user_id`` holds a seat it has not
    resigned (None: none)."""
    return (
        Seat.objects.filter(player_id=user_id, resigned=False, game__status__in=(GameStatus.OPEN, GameStatus.RUNNING))
        .values_list("game_id", flat=True)
        .first()
    )


def seek_create(
    *,
    user: User,
    players: int,
    preset: str,
    rated: bool = False,
    turn_time_limit: int | None = None,
    wait_seconds: int = DEFAULT_WAIT_SECONDS,
    on_timeout: str = OnTimeout.BOTS,
    bot_level: str | None = None,
) -> Seek:
    """A new waiting seek; the matcher is asked to run once it is committed (and at
    its deadline)."""
    if not user.is_active:
        raise SeekError(CoreCode.PERMISSION_DENIED, gettext("A suspended account cannot seek a game."))
    _validate(players=players, preset=preset, wait_seconds=wait_seconds, on_timeout=on_timeout, bot_level=bot_level)
    game_id = seated_game(user.pk)
    if game_id is not None:
        raise SeekError(
            SeekCode.SEATED_ELSEWHERE,
            gettext("You hold a seat at game %(game_id)s, which is open or running: finish or leave it first.")
            % {"game_id": game_id},
            game_id=game_id,
        )
    now = timezone.now()
    seek = Seek(
        user=user,
        players=players,
        preset=preset,
        rated=rated,
        turn_time_limit=turn_time_limit,
        wait_seconds=wait_seconds,
        on_timeout=on_timeout,
        bot_level=bot_level or hooks.level_for(user, players),
        rating=hooks.rating_of(user, players) if rated else 0.0,
        created_at=now,
        updated_at=now,
        expires_at=now + timedelta(seconds=wait_seconds),
    )
    try:
        if transaction.get_connection().in_atomic_block:
            with transaction.atomic():  # a savepoint: a refused insert leaves the caller's transaction usable
                seek.save()
        else:
            seek.save()  # one statement, committed by itself (no BEGIN and COMMIT round trips)
    except IntegrityError:  # the partial unique constraint: one waiting seek per account
        waiting = Seek.objects.filter(user=user, status=SeekStatus.WAITING).values_list("pk", flat=True).first()
        raise SeekError(
            SeekCode.SEEK_EXISTS,
            gettext("You already have a waiting seek (%(waiting)s): cancel it first.") % {"waiting": waiting},
            seek_id=waiting,
        ) from None
    account_feeds.notify_accounts([user.pk])  # when the caller's transaction (if any) commits
    transaction.on_commit(lambda: match_soon(wait_seconds))
    return seek


def _validate(*, players: int, preset: str, wait_seconds: int, on_timeout: str, bot_level: str | None) -> None:
    errors: dict[str, list[str]] = {}
    known = PRESETS.get(preset)
    if known is None:
        errors["preset"] = [f"No preset {preset!r}; there are: {', '.join(PRESETS)}."]
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        errors["players"] = [f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}."]
    elif known is not None and players > known.max_players:
        errors["players"] = [f"The preset {preset} takes at most {known.max_players} players."]
    if not MIN_WAIT_SECONDS <= wait_seconds <= MAX_WAIT_SECONDS:
        errors["wait_seconds"] = [f"wait_seconds must be {MIN_WAIT_SECONDS} to {MAX_WAIT_SECONDS}."]
    if on_timeout not in OnTimeout.values:
        errors["on_timeout"] = [f"on_timeout must be one of {', '.join(OnTimeout.values)}."]
    if bot_level is not None and bot_level not in STRATEGIES:
        errors["bot_level"] = [f"No bot strategy {bot_level!r} (see GET /bots/)."]
    if errors:
        raise SeekError(CoreCode.VALIDATION_ERROR, gettext("Some fields are invalid."), errors=errors)


#: How long a "matcher due" mark (``match_soon``) lasts at most: a task lost meanwhile
#: (a killed worker) holds the others back no longer than that (and beat runs anyway).
SOON_MARK_MS = 5000


def match_soon(wait_seconds: float | None = None) -> None:
    """Ask a worker to run the matcher now (and again when a wait of ``wait_seconds``
    runs out). A lost message costs only time: beat runs the matcher every few
    seconds anyway.

    Coalesced on a Redis broker: a seek sends the task only if none is due yet (a
    mark in Redis, set if absent, which the task clears before it reads the seeks -
    so a seek committed before the clear is read by that run, and one after it sends
    a new task), and one deadline task for each second in which waits run out. A
    burst of 1,000 seeks then sends a handful of tasks, not 2,000, and the worker
    does not run the matcher 1,000 times over nothing."""
    try:
        now_due, deadline = _marks(wait_seconds)
        if now_due:
            current_app.send_task(MATCH_TASK)
        if deadline is not None:
            current_app.send_task(MATCH_TASK, countdown=max(0.0, deadline - time.time()) + 0.05)
    except Exception as error:
        log.warning("could not send %s (%s): the periodic run will match", MATCH_TASK, error)


def _marks(wait_seconds: float | None) -> tuple[bool, float | None]:
    """Whether to send the task now, and the deadline (a Unix time) to send one for
    (None: none): both unless a Redis broker says one is already on its way."""
    deadline = None if wait_seconds is None else math.ceil(time.time() + wait_seconds)
    client = _broker_redis()
    if client is None:
        return True, deadline
    commands: list[tuple[Any, ...]] = [("SET", _soon_key(), b"1", "NX", "PX", SOON_MARK_MS)]
    if deadline is not None:
        commands.append(("SET", f"{_soon_key()}-{deadline}", b"1", "NX", "EX", math.ceil(wait_seconds or 0) + 60))
    try:
        replies = send_all(client, commands)
    except Exception as error:  # no marks: send them all
        log.warning("could not mark the matcher due (%s): sending its tasks anyway", error)
        return True, deadline
    return bool(replies[0]), deadline if deadline is not None and replies[1] else None


def match_due_clear() -> None:
    """The matcher is about to read the seeks: seeks from now on send a task again
    (``match_soon``). Called by the task before it runs the matcher."""
    client = _broker_redis()
    if client is not None:
        try:
            send_all(client, [("DEL", _soon_key())])
        except Exception as error:  # the mark lapses by itself
            log.warning("could not clear the matcher's mark (%s)", error)


def _soon_key() -> str:
    return f"{current_app.conf.task_default_queue}:matchmaking-match-due"  # the queue's (tests clean up {queue}*)


def _broker_redis() -> Any:
    """A client of the Celery broker's Redis (None: the broker is not Redis)."""
    url = current_app.conf.broker_write_url or current_app.conf.broker_url or ""
    return _redis_at(url) if url.startswith(("redis://", "rediss://", "unix://")) else None


@lru_cache(maxsize=4)
def _redis_at(url: str) -> Any:
    return redis_client(url, socket_timeout=0.5, socket_connect_timeout=0.5)


def seek_cancel(*, seek_id: int, by: User, as_moderator: bool = False) -> Seek:
    """Cancel a waiting seek: its player's own (others' are ``not_found``), or any
    one for a moderator."""
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id).first()
        if seek is None or (seek.user_id != by.pk and not as_moderator):
            raise SeekError(CoreCode.NOT_FOUND, gettext("You have no seek %(seek_id)s.") % {"seek_id": seek_id})
        if seek.status != SeekStatus.WAITING:
            raise SeekError(
                SeekCode.SEEK_CLOSED,
                gettext("Seek %(seek_id)s is %(status)s: only a waiting seek can be cancelled.")
                % {"seek_id": seek_id, "status": seek.status},
                seek_status=seek.status,
            )
        _close([seek], SeekStatus.CANCELLED, SeekEndReason.BY_MODERATOR if as_moderator else SeekEndReason.BY_PLAYER)
    return seek


def _close(seeks: list[Seek], status: str, reason: str, *, game: Game | None = None) -> None:
    """End ``seeks`` (locked by the caller) and wake their players' account streams."""
    now = timezone.now()
    values: dict[str, Any] = {"status": status, "reason": reason, "updated_at": now}
    if game is not None:
        values.update(game=game, matched_at=now)
    Seek.objects.filter(pk__in=[s.pk for s in seeks]).update(**values)
    for seek in seeks:
        for name, value in values.items():
            setattr(seek, name, value)
    account_feeds.notify_accounts(s.user_id for s in seeks)


# -- the matcher ------------------------------------------------------------------------


@dataclass
class MatchReport:
    """What one run of the matcher did."""

    games: list[int] = field(default_factory=list)
    matched: int = 0  # seeks matched with other seeks
    with_bots: int = 0  # seeks given a table with server bots
    expired: int = 0
    cancelled: int = 0  # the player took a seat elsewhere or was suspended
    failed: int = 0


#: Tables of one pool a matcher opens in one transaction, written together
#: (``games.services.games_open_full``): a burst's tables are made without a commit
#: and statements each (docs/performance.md, "Quick play").
BATCH_TABLES = 25


def seeks_match(
    *,
    now: datetime | None = None,
    window: RatingWindow | None = None,
    limit: int = 100,
    budget_seconds: float | None = None,
    legacy: bool = False,
) -> MatchReport:
    """Decide until nothing is left to decide (at most ``limit`` passes). A pass reads
    the waiting seeks once and plans from them; its decisions - tables of seekers (up
    to ``BATCH_TABLES`` of one pool together), a table with bots for a seek whose wait
    ran out, an expiry - are transactions with the pool's matcher lock and the decided
    seeks locked and read again: when they changed meanwhile (cancelled, matched by
    another matcher, their player seated elsewhere), the pass ends and the next one
    reads again. Matchers work in parallel over different pools (players, preset,
    rated, clock): a pool whose lock another matcher holds is skipped (that matcher
    goes on until nothing is left in it). ``budget_seconds``: start no decision after
    that long (the task stays within its time limit; the next run goes on from the
    database). ``legacy``: the matcher as it was before (one lock for all pools, a
    transaction a table, the table made by five games services calls), kept only as
    ``bench_matching --compare``'s baseline."""
    report = MatchReport()
    window = window or rating_window()
    stop = None if budget_seconds is None else time.monotonic() + budget_seconds
    for _ in range(limit):
        if not _pass(report, window, now, stop, legacy):
            break
    return report


def _pass(
    report: MatchReport, window: RatingWindow, fixed_now: datetime | None, stop: float | None, legacy: bool = False
) -> bool:
    """One plan, carried out; True if it decided anything (another pass may then)."""
    waiting = list(Seek.objects.select_related("user").filter(status=SeekStatus.WAITING).order_by("created_at", "id"))
    if not waiting:
        return False
    if _drop_unavailable(waiting, report):
        return True
    now = fixed_now or timezone.now()
    candidates = [_candidate(s) for s in waiting]
    groups = all_groups(candidates, window, now)
    taken = {c.id for group in groups for c in group}
    candidates = [c for c in candidates if c.id not in taken]
    decided = False
    if legacy:
        for group in groups:
            if stop is not None and time.monotonic() > stop:
                return False
            if not _decide([c.id for c in group], bots=0, report=report, legacy=True):
                return True
            decided = True
    else:
        by_pool: dict[Any, list[list[int]]] = {}
        for group in groups:
            by_pool.setdefault(group[0].pool, []).append([c.id for c in group])
        for pool, planned in by_pool.items():
            for start in range(0, len(planned), BATCH_TABLES):
                if stop is not None and time.monotonic() > stop:
                    return False
                outcome = _decide_tables(pool, planned[start : start + BATCH_TABLES], report)
                if outcome is None:
                    break  # another matcher holds this pool: it goes on with it
                decided = decided or outcome[0]
                if not outcome[1]:
                    return True  # some seeks changed meanwhile: read again
    while (timeout := next_timeout(candidates, window, now)) is not None:
        if stop is not None and time.monotonic() > stop:
            return False
        ids = [timeout.seek.id, *(c.id for c in timeout.companions)]
        expire = timeout.bots == 0 and not timeout.companions
        if not _decide(ids, bots=timeout.bots, report=report, expire=expire, legacy=legacy, pool=timeout.seek.pool):
            return True
        decided = True
        candidates = [c for c in candidates if c.id not in ids]
    return decided


def _pool_lock_id(pool: Any) -> int:
    """The matcher lock row of a pool (2 and up; 1 is the legacy matcher's one lock)."""
    return 2 + zlib.crc32(repr(pool).encode()) % 30000


def _lock_matcher(pool: Any = None, *, wait: bool = True) -> bool:
    """Take the matcher lock row of ``pool`` (made on first use; None: the legacy
    matcher's one lock) until the end of the transaction; it also says when the last
    decision was made. ``wait=False``: False at once if another matcher holds it."""
    key = 1 if pool is None else _pool_lock_id(pool)
    if wait:
        if MatcherLock.objects.filter(pk=key).update(last_run_at=timezone.now()):  # an UPDATE locks the row
            return True
    else:
        held = MatcherLock.objects.select_for_update(skip_locked=True).filter(pk=key).values_list("pk", flat=True)
        if list(held):
            MatcherLock.objects.filter(pk=key).update(last_run_at=timezone.now())
            return True
        if MatcherLock.objects.filter(pk=key).exists():
            return False  # another matcher's
    try:
        with transaction.atomic():
            MatcherLock.objects.create(pk=key)
    except IntegrityError:  # made by another matcher meanwhile
        pass
    return _lock_matcher(pool, wait=True) if wait else _lock_matcher(pool, wait=False)


def _locked_waiting(ids: list[int]) -> list[Seek]:
    return list(
        Seek.objects.select_for_update(of=("self",))
        .select_related("user")
        .filter(pk__in=ids, status=SeekStatus.WAITING)
        .order_by("created_at", "id")
    )


def _decide_tables(pool: Any, planned: list[list[int]], report: MatchReport) -> tuple[bool, bool] | None:
    """Open the tables ``planned`` (seek ids each, oldest first) of one pool in one
    transaction, their rows written together. None if another matcher holds the pool;
    else (any table opened, every planned table opened)."""
    with transaction.atomic():
        if not _lock_matcher(pool, wait=False):
            return None
        seeks = _locked_waiting([i for ids in planned for i in ids])
        by_id = {s.pk: s for s in seeks}
        seated = _seated([s.user_id for s in seeks])
        groups = []
        for ids in planned:
            group = [by_id.get(i) for i in ids]
            if any(s is None or not s.user.is_active or s.user_id in seated for s in group):
                continue  # changed meanwhile: the next pass reads again (and drops the unavailable)
            groups.append([s for s in group if s is not None])
        _open_tables(groups, bots=0, report=report)
    return bool(groups), len(groups) == len(planned)


def _decide(
    ids: list[int], *, bots: int, report: MatchReport, expire: bool = False, legacy: bool = False, pool: Any = None
) -> bool:
    """Carry out one decision about the seeks ``ids`` (the first one's settings):
    expire it, or open their table with ``bots`` server bots. False, with nothing
    done, if they are no longer all waiting or a player is no longer available."""
    with transaction.atomic():
        _lock_matcher(None if legacy else pool)
        seeks = _locked_waiting(ids)
        if len(seeks) != len(ids) or _drop_unavailable(seeks, report):
            return False
        if expire:
            _close(seeks, SeekStatus.EXPIRED, SeekEndReason.TIMEOUT)
            report.expired += 1
        else:
            by_id = {s.pk: s for s in seeks}
            group = [by_id[i] for i in ids]
            if legacy:
                _open_table_legacy_matched(group, bots=bots, report=report)
            else:
                _open_tables([group], bots=bots, report=report)
        return True


def _candidate(seek: Seek) -> Candidate:
    return Candidate(
        id=seek.pk,
        user_id=seek.user_id,
        players=seek.players,
        preset=seek.preset,
        rated=seek.rated,
        turn_time_limit=seek.turn_time_limit,
        rating=seek.rating,
        created_at=seek.created_at,
        expires_at=seek.expires_at,
        on_timeout=seek.on_timeout,
    )


def _seated(user_ids: list[int]) -> set[int]:
    """Those of ``user_ids`` who hold a seat they have not resigned at an open or running table."""
    return set(
        Seat.objects.filter(
            player_id__in=user_ids, resigned=False, game__status__in=(GameStatus.OPEN, GameStatus.RUNNING)
        ).values_list("player_id", flat=True)
    )


def _drop_unavailable(waiting: list[Seek], report: MatchReport) -> bool:
    """Cancel the seeks of players who have since been suspended or taken a seat at
    another table (never put an account in two games); True if there were any."""
    seated = _seated([s.user_id for s in waiting])
    suspended = [s for s in waiting if not s.user.is_active]
    elsewhere = [s for s in waiting if s.user.is_active and s.user_id in seated]
    if not (suspended or elsewhere):
        return False
    with transaction.atomic():
        for gone, reason in ((suspended, SeekEndReason.SUSPENDED), (elsewhere, SeekEndReason.SEATED_ELSEWHERE)):
            locked = list(
                Seek.objects.select_for_update().filter(pk__in=[s.pk for s in gone], status=SeekStatus.WAITING)
            )
            if locked:
                _close(locked, SeekStatus.CANCELLED, reason)
            report.cancelled += len(locked)
    return True


def _open_tables(groups: list[list[Seek]], *, bots: int, report: MatchReport) -> None:
    """Open, fill and start the table of each group of ``seeks`` (the first one's
    settings; the oldest seeker creates it and sits first) with ``bots`` server bots
    at the first seeker's level - together, in one games change
    (``games.services.games_open_full``: a few statements for any number of tables) -
    and mark the seeks matched (one statement); a group whose table the games layer
    refuses is marked failed (nothing of its table is written)."""
    if not groups:
        return
    tables = []
    for seeks in groups:
        first = seeks[0]
        tables.append(
            game_services.FullTable(
                players=[s.user for s in seeks],
                bots=[(first.bot_level, hooks.level_account(first.bot_level, number)) for number in range(1, bots + 1)],
                ruleset=PRESETS[first.preset].ruleset_for(first.players),
                turn_time_limit=first.turn_time_limit,
                bot_strategy=first.bot_level,
                rated=first.rated,
            )
        )
    opened: list[tuple[list[Seek], Game]] = []
    for seeks, answer in zip(groups, game_services.games_open_full(tables), strict=True):
        if isinstance(answer, ApiError):
            log.error(
                "seeks %s: the table could not be set up (%s: %s)", [s.pk for s in seeks], answer.code, answer.detail
            )
            _close(seeks, SeekStatus.CANCELLED, SeekEndReason.FAILED)
            report.failed += len(seeks)
        else:
            opened.append((seeks, answer))
    _close_matched(opened, SeekEndReason.BOTS if bots else SeekEndReason.PLAYERS)
    waits = [(s.matched_at - s.created_at).total_seconds() for seeks, _ in opened for s in seeks if s.matched_at]
    transaction.on_commit(lambda: [metrics.SEEK_WAIT.observe(wait) for wait in waits])
    for seeks, game in opened:
        report.games.append(game.pk)
        if bots:
            report.with_bots += len(seeks)
        else:
            report.matched += len(seeks)


def _close_matched(opened: list[tuple[list[Seek], Game]], reason: str) -> None:
    """Mark each group's seeks (locked by the caller) matched into its game, all in
    one statement, and wake their players' account streams (one notice)."""
    if not opened:
        return
    now = timezone.now()
    game_of = Case(*(When(pk__in=[s.pk for s in seeks], then=Value(game.pk)) for seeks, game in opened))
    values: dict[str, Any] = {"status": SeekStatus.MATCHED, "reason": reason, "updated_at": now, "matched_at": now}
    Seek.objects.filter(pk__in=[s.pk for seeks, _ in opened for s in seeks]).update(game_id=game_of, **values)
    for seeks, game in opened:
        for seek in seeks:
            for name, value in values.items():
                setattr(seek, name, value)
            seek.game = game
    account_feeds.notify_accounts(s.user_id for seeks, _ in opened for s in seeks)


def _open_table_legacy_matched(seeks: list[Seek], *, bots: int, report: MatchReport) -> None:
    """The matcher's table as it was before (``bench_matching --compare``'s baseline
    only): five games changes in a savepoint, the seeks closed on their own."""
    try:
        with transaction.atomic():
            game = _open_table_legacy(seeks, bots)
    except ApiError as error:
        log.error("seeks %s: the table could not be set up (%s: %s)", [s.pk for s in seeks], error.code, error.detail)
        _close(seeks, SeekStatus.CANCELLED, SeekEndReason.FAILED)
        report.failed += len(seeks)
        return
    _close(seeks, SeekStatus.MATCHED, SeekEndReason.BOTS if bots else SeekEndReason.PLAYERS, game=game)
    waits = [(seek.matched_at - seek.created_at).total_seconds() for seek in seeks if seek.matched_at is not None]
    transaction.on_commit(lambda: [metrics.SEEK_WAIT.observe(wait) for wait in waits])
    report.games.append(game.pk)
    if bots:
        report.with_bots += len(seeks)
    else:
        report.matched += len(seeks)


def _open_table_legacy(seeks: list[Seek], bots: int) -> Game:
    """The table as the matcher made it before ``game_open_full``: five games changes
    (``bench_matching --compare``'s baseline only)."""
    first = seeks[0]
    game = game_services.game_create(
        creator=first.user,
        ruleset=PRESETS[first.preset].ruleset_for(first.players),
        turn_time_limit=first.turn_time_limit,
        bot_strategy=first.bot_level,
        rated=first.rated,
        sit=True,
    )
    for seek in seeks[1:]:
        game_services.game_join(game_id=game.pk, player=seek.user)
    for number in range(1, bots + 1):
        game_services.game_add_bot(
            game_id=game.pk,
            by=first.user,
            strategy=first.bot_level,
            account=hooks.level_account(first.bot_level, number),
        )
    game_services.game_start(game_id=game.pk, by=first.user)
    return game
