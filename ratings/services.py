"""Every change of a rating: a finished match rated (``match_rate``, called by the
receiver of ``games.signals.match_finished`` inside the final move's
transaction) and a match's rating effect voided (``match_void``, by moderators
through ``moderation.services``).

Concurrency: the participants' ``Rating`` rows are created if missing (one
``INSERT ... ON CONFLICT DO NOTHING``, in user id order, so a concurrent insert of
the same row waits and then does nothing) and locked ``FOR UPDATE`` in user id
order: two matches that finish at once and share a player serialise on that
player's row, each reading what the other wrote, and locks taken in one global
order cannot deadlock. ``RatingChange`` is unique per (user, game): a match
counts once or the final move fails.

Void: each of the match's changes is undone on the account's current rating:
``mu`` loses the match's ``mu`` delta and ``sigma`` gets back the variance the
match took (sigma^2 + sigma_before^2 - sigma_after^2; exactly ``sigma_before``
when nothing was rated since), ``games`` (and ``wins``) lose one; the change is
kept with ``voided_at`` set. A second void finds nothing left to undo.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from core import metrics
from core.errors import CoreCode
from games.models import Game, GameStatus, Move, MoveSource, Seat
from players.models import User
from ratings import cache, skill
from ratings.errors import RatingCode, RatingError
from ratings.models import Rating, RatingChange, pool_for
from ratings.selectors import BoardKind

#: The smallest sigma a void leaves (openskill's kappa keeps variances above it too).
MIN_SIGMA = 1e-3


def _locked_ratings(*, users: Sequence[User], pool: str, now: datetime) -> dict[int, Rating]:
    """The ``Rating`` rows of ``users`` in ``pool``, created when missing and
    locked, both in user id order (see the module's doc); by user id. A row created
    here has ``updated_at`` ``now``."""
    mu, sigma = skill.initial()
    by_id = {u.pk: u for u in users}
    fresh = [
        Rating(
            user_id=user_id,
            pool=pool,
            mu=mu,
            sigma=sigma,
            ordinal=skill.ordinal(mu, sigma),
            is_bot=by_id[user_id].is_bot,
            updated_at=now,
        )
        for user_id in sorted(by_id)
    ]
    Rating.objects.bulk_create(fresh, ignore_conflicts=True)
    rows = Rating.objects.select_for_update().filter(pool=pool, user_id__in=sorted(by_id)).order_by("user_id")
    return {row.user_id: row for row in rows}


_SAVED = ("mu", "sigma", "ordinal", "games", "wins", "is_bot", "updated_at")
_CASTS = ("double precision", "double precision", "double precision", "integer", "integer", "boolean", "timestamptz")


def _ratings_save(rows: Sequence[Rating]) -> None:
    """Write back the rating fields of ``rows`` in one statement. On PostgreSQL an
    ``UPDATE ... FROM (VALUES ...)``: Django's ``bulk_update`` builds a ``CASE`` per
    field and row, which cost more than the rest of a match's rating update."""
    if connection.vendor != "postgresql":
        Rating.objects.bulk_update(rows, list(_SAVED))
        return
    table = Rating._meta.db_table
    first = "(%s::bigint, " + ", ".join(f"%s::{cast}" for cast in _CASTS) + ")"
    other = "(" + ", ".join(["%s"] * (len(_SAVED) + 1)) + ")"
    values = ", ".join([first] + [other] * (len(rows) - 1))
    sql = (
        f"UPDATE {table} AS r SET {', '.join(f'{f} = v.{f}' for f in _SAVED)} "
        f"FROM (VALUES {values}) AS v (id, {', '.join(_SAVED)}) WHERE r.id = v.id"
    )
    params = [value for row in rows for value in (row.pk, *(getattr(row, f) for f in _SAVED))]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _forfeits(game: Game, seats: Sequence[Seat]) -> set[int]:
    """Seats that count as a loss: resigned or handed to a bot, away after
    repeated timeouts, or timed out at least once in this game."""
    timed_out = set(
        Move.objects.filter(game_id=game.pk, source=MoveSource.TIMEOUT)
        .order_by()
        .values_list("seat", flat=True)
        .distinct()
    )
    return {s.number for s in seats if s.resigned or s.away or s.number in timed_out}


def match_rate(*, game: Game, seats: Sequence[Seat]) -> list[RatingChange]:
    """Rate a finished match: called inside its final move's transaction (game row
    locked). Returns the changes written; none for a game that is not rated, has
    fewer than two accounts seated, or was rated already."""
    if not game.rated or game.practice or game.status != GameStatus.FINISHED or not game.result:
        return []
    rated = [s for s in seats if s.player_id is not None and s.player is not None]
    if len(rated) < 2 or RatingChange.objects.filter(game_id=game.pk).exists():
        return []
    pool = pool_for(game.seat_count)
    placings = skill.standings(
        rated_seats=[s.number for s in rated],
        totals=game.result["totals"],
        winners=set(game.result["winners"]),
        forfeits=_forfeits(game, rated),
    )
    users = [s.player for s in rated if s.player is not None]
    now = timezone.now()
    locked = _locked_ratings(users=users, pool=pool, now=now)
    joined = _board_changes(users=users, locked=locked, now=now)
    before = [(locked[u.pk].mu, locked[u.pk].sigma) for u in users]
    after = skill.rate(before, [p.rank for p in placings])
    changes = []
    for user, placing, (mu0, sigma0), (mu1, sigma1) in zip(users, placings, before, after, strict=True):
        row = locked[user.pk]
        row.mu, row.sigma, row.ordinal = mu1, sigma1, skill.ordinal(mu1, sigma1)
        row.games += 1
        row.wins += int(placing.won)
        row.is_bot = user.is_bot
        row.updated_at = now
        changes.append(
            RatingChange(
                user=user,
                game_id=game.pk,
                pool=pool,
                mu_before=mu0,
                sigma_before=sigma0,
                mu_after=mu1,
                sigma_after=sigma1,
                rank=placing.rank,
                players=len(placings),
                won=placing.won,
                forfeit=placing.forfeit,
                created_at=now,
            )
        )
    _ratings_save(list(locked.values()))
    RatingChange.objects.bulk_create(changes)
    count = len(changes)
    transaction.on_commit(lambda: metrics.RATING_UPDATES.inc(count))
    cache.generations_bump_on_commit(pools=[pool])
    if joined:
        cache.board_counts_adjust_on_commit(pool=pool, changes=joined)
    return changes


def _board(is_bot: bool) -> str:
    return BoardKind.BOTS if is_bot else BoardKind.HUMANS


def _board_changes(*, users: Sequence[User], locked: dict[int, Rating], now: datetime) -> dict[str, int]:
    """What the update does to the pool's boards' member counts: an account rated
    in the pool for the first time (its row created now) joins the board of
    everyone and its own (human or bot); one marked or unmarked as a bot since its
    last update moves between those two. Empty when nobody joins or moves."""
    changes: Counter[str] = Counter()
    for user in users:
        row = locked[user.pk]
        if row.updated_at == now:  # created by this update (_locked_ratings)
            changes[BoardKind.ALL] += 1
            changes[_board(user.is_bot)] += 1
        elif row.is_bot != user.is_bot:
            changes[_board(row.is_bot)] -= 1
            changes[_board(user.is_bot)] += 1
    return {str(kind): n for kind, n in changes.items() if n}


@dataclass(frozen=True)
class VoidOutcome:
    game_id: int
    voided: int  # changes undone now (0: nothing was left to undo)
    players: list[str]


def match_void(*, game_id: int, by: User, reason: str) -> VoidOutcome:
    """Undo the rating effect of rated game ``game_id`` (see the module's doc);
    idempotent. ``by`` and ``reason`` are the moderator's (``moderation.services``
    checks the permission and keeps the audit entry). Refusals: ``not_found``,
    ``game_not_rated``."""
    game = Game.objects.filter(pk=game_id).only("id", "rated").first()
    if game is None:
        raise RatingError(CoreCode.NOT_FOUND, gettext("There is no game %(game_id)s.") % {"game_id": game_id})
    if not game.rated:
        raise RatingError(
            RatingCode.GAME_NOT_RATED,
            gettext("Game %(game_id)s is not rated: it changed no rating.") % {"game_id": game_id},
        )
    with transaction.atomic():
        keys = sorted(RatingChange.objects.filter(game_id=game_id).values_list("user_id", "pool"))
        if not keys:
            return VoidOutcome(game_id=game_id, voided=0, players=[])
        pool = keys[0][1]
        ratings = {
            r.user_id: r
            for r in Rating.objects.select_for_update()
            .filter(pool=pool, user_id__in=[u for u, _ in keys])
            .order_by("user_id")
        }
        # Read again under the locks: a void that ran meanwhile has set voided_at.
        changes = list(
            RatingChange.objects.select_related("user")
            .filter(game_id=game_id, voided_at__isnull=True)
            .order_by("user_id")
        )
        now = timezone.now()
        for change in changes:
            rating = ratings[change.user_id]
            if rating.mu == change.mu_after and rating.sigma == change.sigma_after:
                rating.mu, rating.sigma = change.mu_before, change.sigma_before  # nothing rated since
            else:
                rating.mu -= change.mu_after - change.mu_before
                variance = rating.sigma**2 + change.sigma_before**2 - change.sigma_after**2
                rating.sigma = math.sqrt(max(variance, MIN_SIGMA**2))
            rating.ordinal = skill.ordinal(rating.mu, rating.sigma)
            rating.games = max(rating.games - 1, 0)
            rating.wins = max(rating.wins - int(change.won), 0)
            rating.updated_at = now
            change.voided_at = now
        if changes:
            _ratings_save([ratings[c.user_id] for c in changes])
            RatingChange.objects.bulk_update(changes, ["voided_at"])
            cache.generations_bump_on_commit(pools=[pool])
    return VoidOutcome(game_id=game_id, voided=len(changes), players=sorted(c.user.username for c in changes))
