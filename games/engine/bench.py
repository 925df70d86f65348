"""Benchmark: random full matches (4 players, double-9, 10 rounds) on one core.

Run ``python -m games.engine.bench [seconds]``. Prints matches per second and, as the
last line, ``moves_per_second: N`` (moves made by players: plays, draws, passes;
each one includes listing the legal moves it was chosen from).
"""

from __future__ import annotations

import random
import sys
import time

from .match import PLAYING, Match
from .ruleset import Ruleset


def play_random_match(seed: int, ruleset: Ruleset) -> int:
    """Play one match with uniformly random legal moves; return how many moves it took."""
    chooser = random.Random(seed)
    match, _ = Match.new(ruleset, seed)
    while match.status == PLAYING:
        moves = match.legal_moves()
        match.apply(match.turn, chooser.choice(moves))
    return match.move_count


def main(argv: list[str]) -> None:
    seconds = float(argv[0]) if argv else 5.0
    ruleset = Ruleset(set_max=9, players=4)
    matches = moves = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        moves += play_random_match(matches, ruleset)
        matches += 1
    print(f"ruleset: double-{ruleset.set_max}, {ruleset.players} players, {ruleset.round_count} rounds")
    print(f"matches: {matches} in {elapsed:.2f} s")
    print(f"matches_per_second: {matches / elapsed:.1f}")
    print(f"moves_per_match: {moves / matches:.1f}")
    print(f"moves_per_second: {round(moves / elapsed)}")


if __name__ == "__main__":
    main(sys.argv[1:])
