"""``manage.py bench_migrations --database NAME``: the repository's migrations of the
hot tables timed on a seeded database, each from the state before it, the
database left as found (see ``tools/migration_timing.py``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tools.migration_timing import run
from tools.seed_site import SeedRefused, check_target


class Command(BaseCommand):
    help = "Time the migrations that alter or index a hot table, on a seeded database (left as found)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--database", required=True, help="The database's name, as DATABASE_URL names it.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            check_target(options["database"])
        except SeedRefused as refused:
            raise CommandError(str(refused)) from None
        run(self.stdout.write)
