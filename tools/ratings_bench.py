"""``manage.py bench_ratings``: the ratings' read and write paths with many rated
accounts, on throwaway data of its own.

Seeds ``--accounts`` accounts (a tenth of them bots) with a rating each in pool
3-4 (bulk inserts), then times, through the real views (throttles off) and the real
services:

* a leaderboard page: the first page and a deep one (offset accounts/2), each cold
  (the pool's cache generation bumped before every request, as after a rating
  update: the database answers; the board's count stays cached, as it does until
  accounts join the pool) and cached;
* a player's ratings page (a player with rated matches), cold and cached;
* the rating update: rated 4-player matches between seeded bot accounts played to
  the end by server strategies through ``games.services``; the time is that of the
  ``match_finished`` receiver alone (inside the final move's transaction).

Prints one line per figure (``name: p50 X ms, p99 Y ms, n N``), then deletes every
account, rating and game it made.
"""

from __future__ import annotations

import random
import secrets
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIRequestFactory

from games import services as game_services
from games.models import GameStatus
from games.signals import match_finished
from players.models import User
from ratings import cache, receivers, services, skill
from ratings.models import Rating, RatingChange, RatingPool
from ratings.views import LeaderboardApi, PlayerRatingsApi
from tools.stats import percentile

POOL = RatingPool.SMALL
BATCH = 5000
RULESET = {"set_max": 6, "players": 4, "rounds": 1}
UID = "ratings.match_rate"


def percentiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p99) in milliseconds of ``samples`` (seconds)."""
    return statistics.median(samples) * 1000, percentile(samples, 0.99) * 1000


def seed(prefix: str, accounts: int, rng: random.Random, write: Callable[[str], None]) -> None:
    """``accounts`` accounts named ``<prefix>-<n>`` with a rating each."""
    password = make_password(None)  # unusable: nobody logs in as these
    now = timezone.now()
    for start in range(0, accounts, BATCH):
        users = [
            User(username=f"{prefix}-{n}", password=password, is_bot=n % 10 == 0)
            for n in range(start, min(start + BATCH, accounts))
        ]
        made = User.objects.bulk_create(users)
        ratings = []
        for user in made:
            games = rng.randrange(0, 200)
            mu = rng.gauss(25, 6)
            sigma = max(25 / 3 * (0.97**games), 0.8)
            ratings.append(
                Rating(
                    user=user,
                    pool=POOL,
                    mu=mu,
                    sigma=sigma,
                    ordinal=skill.ordinal(mu, sigma),
                    games=games,
                    wins=games // 4,
                    is_bot=user.is_bot,
                    updated_at=now,
                )
            )
        Rating.objects.bulk_create(ratings)
        write(f"seeded {start + len(made)} / {accounts}")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # statistics and the visibility map, as a settled table has them
            cursor.execute(f"VACUUM ANALYZE {Rating._meta.db_table}")


def timed(call: Callable[[], Any], runs: int, before: Callable[[], None] | None = None) -> list[float]:
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def request(view: Callable[..., Any], path: str, query: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    response = view(APIRequestFactory().get(path, query or {}, HTTP_HOST="localhost"), **kwargs)
    response.render()
    assert response.status_code == 200, response.content[:300]
    return response


@contextmanager
def receiver_timed(samples: list[float]) -> Iterator[None]:
    """The ratings' receiver of ``match_finished``, timed, for the block."""

    def rate(sender: Any, *, game: Any, seats: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        changes = services.match_rate(game=game, seats=seats)
        samples.append(time.perf_counter() - start)
        assert len(changes) == 4, changes

    match_finished.disconnect(dispatch_uid=UID)
    match_finished.connect(rate, dispatch_uid=UID, weak=False)
    try:
        yield
    finally:
        match_finished.disconnect(dispatch_uid=UID)
        match_finished.connect(receivers.rate_finished_match, dispatch_uid=UID)


def play_rated_match(players: list[User], rng: random.Random) -> int:
    """A rated 4-player match between bot accounts, played to the end by server
    strategies through the games services (as the workers would); its id."""
    game = game_services.game_create(creator=players[0], ruleset=RULESET, rated=True, sit=False)
    for seat, player in enumerate(players):
        game_services.game_add_bot(game_id=game.pk, by=players[0], strategy="random", seat=seat, account=player)
    game_services.game_start(game_id=game.pk, by=players[0])
    for _ in range(2000):
        game.refresh_from_db(fields=["status", "seq"])
        if game.status != GameStatus.RUNNING:
            return game.pk
        game_services.bot_move(game_id=game.pk, expected_seq=game.seq)
    raise RuntimeError(f"match {game.pk} did not end")


def board_page(board: Callable[..., Any], query: dict[str, Any]) -> Callable[[], Any]:
    return lambda: request(board, "/api/v1/leaderboard/", query)


def run(*, accounts: int, runs: int, matches: int, write: Callable[[str], None]) -> dict[str, tuple[float, float, int]]:
    rng = random.Random(1)
    prefix = f"bench-ratings-{secrets.token_hex(3)}"
    figures: dict[str, tuple[float, float, int]] = {}

    def report(name: str, samples: list[float]) -> None:
        p50, p99 = percentiles(samples)
        figures[name] = (p50, p99, len(samples))
        write(f"{name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms, n {len(samples)}")

    board = LeaderboardApi.as_view(throttle_classes=[])
    player_page = PlayerRatingsApi.as_view(throttle_classes=[])

    def cold() -> None:
        cache.generations_bump(pools=list(RatingPool))

    try:
        started = time.perf_counter()
        seed(prefix, accounts, rng, write)
        write(f"seed: {accounts} accounts in {time.perf_counter() - started:.1f} s ({connection.vendor})")

        # The rating update first: its players then have history for the player page.
        bots = list(User.objects.filter(username__startswith=f"{prefix}-", is_bot=True).order_by("pk")[:8])
        updates: list[float] = []
        with receiver_timed(updates):
            for _ in range(matches):
                play_rated_match(rng.sample(bots, 4), rng)
        report("rating update (receiver, 4 players)", updates)

        for name, query in (
            ("leaderboard first page", {"pool": POOL}),
            ("leaderboard deep page", {"pool": POOL, "offset": accounts // 2}),
            ("leaderboard deep page, bots", {"pool": POOL, "kind": "bots", "offset": accounts // 20}),
        ):
            page = board_page(board, query)
            report(f"{name}, cold", timed(page, runs, cold))
            page()
            report(f"{name}, cached", timed(page, runs * 5))

        username = bots[0].username
        path = f"/api/v1/players/{username}/ratings/"
        body = request(player_page, path, username=username).data
        assert body["pools"] and body["pools"][0]["recent_matches"], body
        report("player ratings, cold", timed(lambda: request(player_page, path, username=username), runs, cold))
        report("player ratings, cached", timed(lambda: request(player_page, path, username=username), runs * 5))
    finally:
        cleanup(prefix, write)
    return figures


def cleanup(prefix: str, write: Callable[[str], None]) -> None:
    users = User.objects.filter(username__startswith=f"{prefix}-")
    games = 0
    for creator in users.filter(created_games__isnull=False).distinct():
        games += game_services.games_purge(creator=creator)
    RatingChange.objects.filter(user__in=users).delete()
    Rating.objects.filter(user__in=users).delete()
    ids = list(users.values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):  # in batches: a query takes at most 65,535 parameters
        User.objects.filter(pk__in=ids[start : start + BATCH]).delete()
    cache.generations_bump(pools=list(RatingPool))
    cache.board_counts_forget(pools=list(RatingPool))
    write(f"cleaned up: {len(ids)} accounts, {games} games")
