"""The rating arithmetic, pure Python: a finished match's standings and
openskill's Plackett-Luce update. No Django here.

Standings (``standings``): seats without an account (nameless server bots) are
left out; a seat that forfeited - resigned, was handed to a bot (``resigned``),
went ``away`` after repeated timeouts, or timed out at least once - is ranked last,
tied with the other forfeits; the others are ranked winners first (the engine's
``result.winners``, which already applied the tie-breaks of docs/rules.md), then by
total points (lower is better), equal totals sharing a place (1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

#: openskill's Plackett-Luce with its default parameters: mu 25, sigma 25/3,
#: beta 25/6, tau 25/300 (the additive dynamics that keeps sigma from collapsing).
MODEL = PlackettLuce()

#: A rating counts as provisional until this many rated matches: with sigma
#: still wide, its ordinal (mu - 3 sigma) says little yet.
PROVISIONAL_GAMES = 10

#: The ordinal's spread: mu - Z * sigma.
Z = 3.0


def ordinal(mu: float, sigma: float) -> float:
    return mu - Z * sigma


def initial() -> tuple[float, float]:
    """(mu, sigma) of an account's first rating in a pool."""
    return MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Placing:
    """One rated seat's place in a finished match."""

    seat: int
    rank: int  # 1 = first; ties share (1, 2, 2, 4)
    won: bool  # a winner of the match that did not forfeit
    forfeit: bool


def standings(
    *,
    rated_seats: Sequence[int],
    totals: Sequence[int],
    winners: Collection[int],
    forfeits: Collection[int],
) -> list[Placing]:
    """The places of ``rated_seats`` (the seats held by accounts), in their order."""
    playing = [s for s in rated_seats if s not in forfeits]

    def key(seat: int) -> tuple[int, int]:
        return (0 if seat in winners else 1, totals[seat])

    ordered = sorted(playing, key=key)
    ranks: dict[int, int] = {}
    for index, seat in enumerate(ordered):
        previous = ordered[index - 1] if index else None
        ranks[seat] = ranks[previous] if previous is not None and key(previous) == key(seat) else index + 1
    last = len(playing) + 1
    return [
        Placing(
            seat=s,
            rank=ranks.get(s, last),
            won=s in ranks and s in winners,
            forfeit=s in forfeits,
        )
        for s in rated_seats
    ]


def rate(ratings: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) for each (mu, sigma) of ``ratings`` after a free-for-all
    match in which they placed ``ranks`` (lower is better, equal is a tie)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    result = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in result]
