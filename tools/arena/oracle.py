"""What knowing the others' hands would be worth to a search: a bound for deal models.

Run ``python -m tools.arena.oracle [--deals 250] [--seed 50000] [--spec strong]``.
One-round matches of the spec against three ``greedy`` (double-9, four players,
each deal in every rotation), played twice: the search as it is, dealing the hidden
tiles from what the seat saw (``bots.knowledge``), and an *oracle* of the same search
whose every deal gives the others their true hands (only the boneyard's order is
still shuffled). It prints each one's win share per seat and points edge (the
others' mean points less its own, per round), and the oracle's gain paired by deal
with a 95% interval.

No strategy of the server sees hidden tiles: this only measures. A better model of
the deal - the others' plays read as evidence, deals weighed by how likely they
made what was seen - can win at most the gap between the two rows; ``docs/bots.md``
("A fourth attempt") has the figures.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import bots.search
from bots.knowledge import Knowledge
from bots.sim import Sim, tile_index
from bots.strategies import choose_greedy
from games.engine import PLAYING, Match, Ruleset, seat_view

from .cli import split_seats
from .lineup import strategy
from .stats import estimate

PLAYERS = 4


def oracle_knowledge(match: Match) -> type[Knowledge]:
    """``Knowledge`` whose samples deal every hand as it is in ``match`` (the
    boneyard's tiles too, in a random order)."""

    class Oracle(Knowledge):
        def sample(self, rng: random.Random) -> Sim:
            boneyard = [tile_index(t) for t in match.boneyard]
            rng.shuffle(boneyard)
            return self.position([[tile_index(t) for t in hand] for hand in match.hands], boneyard)

    return Oracle


@contextmanager
def seeing(match: Match) -> Iterator[None]:
    """While inside, the search (``bots.search.search_move``) deals ``match``'s true hands."""
    names = vars(bots.search)  # the module's namespace: search_move looks Knowledge up there
    original = names["Knowledge"]
    names["Knowledge"] = oracle_knowledge(match)
    try:
        yield
    finally:
        names["Knowledge"] = original


def play_round(spec: str, seed: int, seat: int, oracle: bool) -> tuple[float, float]:
    """One round of ``spec`` at ``seat`` against three ``greedy``: its win share and
    its points edge (the others' mean points less its own)."""
    choose = strategy(spec)
    match, _ = Match.new(Ruleset(set_max=9, players=PLAYERS, rounds=1), seed)
    while match.status == PLAYING:
        turn = match.turn
        view = seat_view(match, turn)
        rng = random.Random(f"{seed}:{seat}:{match.move_count}")
        if turn != seat:
            move = choose_greedy(view, rng)
        elif oracle:
            with seeing(match):
                move = choose(view, rng)
        else:
            move = choose(view, rng)
        match.apply(turn, move)
    totals = match.totals
    others = [totals[s] for s in range(PLAYERS) if s != seat]
    share = 1.0 / len(match.winners) if seat in match.winners else 0.0
    return share, sum(others) / len(others) - totals[seat]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.arena.oracle", description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=250, help="Deals, each played in every rotation (default 250).")
    parser.add_argument("--seed", type=int, default=50000, help="Seed of the first deal (default 50000).")
    parser.add_argument("--spec", default="strong", help="A search level, as the arena's --seats (default strong).")
    options = parser.parse_args(argv)
    (spec,) = split_seats(options.spec)
    rows: dict[bool, list[tuple[float, float]]] = {}
    seconds: dict[bool, float] = {}
    for oracle in (False, True):
        start = time.process_time()
        per_deal = []
        for deal in range(options.deals):
            results = [play_round(spec, options.seed + deal, seat, oracle) for seat in range(PLAYERS)]
            per_deal.append((sum(r[0] for r in results) / PLAYERS, sum(r[1] for r in results) / PLAYERS))
        rows[oracle] = per_deal
        seconds[oracle] = time.process_time() - start
    print(
        f"{options.deals} deals x {PLAYERS} rotations, one round each (double-9, {PLAYERS} players), "
        f"seed {options.seed}: {spec.replace(',', '+')} against three greedy"
    )
    print(f"{'':<16} {'win/seat':>9} {'points edge':>12} {'cpu s':>8}")
    for oracle, label in ((False, "own deals"), (True, "true hands")):
        win = estimate([w for w, _ in rows[oracle]])
        edge = estimate([e for _, e in rows[oracle]])
        print(f"{label:<16} {100 * win.mean:8.1f}% {edge.mean:+12.2f} {seconds[oracle]:8.0f}")
    paired_win = estimate([b[0] - a[0] for a, b in zip(rows[False], rows[True], strict=True)])
    paired_edge = estimate([b[1] - a[1] for a, b in zip(rows[False], rows[True], strict=True)])
    print(
        f"true hands less own deals: win {100 * paired_win.mean:+.1f} points "
        f"[{100 * paired_win.low:+.1f}, {100 * paired_win.high:+.1f}], "
        f"edge {paired_edge.mean:+.2f} [{paired_edge.low:+.2f}, {paired_edge.high:+.2f}]"
    )


if __name__ == "__main__":
    main()
