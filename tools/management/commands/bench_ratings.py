"""``manage.py bench_ratings [--accounts 100000] [--runs 100] [--matches 30]``: the
ratings' leaderboard, player page and rating update timed with many rated
accounts (throwaway data, deleted afterwards). See ``tools/ratings_bench.py``."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tools.ratings_bench import run


class Command(BaseCommand):
    help = "Time the ratings' leaderboard, player page and rating update with many rated accounts (p50/p99)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--accounts", type=int, default=100_000, help="Rated accounts to seed (default 100000).")
        parser.add_argument("--runs", type=int, default=100, help="Requests per cold figure (cached: 5x).")
        parser.add_argument("--matches", type=int, default=30, help="Rated 4-player matches to time the update on.")

    def handle(self, *args: Any, **options: Any) -> None:
        run(accounts=options["accounts"], runs=options["runs"], matches=options["matches"], write=self.stdout.write)
