"""What the move's lock costs PostgreSQL: the one statement that locks a game and
reads what a change needs with it (``games.services.commit._lock_with_seats``:
the row, its creator, its seats and their players, an Idempotency-Key's move, the
snapshot check) against the game's row alone locked, and the bare write's lock
(``tools.loadtest.bare``), each in its own transaction, alternating.

    DATABASE_URL=postgres://... python tools/lock_statement_bench.py [--transactions 3000]

Run it on the load test's database after a load test (it needs a running game and
a bare table: ``manage.py loadtest --compare-bare`` leaves both). Prints the
server process's CPU per transaction (from /proc, so the database must be on this
machine), median of three alternating runs; begin and commit are in every figure."""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transactions", type=int, default=3000, help="per statement and run (default 3000)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "tools.loadtest.bare.settings"
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        parser.error("set DATABASE_URL=postgres://... (the load test's database)")

    import django

    django.setup()
    from django.db import connection, transaction

    from games.models import Game
    from games.services.commit import _lock_with_seats_sql
    from tools.loadtest.bare.models import BareTable

    game_id = Game.objects.filter(status="running").order_by("-seq").values_list("id", flat=True).first()
    bare = BareTable.objects.values_list("id", "owner_id").first()
    if game_id is None or bare is None:
        parser.error("no running game or no bare table here: run manage.py loadtest --compare-bare on it first")
    games, tables = (connection.ops.quote_name(m._meta.db_table) for m in (Game, BareTable))
    statements: dict[str, tuple[str, list[Any]]] = {
        "move_lock": (_lock_with_seats_sql()[0], [None, "", game_id]),
        "game_row_alone": (f"SELECT g.* FROM {games} g WHERE g.id = %s FOR UPDATE OF g", [game_id]),
        "bare_lock": (f"SELECT * FROM {tables} WHERE owner_id = %s AND id = %s LIMIT 1 FOR UPDATE", [bare[1], bare[0]]),
    }

    def server_cpu() -> float:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    runs: dict[str, list[float]] = {name: [] for name in statements}
    for rep in range(3):
        order = list(statements.items())
        for name, (sql, params) in order if rep % 2 == 0 else order[::-1]:
            for _ in range(50):  # prepared, cached, warm
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute(sql, params)
            before = server_cpu()
            for _ in range(args.transactions):
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute(sql, params)
                    cursor.fetchone()
            runs[name].append((server_cpu() - before) / args.transactions * 1000)
    for name, values in runs.items():
        print(f"{name}_pg_ms_per_transaction: {statistics.median(values):.3f} ({' '.join(f'{v:.3f}' for v in values)})")


if __name__ == "__main__":
    main()
