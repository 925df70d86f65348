"""``manage.py bench_hot_paths --seeded NAME --empty NAME``: every hot path timed on
a seeded database against an almost empty one in the same run (see
``tools/hot_paths.py``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.test.utils import override_settings

from tools.hot_paths import run


class Command(BaseCommand):
    help = "Time the hot paths (move, lobby, event log, player pages, boards, stream snapshot, admin, login)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--seeded", required=True, help="The seeded database's name (seed_site).")
        parser.add_argument("--empty", required=True, help="The almost empty database's name (a small seed_site).")
        parser.add_argument("--rounds", type=int, default=4, help="Rounds over every path (default 4).")
        parser.add_argument(
            "--runs", type=int, default=25, help="Requests per path, database and round, the two in ABBA order."
        )
        parser.add_argument(
            "--warmup", type=int, default=3, help="Untimed requests of every path on each database first (default 3)."
        )
        parser.add_argument("--only", nargs="*", default=None, help="Time only these paths (their names).")
        parser.add_argument("--storage-only", action="store_true", help="Print the bytes per move and match only.")
        parser.add_argument("--explain", type=int, default=3, help="EXPLAIN the slowest statement of the worst N.")

    def handle(self, *args: Any, **options: Any) -> None:
        # No throttle applies to a scope without a rate (core.throttling): none has one here.
        rest = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}
        with override_settings(ALLOWED_HOSTS=["*"], DEBUG=False, REST_FRAMEWORK=rest):
            run(
                seeded=options["seeded"],
                empty=options["empty"],
                rounds=options["rounds"],
                runs=options["runs"],
                explain=options["explain"],
                storage_only=options["storage_only"],
                warmup=options["warmup"],
                only=options["only"],
                write=self.stdout.write,
            )
