"""The arena's command line, shared by ``manage.py arena`` and ``python -m tools.arena``."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from games.engine import RulesetError

from .lineup import LineupError
from .play import MatchResult
from .report import document, summarize, table
from .runner import ArenaConfig, run
from .stats import estimate

EXAMPLES = """examples:
  arena --seats strong,greedy,greedy,greedy --matches 2000 --processes 2
  arena --seats strong,greedy --matches 400
  arena --seats strong,strong:rollouts=50,greedy,greedy --matches 400 --json out.json
  arena --report out.json      # the table of a run written with --json, again
  arena --report a.json,b.json # runs of one line-up with other seeds, as one
  arena --report new.json --against old.json   # and the first seat's strategy, paired by deal
"""


def add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--seats",
        help="The line-up: a strategy spec per seat, comma-separated (e.g. strong,greedy,greedy,greedy); "
        "a search level takes settings after a colon, separated by '+': strong:rollouts=50+policy=1.",
    )
    parser.add_argument(
        "--matches", type=int, default=100, help="Matches to play, rounded up to whole deals (default 100)."
    )
    parser.add_argument("--seed", type=int, default=1, help="Seed of the deals (default 1).")
    parser.add_argument(
        "--processes", type=int, default=os.cpu_count() or 1, help="Processes playing at once (default: every core)."
    )
    parser.add_argument("--set-max", type=int, default=9, help="Double-N set (default 9).")
    parser.add_argument("--hand-size", type=int, default=None, help="Hand size (default: the rules' table).")
    parser.add_argument("--spinner-arms", type=int, default=4, help="Spinner arms, 4 or 6 (default 4).")
    parser.add_argument("--rounds", type=int, default=None, help="Rounds per match (default: one per double).")
    parser.add_argument("--double-blank-points", type=int, default=50, help="Points of the 0-0 (default 50).")
    parser.add_argument("--json", default=None, help="Write every result and the summary to this file.")
    parser.add_argument("--quiet", action="store_true", help="No progress lines on stderr.")
    parser.add_argument(
        "--report",
        default=None,
        help="Play nothing: print the table of a run written earlier with --json (of several, comma-separated: "
        "their matches as one run).",
    )
    parser.add_argument(
        "--against",
        default=None,
        help="With --report: runs (comma-separated) of another line-up on the same seeds and ruleset; prints "
        "the first seat's strategy of --report less that of these, paired by deal: win rate per seat and "
        "points edge, with 95%% intervals.",
    )


def split_seats(text: str) -> tuple[str, ...]:
    """``a,b:x=1+y=2,c`` -> ``("a", "b:x=1,y=2", "c")`` (``+`` separates a spec's settings)."""
    return tuple(spec.strip().replace("+", ",") for spec in text.split(",") if spec.strip())


def config_from(options: dict[str, Any]) -> ArenaConfig:
    ruleset = {
        "set_max": options["set_max"],
        "hand_size": options["hand_size"],
        "spinner_arms": options["spinner_arms"],
        "rounds": options["rounds"],
        "double_blank_points": options["double_blank_points"],
    }
    return ArenaConfig(
        lineup=split_seats(options["seats"]),
        matches=options["matches"],
        seed=options["seed"],
        processes=max(1, options["processes"]),
        ruleset=ruleset,
    )


def progress_printer(write: Callable[[str], None]) -> Callable[[int, int], None]:
    start = time.monotonic()
    step = [0]

    def progress(done: int, total: int) -> None:
        tenth = math.floor(10 * done / total)
        if tenth > step[0] or done == total:
            step[0] = tenth
            write(f"arena: {done}/{total} matches, {time.monotonic() - start:.0f} s")

    return progress


def _first_seat_by_deal(paths: str) -> tuple[str, dict[str, Any], dict[tuple[int, int], tuple[float, float]]]:
    """The strategy of the line-up's first seat in runs written with ``--json``, the
    ruleset, and per deal (its run's seed, its number) that strategy's mean win share
    per seat and its points edge (the other strategies' mean points less its own)."""
    spec = ""
    ruleset: dict[str, Any] = {}
    found: dict[tuple[int, int], tuple[float, float]] = {}
    for path in [p for p in paths.split(",") if p]:
        data = json.loads(Path(path).read_text())
        settings = data["config"]
        if spec and (settings["lineup"][0] != spec or settings["ruleset"] != ruleset):
            raise ValueError(f"{path}: another line-up or ruleset than the runs before it")
        spec, ruleset = settings["lineup"][0], settings["ruleset"]
        shares: dict[int, list[float]] = defaultdict(list)
        own: dict[int, list[float]] = defaultdict(list)
        rest: dict[int, list[float]] = defaultdict(list)
        for match in data["matches"]:
            for seat, name in enumerate(match["seats"]):
                if name == spec:
                    shares[match["deal"]].append(match["shares"][seat])
                    own[match["deal"]].append(match["totals"][seat])
                else:
                    rest[match["deal"]].append(match["totals"][seat])
        for deal, values in shares.items():
            edge = math.fsum(rest[deal]) / len(rest[deal]) - math.fsum(own[deal]) / len(own[deal])
            found[settings["seed"], deal] = (math.fsum(values) / len(values), edge)
    if not spec:
        raise ValueError("--against needs a file")
    return spec, ruleset, found


def report_paired(paths: str, against: str, out: Callable[[str], None]) -> None:
    """The first seat's strategy of the runs ``paths`` less that of the runs
    ``against``, paired on the deals both played (same seed, same deal number)."""
    spec, ruleset, mine = _first_seat_by_deal(paths)
    other, other_ruleset, theirs = _first_seat_by_deal(against)
    if ruleset != other_ruleset:
        raise ValueError("--against: another ruleset than --report's")
    both = sorted(set(mine) & set(theirs))
    if len(both) < 2:
        raise ValueError("--against: fewer than two deals in common (the same seeds are needed)")
    win = estimate([mine[d][0] - theirs[d][0] for d in both])
    edge = estimate([mine[d][1] - theirs[d][1] for d in both])
    out(
        f"paired over {len(both)} deals: {spec} less {other}: win/seat {100 * win.mean:+.1f} points "
        f"[{100 * win.low:+.1f}, {100 * win.high:+.1f}], points edge {edge.mean:+.2f} [{edge.low:+.2f}, {edge.high:+.2f}]"
    )


def report_again(paths: str, out: Callable[[str], None]) -> None:
    """The table of a run that ``--json`` wrote; of several (comma-separated: runs of
    one line-up and ruleset with different seeds, played in pieces), the table of
    all their matches as one run (each run's deals are deals of their own)."""
    config: ArenaConfig | None = None
    results: list[MatchResult] = []
    seconds = 0.0
    seeds = []
    fields = ("rotation", "seats", "totals", "winners", "moves", "cpu")
    for path in [p for p in paths.split(",") if p]:
        data = json.loads(Path(path).read_text())
        settings = data["config"]
        ruleset = {k: v for k, v in settings["ruleset"].items() if k != "players"}
        if config is not None and (tuple(settings["lineup"]) != config.lineup or ruleset != config.ruleset):
            raise ValueError(f"{path}: another line-up or ruleset than the runs before it")
        offset = 1 + max((r.deal for r in results), default=-1)
        config = ArenaConfig(
            lineup=tuple(settings["lineup"]),
            matches=len(data["matches"]) + len(results),
            seed=settings["seed"] if config is None else config.seed,
            processes=settings["processes"],
            ruleset=ruleset,
        )
        results += [MatchResult(deal=offset + m["deal"], **{k: m[k] for k in fields}) for m in data["matches"]]
        seconds += data["seconds"]
        seeds.append(str(settings["seed"]))
    if config is None:
        raise ValueError("--report needs a file")
    lines = table(config, summarize(config, results), seconds)
    if len(seeds) > 1:
        lines[0] += f" (merged: {len(seeds)} runs, seeds {', '.join(seeds)}; their seconds added)"
    for line in lines:
        out(line)


def execute(options: dict[str, Any], out: Callable[[str], None], err: Callable[[str], None]) -> None:
    """Run the arena as ``options`` ask; ``ValueError`` for bad options."""
    if options.get("report"):
        report_again(options["report"], out)
        if options.get("against"):
            report_paired(options["report"], options["against"], out)
        return
    if options.get("against"):
        raise ValueError("--against needs --report")
    if not options.get("seats"):
        raise ValueError("--seats is required (or --report FILE)")
    config = config_from(options)
    try:
        config.check()
    except (LineupError, RulesetError) as error:
        raise ValueError(str(getattr(error, "message", error))) from error
    start = time.monotonic()
    results = run(config, None if options["quiet"] else progress_printer(err))
    seconds = time.monotonic() - start
    summaries = summarize(config, results)
    for line in table(config, summaries, seconds):
        out(line)
    if options["json"]:
        Path(options["json"]).write_text(json.dumps(document(config, results, summaries, seconds)))
        out(f"json: {options['json']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.arena",
        description="Play strategies against each other on the pure engine (duplicate format).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    options = vars(parser.parse_args(argv))
    try:
        execute(options, print, lambda line: print(line, file=sys.stderr))
    except ValueError as error:
        parser.error(str(error))
    return 0
