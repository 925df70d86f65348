"""The CPU of one move in-process, against the bare locked write, and where it goes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cf_profile REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python tools/move_profile.py [--moves 600] [--profile real|bare] [--top 25] [--dump FILE]

Both requests go through Django's whole WSGI stack in this process (its WSGI
handler, called as a server calls it: every middleware, DRF, the token
authentication, the rate limit, the service, PostgreSQL and Redis), without the HTTP server and the load generator
that ``manage.py loadtest --compare-bare`` adds: the real move path
(``POST /api/v1/games/<id>/moves/``, 2-player double-9 games, a legal move worked
out beforehand) and the bare locked write (``tools.loadtest.bare``), in
alternating batches. It prints the CPU time (``time.process_time``) per request
of each, mean and median, and their ratio; ``--profile`` then profiles that many
more requests of one of them with cProfile on the same clock and prints the
functions with the most CPU, by cumulative and by own time. The database is
migrated first (the bare app's table too); what the run makes stays there (use
a database of its own).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=600, help="requests of each kind measured (default 600)")
    parser.add_argument("--profile", choices=("real", "bare"), help="then profile this many requests of one kind")
    parser.add_argument("--top", type=int, default=25, help="functions shown per profile table (default 25)")
    parser.add_argument(
        "--dump", metavar="FILE", help="also write the profile there (pstats format, for callers/callees)"
    )
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "tools.loadtest.bare.settings"
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("THROTTLE_MOVES", "1000000/minute")  # counted (its cost is in), never refused
    os.environ.setdefault("THROTTLE_USER", "1000000/minute")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        parser.error("set DATABASE_URL=postgres://... (a database of its own)")

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", run_syncdb=True, verbosity=0)
    real, bare = _requests()
    for request in (real, bare):  # warm up: connections, caches, code paths
        for _ in range(50):
            request()
    times: dict[str, list[float]] = {"real": [], "bare": []}
    batch = max(1, args.moves // 6)
    for turn in range(6):
        order = (("bare", bare), ("real", real)) if turn % 2 == 0 else (("real", real), ("bare", bare))
        for name, request in order:
            times[name] += [request() for _ in range(batch)]
    for name, values in times.items():
        print(
            f"{name}: {statistics.mean(values) * 1000:.3f} ms CPU per request (mean), "
            f"{statistics.median(values) * 1000:.3f} ms (median), {len(values)} requests"
        )
    print(f"ratio real/bare: {statistics.mean(times['real']) / statistics.mean(times['bare']):.2f} (mean)")
    if args.profile:
        request = real if args.profile == "real" else bare
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        for _ in range(args.moves):
            request()
        profile.disable()
        stats = pstats.Stats(profile)
        if args.dump:
            stats.dump_stats(args.dump)
        for key in ("cumulative", "tottime"):
            print(f"\n{args.profile}, {args.moves} requests, by {key} CPU:")
            stats.sort_stats(key).print_stats(args.top)


def _requests() -> tuple[Callable[[], float], Callable[[], float]]:
    """(a real move, a bare write): each makes one request and returns its CPU seconds."""
    from django.test import RequestFactory
    from django.test.client import ClientHandler

    from games import services as games
    from games.engine import Match
    from games.models import Game
    from players import services as players

    tag = secrets.token_hex(4)
    users = [players.user_register(username=f"profile-{tag}-{i}", password=f"profile {tag} passphrase") for i in (0, 1)]
    auth = [f"Bearer {players.token_create(user=u, name='profile').secret}" for u in users]
    handler, factory = ClientHandler(enforce_csrf_checks=False), RequestFactory()

    def post(seat: int, path: str, body: str) -> tuple[int, bytes]:
        """Through Django's WSGI handler as a server calls it (the test client would tie
        each response to itself, keeping it for the garbage collector)."""
        environ = factory.post(path, body, content_type="application/json", HTTP_AUTHORIZATION=auth[seat]).environ
        response = handler(environ)
        return response.status_code, b"".join(response)

    def new_game() -> int:
        game = games.game_create(creator=users[0], ruleset={"set_max": 9, "players": 2})
        games.game_join(game_id=game.pk, player=users[1])
        games.game_start(game_id=game.pk, by=users[0])
        return game.pk

    current = {"game": new_game()}

    def real() -> float:
        game = Game.objects.only("seq", "state", "status").get(pk=current["game"])
        if game.status != "running":
            current["game"] = new_game()
            game = Game.objects.only("seq", "state", "status").get(pk=current["game"])
        match = Match.from_dict(game.state)
        body = json.dumps({**match.legal_moves()[0].to_dict(), "expected_seq": game.seq})
        started = time.process_time()
        status, content = post(match.turn, f"/api/v1/games/{game.pk}/moves/", body)
        spent = time.process_time() - started
        assert status == 201, content[:300]
        return spent

    table = json.loads(post(0, "/api/v1/loadtest/bare/", "{}")[1])
    seq = {"now": table["seq"]}

    def bare() -> float:
        body = json.dumps({"expected_seq": seq["now"], "tile": "9-4"})
        started = time.process_time()
        status, content = post(0, f"/api/v1/loadtest/bare/{table['id']}/moves/", body)
        spent = time.process_time() - started
        assert status == 201, content[:300]
        seq["now"] += 1
        return spent

    return real, bare


if __name__ == "__main__":
    main()
