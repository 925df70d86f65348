"""``chickenfoot-bot``: run a ``choose`` function as a bot on a Chicken Foot server.

    chickenfoot-bot --url http://127.0.0.1:8000 --token cf_... mybot:choose                   # every game of yours
    chickenfoot-bot --token cf_... --new-vs-bots 3 mybot:choose   # open a table against 3 server bots, play it, exit
    chickenfoot-bot --token cf_... --join 42 mybot:choose         # take a seat in game 42, play it, exit
    chickenfoot-bot --token cf_... --games 10 mybot:choose        # stop after 10 games have ended
    chickenfoot-bot --token cf_... --accept-challenges mybot:choose   # also accept every challenge it gets

BOT is ``module:function`` (the current directory is searched first) or
``path/to/file.py:function``; ``:function`` defaults to ``:choose``.

An account and a token first (docs/bots.md), the password asked for (or
CHICKENFOOT_PASSWORD):

    chickenfoot-bot register mybot --url http://127.0.0.1:8000   # a new account, and a token for it
    chickenfoot-bot token mybot --name laptop                     # another token for an account
"""

from __future__ import annotations

import argparse
import getpass
import importlib
import importlib.util
import logging
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from chickenfoot_bot.api import ApiError, Client
from chickenfoot_bot.runner import Choose, Runner

log = logging.getLogger("chickenfoot_bot")


def load_choose(spec: str) -> Choose:
    """``"mybot:choose"`` or ``"bots/mybot.py:choose"`` -> the function."""
    target, _, name = spec.partition(":")
    name = name or "choose"
    if target.endswith(".py"):
        path = Path(target).resolve()
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise SystemExit(f"cannot load {target}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[path.stem] = module
        module_spec.loader.exec_module(module)
    else:
        sys.path.insert(0, os.getcwd())
        module = importlib.import_module(target)
    choose = getattr(module, name, None)
    if not callable(choose):
        raise SystemExit(f"{target} has no function {name}()")
    return choose


def open_table(client: Client, opponents: int, *, strategy: str, set_max: int, rounds: int | None) -> int:
    """Create a table for us and ``opponents`` server bots, start it; its id."""
    ruleset: dict[str, Any] = {"set_max": set_max, "players": opponents + 1}
    if rounds:
        ruleset["rounds"] = rounds
    game_id: int = client.post("/games/", {"ruleset": ruleset})["game"]["id"]
    for _ in range(opponents):
        client.post(f"/games/{game_id}/bots/", {"strategy": strategy})
    client.post(f"/games/{game_id}/start/")
    log.info("game %d started: seat 0 against %d %s bot(s), double-%d", game_id, opponents, strategy, set_max)
    return game_id


def join(client: Client, game_id: int) -> None:
    try:
        client.post(f"/games/{game_id}/join/")
        log.info("joined game %d; it starts when its creator starts it", game_id)
    except ApiError as error:
        if error.code != "already_seated":
            raise
        log.info("already seated at game %d", game_id)


ACCOUNT_COMMANDS = ("register", "token")


def account_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="chickenfoot-bot", description="An account and API tokens for your bot.")
    p.add_argument("command", choices=ACCOUNT_COMMANDS, help="register: a new account and a token; token: a token")
    p.add_argument("username")
    p.add_argument("--url", default=os.environ.get("CHICKENFOOT_URL", "http://127.0.0.1:8000"))
    p.add_argument("--name", default="chickenfoot-bot", help="what to call the token (GET /api/v1/tokens/ lists it)")
    return p


def password_for(username: str, *, confirm: bool) -> str:
    """CHICKENFOOT_PASSWORD, or asked for at the terminal (twice for a new account)."""
    password = os.environ.get("CHICKENFOOT_PASSWORD")
    if password:
        return password
    password = getpass.getpass(f"password for {username}: ")
    if confirm and getpass.getpass("the same again: ") != password:
        raise SystemExit("chickenfoot-bot: the two passwords differ")
    return password


def account_main(argv: list[str]) -> int:
    """``register`` / ``token``: prints the server's URL and the token (shown this once) as
    ``export`` lines."""
    args = account_parser().parse_args(argv)
    client = Client(args.url, "", max_attempts=1)  # anonymous; a 429 is reported, not waited out
    password = password_for(args.username, confirm=args.command == "register")
    try:
        if args.command == "register":
            client.post("/players/", {"username": args.username, "password": password})
            print(f"registered {args.username} on {args.url}", file=sys.stderr)
        issued = client.post("/tokens/", {"username": args.username, "password": password, "name": args.name})
    except ApiError as error:
        print(f"chickenfoot-bot {args.command}: {error}", file=sys.stderr)
        for field, messages in error.body.get("errors", {}).items():
            print(f"  {field}: {' '.join(messages)}", file=sys.stderr)
        if error.code == "rate_limited" and args.command == "register":
            print("  (a local server takes more with THROTTLE_REGISTER=1000/hour: docs/bots.md)", file=sys.stderr)
        return 1
    # Two lines to paste (or to eval): the runner then needs neither --url nor --token.
    print(f"export CHICKENFOOT_URL={shlex.quote(args.url)}")
    print(f"export CHICKENFOOT_TOKEN={issued['token']}")
    print(
        "# the token is shown this once: keep it. Paste the two export lines, then play a game against three "
        "server bots:\n#   chickenfoot-bot --new-vs-bots 3 --rounds 1 examples/kit_bot.py:choose",
        file=sys.stderr,
    )
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="chickenfoot-bot", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("bot", metavar="BOT", help="module:function (or file.py:function) taking a GameState")
    p.add_argument("--url", default=os.environ.get("CHICKENFOOT_URL", "http://127.0.0.1:8000"))
    p.add_argument("--token", default=os.environ.get("CHICKENFOOT_TOKEN"), help="API token (or CHICKENFOOT_TOKEN)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--new-vs-bots", type=int, metavar="N", help="open a table against N server bots and play it")
    mode.add_argument("--join", type=int, metavar="GAME_ID", help="take a seat in this game and play it")
    mode.add_argument("--games", type=int, metavar="N", help="stop after N of your games have ended")
    p.add_argument(
        "--accept-challenges",
        action="store_true",
        help="accept every challenge this account is invited to (POST /challenges/{id}/accept/)",
    )
    p.add_argument("--strategy", default="greedy", help="the server bots' strategy (GET /api/v1/bots/)")
    p.add_argument("--set-max", type=int, default=6, help="the new table's double-N set (6, 9, 12, 15, 18)")
    p.add_argument("--rounds", type=int, help="the new table plays only its first N rounds")
    p.add_argument("-q", "--quiet", action="store_true", help="log only warnings and errors")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ACCOUNT_COMMANDS:
        return account_main(argv)
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        datefmt="%H:%M:%S",
    )
    if not args.token:
        raise SystemExit("chickenfoot-bot: a token is needed (--token or CHICKENFOOT_TOKEN)")
    choose = load_choose(args.bot)
    client = Client(args.url, args.token)
    started = time.monotonic()
    try:
        game_id = args.join
        if args.new_vs_bots is not None:
            game_id = open_table(
                client, args.new_vs_bots, strategy=args.strategy, set_max=args.set_max, rounds=args.rounds
            )
        elif game_id is not None:
            join(client, game_id)
        runner = Runner(client, choose, game_id=game_id, games=args.games, accept_challenges=args.accept_challenges)
        ended = runner.run()
    except ApiError as error:
        log.error("%s", error)
        return 1
    except KeyboardInterrupt:
        return 130
    log.info("%d game(s) over, %d moves of ours, in %.1f s", len(ended), runner.moves, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
