"""``manage.py seed_site --database NAME --accounts N --finished-games M --seed S``:
a realistic large database (accounts, ratings, finished games with their full
move and event logs, chat, reports, open tables, pending challenges) written with
COPY into the database named, which must be the one the settings connect to. See
``tools/seed_site.py``."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from tools.seed_site import Plan, SeedRefused, check_target, seed_site


class Command(BaseCommand):
    help = "Fill a database of its own with a realistic site (COPY), reproducibly from a seed."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--database",
            required=True,
            help="The database's name, as DATABASE_URL names it: nothing is written anywhere else.",
        )
        parser.add_argument("--accounts", type=int, default=1_000_000)
        parser.add_argument("--finished-games", type=int, default=100_000)
        parser.add_argument("--seed", type=int, default=1, help="The same seed on an empty database: the same rows.")
        parser.add_argument("--templates", type=int, default=500, help="Distinct matches the engine plays.")
        parser.add_argument("--open-games", type=int, default=200, help="Open tables waiting in the lobby.")
        parser.add_argument("--challenges", type=int, default=None, help="Pending challenges (default accounts/20).")
        parser.add_argument("--reports", type=int, default=None, help="Open reports (default accounts/2000, >= 20).")
        parser.add_argument("--chat-per-game", type=int, default=2, help="Chat messages a finished game, on average.")
        parser.add_argument(
            "--skip-fk-checks",
            action="store_true",
            help="Skip the foreign keys' checks at the commit (a superuser only; the rows are consistent by "
            "construction, and the tests seed with the checks).",
        )
        parser.add_argument("--prefix", default="seed", help="Usernames are the prefix and a 7-digit number.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            check_target(options["database"])
        except SeedRefused as refused:
            raise CommandError(str(refused)) from None
        plan = Plan(
            accounts=options["accounts"],
            finished_games=options["finished_games"],
            seed=options["seed"],
            templates=options["templates"],
            open_games=options["open_games"],
            challenges=options["challenges"],
            reports=options["reports"],
            chat_per_game=options["chat_per_game"],
            prefix=options["prefix"],
            skip_fk_checks=options["skip_fk_checks"],
        )
        started = time.perf_counter()
        made = seed_site(plan, self.stdout.write)
        elapsed = time.perf_counter() - started
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            size = cursor.fetchone()[0]
        total = sum(made.rows.values())
        self.stdout.write(f"rows: {total} ({', '.join(f'{k} {v}' for k, v in made.rows.items())})")
        self.stdout.write(f"database_size_mb: {size / 2**20:.0f}")
        self.stdout.write(f"first_account: {made.first_user}, first_game: {made.first_game}")
        self.stdout.write(f"seconds: {elapsed:.1f}")
