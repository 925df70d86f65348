"""docs/rules.md, sections "Objective" and "Winning": one test per rule, each tie-break
both through ``decide_winners`` and through a real played match."""

from __future__ import annotations

from functools import cache

import pytest

from games.engine import PLAYING, TIE_BREAKS, Match, Ruleset, decide_winners

from .helpers import blocked_match, free_match, play


def expected_winners(round_scores: list[list[int]]) -> tuple[list[int], str]:
    """The Winning section read literally, independently of the engine's code."""
    seats = list(range(len(round_scores[0])))
    totals = {s: sum(r[s] for r in round_scores) for s in seats}
    tied = [s for s in seats if totals[s] == min(totals.values())]
    if len(tied) == 1:
        return tied, "lowest_total"
    zeros = {s: [r[s] for r in round_scores].count(0) for s in tied}
    tied = [s for s in tied if zeros[s] == max(zeros.values())]
    if len(tied) == 1:
        return tied, "most_zero_rounds"
    lowest = {s: min([r[s] for r in round_scores if r[s]] or [10**9]) for s in tied}
    tied = [s for s in tied if lowest[s] == min(lowest.values())]
    if len(tied) == 1:
        return tied, "lowest_nonzero_round"
    return tied, "shared"


@cache
def played_match_decided_by(tie_break: str) -> Match:
    """The first seed whose whole match (3 players, double-6, 2 rounds, always the
    first listed legal move) is decided by ``tie_break``. Searched, not hard-coded,
    so the tests do not depend on the shuffle's details."""
    ruleset = Ruleset(set_max=6, players=3, rounds=2)
    for seed in range(3000):
        match, _ = Match.new(ruleset, seed)
        while match.status == PLAYING:
            match.apply(match.turn, match.legal_moves()[0])
        if match.tie_break == tie_break:
            return match
    raise AssertionError(f"no seed gives {tie_break}")  # pragma: no cover


def replayed_events(match: Match) -> list[dict]:
    """The events of the match's last round (its log), which holds match_ended."""
    return match.log


def test_objective_fewest_points() -> None:
    """ "Have the **fewest points** when the last round ends.\""""
    match = free_match(["4-1", "3-2"], ["5-2"])
    events = play(match, "5-2", "e5")
    assert events[-1]["type"] == "match_ended"
    assert match.totals == [10, 0] and match.winners == [1]


def test_lowest_total_wins() -> None:
    """ "After the last round the player with the lowest total wins.\""""
    assert decide_winners([[10, 0], [0, 20]], [10, 20]) == ([0], "lowest_total")
    assert decide_winners([[5, 3, 9]], [5, 3, 9]) == ([1], "lowest_total")
    match = played_match_decided_by("lowest_total")
    assert match.winners == [match.totals.index(min(match.totals))]


def test_tie_most_zero_point_rounds_wins() -> None:
    """ "Tie: the tied player with the **most zero-point rounds** wins.\""""
    assert decide_winners([[0, 5], [10, 5]], [10, 10]) == ([0], "most_zero_rounds")
    # Seat 2 has the most zeros of all but is not tied for the lowest total.
    assert decide_winners([[0, 4, 0], [8, 4, 0], [0, 0, 30]], [8, 8, 30]) == ([0], "most_zero_rounds")
    match = played_match_decided_by("most_zero_rounds")
    scores = [r["scores"] for r in match.rounds]
    assert len(set(sorted(match.totals)[:2])) == 1  # a real tie on the lowest total
    assert (match.winners, match.tie_break) == expected_winners(scores)


def test_still_tied_lowest_non_zero_round_wins() -> None:
    """ "Still tied: the tied player whose **lowest non-zero round score** is smallest wins.\""""
    assert decide_winners([[3, 5], [7, 5]], [10, 10]) == ([0], "lowest_nonzero_round")
    # Zero rounds are skipped when looking for the lowest non-zero score.
    assert decide_winners([[0, 0], [9, 2], [1, 8]], [10, 10]) == ([0], "lowest_nonzero_round")
    match = played_match_decided_by("lowest_nonzero_round")
    assert (match.winners, match.tie_break) == expected_winners([r["scores"] for r in match.rounds])


def test_still_tied_the_tied_players_share_the_win() -> None:
    """ "Still tied: the tied players share the win.\""""
    assert decide_winners([[5, 5], [5, 5]], [10, 10]) == ([0, 1], "shared")
    assert decide_winners([[0, 0]], [0, 0]) == ([0, 1], "shared")
    # Seat 3 is not tied; seat 2 is tied on total but has fewer zero rounds.
    assert decide_winners([[0, 0, 5, 6], [4, 4, 5, 6], [6, 6, 0, 0]], [10, 10, 10, 12]) == ([0, 1], "shared")
    match = played_match_decided_by("shared")
    assert len(match.winners) >= 2
    assert (match.winners, match.tie_break) == expected_winners([r["scores"] for r in match.rounds])


def test_shared_win_in_a_one_round_set_up_match() -> None:
    """A set-up position ending in a block with 49 pips in each hand (the double-blank
    counting 25): equal totals, no zero rounds, equal lowest round - a shared win."""
    match, events = blocked_match(
        ["3-3", "4-0", "4-1", "4-2", "4-3", "4-4", "6-0"],
        ["1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1"],
        draws=["3-2", "6-1", "0-0"],
        double_blank_points=25,
    )
    assert events[-2]["type"] == "round_ended" and events[-2]["scores"] == [49, 49]
    assert events[-1]["type"] == "match_ended"
    assert (events[-1]["winners"], events[-1]["tie_break"]) == ([0, 1], "shared")
    assert (match.winners, match.tie_break) == ([0, 1], "shared")


def test_lowest_total_in_a_one_round_set_up_match() -> None:
    _match, events = blocked_match(
        ["3-3", "4-0", "4-1", "4-2", "4-3", "4-4", "6-0"],
        ["1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1"],
        draws=["3-2", "6-1", "0-0"],
    )
    assert events[-2]["scores"] == [49, 74]
    assert (events[-1]["winners"], events[-1]["tie_break"]) == ([0], "lowest_total")


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_match_ended_event_names_winners_tie_break_and_seed(tie_break: str) -> None:
    """The match_ended event carries the totals, the winners, the rule that decided it
    and the seed ("when the game ends, the seed")."""
    match = played_match_decided_by(tie_break)
    ended = replayed_events(match)[-1]
    assert ended == {
        "type": "match_ended",
        "totals": match.totals,
        "winners": match.winners,
        "tie_break": tie_break,
        "seed": match.seed,
        "round": 2,
    }
    assert match.totals == [sum(r["scores"][s] for r in match.rounds) for s in range(3)]
