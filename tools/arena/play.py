"""One arena match: a line-up (one strategy spec per seat) on one deal (a seed),
played on the pure engine exactly as server bots play: each decision from
``seat_view`` alone, with an rng seeded per decision, so a match replays."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from games.engine import PLAYING, Match, Ruleset, seat_view

from .lineup import strategy


@dataclass(frozen=True)
class Job:
    deal: int  # the deal's number in the run
    rotation: int  # seat i plays lineup[(i + rotation) % players]
    seed: int  # the match seed: the deal of every round
    seats: tuple[str, ...]  # the spec at each seat (rotation applied)
    ruleset: dict[str, Any]


@dataclass
class MatchResult:
    deal: int
    rotation: int
    seats: list[str]
    totals: list[int]
    winners: list[int]
    moves: int
    # CPU seconds of every decision with two or more legal moves, per seat.
    cpu: list[list[float]] = field(default_factory=list)

    @property
    def shares(self) -> list[float]:
        """Each seat's share of the win: 1 for a sole winner, 1/k for k tied winners."""
        share = 1.0 / len(self.winners)
        return [share if s in self.winners else 0.0 for s in range(len(self.seats))]


def play_match(job: Job) -> MatchResult:
    ruleset = Ruleset.from_dict(job.ruleset)
    choosers = [strategy(spec) for spec in job.seats]
    match, _ = Match.new(ruleset, job.seed)
    cpu: list[list[float]] = [[] for _ in job.seats]
    clock = time.thread_time
    while match.status == PLAYING:
        seat = match.turn
        view = seat_view(match, seat)
        rng = random.Random(f"{job.seed}:{job.rotation}:{match.move_count}")
        if len(view["legal_moves"]) > 1:
            start = clock()
            move = choosers[seat](view, rng)
            cpu[seat].append(clock() - start)
        else:
            move = choosers[seat](view, rng)
        match.apply(seat, move)
    return MatchResult(
        deal=job.deal,
        rotation=job.rotation,
        seats=list(job.seats),
        totals=list(match.totals),
        winners=list(match.winners),
        moves=match.move_count,
        cpu=cpu,
    )
