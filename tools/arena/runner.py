"""The arena's schedule and its pool of processes.

Duplicate format: ``matches`` is rounded up to whole deals; every deal (a match
seed: the hands of all its rounds) is played once per rotation of the line-up, so
each strategy sits at every seat of every deal it plays. Deal seeds come from the
run's seed, so a run replays exactly (CPU times aside).
"""

from __future__ import annotations

import math
import multiprocessing
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.engine import Ruleset

from .lineup import parse_spec
from .play import Job, MatchResult, play_match


@dataclass(frozen=True)
class ArenaConfig:
    lineup: tuple[str, ...]  # a strategy spec per seat
    matches: int = 100
    seed: int = 1
    processes: int = 1
    ruleset: dict[str, Any] = field(default_factory=dict)  # settings but ``players`` (the line-up's length)

    @property
    def players(self) -> int:
        return len(self.lineup)

    @property
    def rotations(self) -> int:
        return self.players

    @property
    def deals(self) -> int:
        return max(1, math.ceil(self.matches / self.rotations))

    def full_ruleset(self) -> Ruleset:
        """The ruleset, validated (``RulesetError`` for a bad one)."""
        return Ruleset.from_dict({**self.ruleset, "players": self.players})

    def check(self) -> None:
        """Refuse a bad line-up or ruleset before any process starts."""
        if len(self.lineup) < 2:
            raise ValueError("a line-up needs two seats or more")
        for spec in self.lineup:
            parse_spec(spec)
        self.full_ruleset()


def schedule(config: ArenaConfig) -> list[Job]:
    """Every deal once per rotation, deal after deal."""
    ruleset = config.full_ruleset().to_dict()
    seeds = random.Random(f"arena:{config.seed}")
    jobs = []
    players = config.players
    for deal in range(config.deals):
        seed = seeds.getrandbits(48)
        for rotation in range(config.rotations):
            seats = tuple(config.lineup[(seat + rotation) % players] for seat in range(players))
            jobs.append(Job(deal, rotation, seed, seats, ruleset))
    return jobs


def run(config: ArenaConfig, progress: Callable[[int, int], None] | None = None) -> list[MatchResult]:
    """Play the whole schedule (``processes`` at a time); results in schedule order."""
    config.check()
    jobs = schedule(config)
    results: list[MatchResult] = []
    if config.processes <= 1:
        for job in jobs:
            results.append(play_match(job))
            if progress is not None:
                progress(len(results), len(jobs))
    else:
        with multiprocessing.get_context("fork").Pool(config.processes) as pool:
            for result in pool.imap_unordered(play_match, jobs, chunksize=1):
                results.append(result)
                if progress is not None:
                    progress(len(results), len(jobs))
    results.sort(key=lambda r: (r.deal, r.rotation))
    return results
