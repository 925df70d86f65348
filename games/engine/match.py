"""A Chicken Foot match: rounds, turns, drawing, passing, scoring, the winner.

``Match`` is a plain mutable object. ``apply`` validates a move completely before
it changes anything, so a refused move (``RuleError``) leaves the match exactly as
it was; an accepted one returns the public events it caused. Randomness comes only
from the match's seed (one ``random.Random`` per round, derived from the seed and
the round's index), so ruleset + seed + set-up + move list replay a match exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import RuleError, RulesetError
from .layout import Layout
from .moves import DRAW, DRAW_MOVE, PASS_MOVE, PLAY, Move, end_text
from .ruleset import Ruleset
from .tiles import Tile, full_set, parse_tile, tile_points, tile_text

PLAYING = "playing"
ENDED = "ended"

STATE_VERSION = 1

# Why a round ended.
DOMINO = "domino"
BLOCKED = "blocked"

# Which rule decided the match.
TIE_BREAKS = ("lowest_total", "most_zero_rounds", "lowest_nonzero_round", "shared")


@dataclass(frozen=True)
class Setup:
    """A given position for the first round: the hands, and optionally the boneyard
    in draw order (first drawn first). Without a boneyard the remaining tiles are
    shuffled into it from the seed."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...] | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], ruleset: Ruleset) -> Setup:
        def tiles(values: Any, what: str) -> tuple[Tile, ...]:
            if not isinstance(values, (list, tuple)):
                raise RulesetError("invalid_setup", f'{what} must be a list of tiles like "9-4".')
            try:
                return tuple(parse_tile(v, ruleset.set_max) for v in values)
            except RuleError as exc:
                raise RulesetError("invalid_setup", f"{what}: {exc.message}") from None

        if not isinstance(data, Mapping) or not isinstance(data.get("hands"), (list, tuple)):
            raise RulesetError(
                "invalid_setup", 'A set-up is {"hands": [[tiles of seat 0], ...], "boneyard": [tiles] or omitted}.'
            )
        unknown = sorted(set(data) - {"hands", "boneyard"})
        if unknown:
            raise RulesetError("invalid_setup", f"Unknown set-up field(s): {', '.join(unknown)}.")
        hands = tuple(tiles(h, f"hand of seat {i}") for i, h in enumerate(data["hands"]))
        boneyard = tiles(data["boneyard"], "boneyard") if data.get("boneyard") is not None else None
        setup = cls(hands, boneyard)
        setup.validate(ruleset)
        return setup

    def validate(self, ruleset: Ruleset) -> None:
        if len(self.hands) != ruleset.players:
            raise RulesetError(
                "invalid_setup", f"The set-up has {len(self.hands)} hands for {ruleset.players} players."
            )
        for seat, hand in enumerate(self.hands):
            if not hand:
                raise RulesetError("invalid_setup", f"The hand of seat {seat} is empty.")
        given = [t for h in self.hands for t in h] + list(self.boneyard or ())
        seen: set[Tile] = set()
        for tile in given:
            if tile in seen:
                raise RulesetError("invalid_setup", f"{tile_text(tile)} appears more than once.")
            if tile[0] > ruleset.set_max:
                raise RulesetError("invalid_setup", f"{tile_text(tile)} is not in a double-{ruleset.set_max} set.")
            seen.add(tile)
        if self.boneyard is not None and len(seen) != ruleset.tile_count:
            missing = [tile_text(t) for t in full_set(ruleset.set_max) if t not in seen]
            raise RulesetError(
                "invalid_setup", f"Hands and boneyard must hold the whole set; missing: {', '.join(missing)}."
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [[tile_text(t) for t in h] for h in self.hands],
            "boneyard": None if self.boneyard is None else [tile_text(t) for t in self.boneyard],
        }


class Match:
    """The whole state of a match. Create with ``Match.new``; restore with ``from_dict``."""

    def __init__(self, ruleset: Ruleset, seed: int, setup: Setup | None = None) -> None:
        self.ruleset = ruleset
        self.seed = seed
        self.setup = setup
        self.players = ruleset.players
        self.status = PLAYING
        self.move_count = 0
        # The running round.
        self.round_index = 0
        self.hands: list[list[Tile]] = []
        self.boneyard: list[Tile] = []
        self.layout = Layout()
        self.turn = 0
        self.starter = 0
        self.drawn: Tile | None = None  # a drawn, playable tile the seat may play or pass on
        self.log: list[dict[str, Any]] = []  # this round's public events
        # Results so far.
        self.rounds: list[dict[str, Any]] = []  # one summary per finished round
        self.totals = [0] * ruleset.players
        self.winners: list[int] = []
        self.tie_break: str | None = None

    # -- creation -------------------------------------------------------------
    @classmethod
    def new(
        cls, ruleset: Ruleset, seed: int, setup: Setup | Mapping[str, Any] | None = None
    ) -> tuple[Match, list[dict[str, Any]]]:
        """Deal round 1 (placing its spinner). Returns the match and the opening events."""
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise RulesetError("invalid_setup", f"The seed must be a non-negative whole number (got {seed!r}).")
        if setup is not None and not isinstance(setup, Setup):
            setup = Setup.from_dict(setup, ruleset)
        elif setup is not None:
            setup.validate(ruleset)
        match = cls(ruleset, seed, setup)
        events: list[dict[str, Any]] = []
        match._start_round(0, events)
        return match, events

    @classmethod
    def replay(
        cls,
        ruleset: Ruleset,
        seed: int,
        moves: Iterable[tuple[int, Move | Mapping[str, Any]]],
        setup: Setup | Mapping[str, Any] | None = None,
    ) -> Match:
        """Rebuild a match from its record: every ``(seat, move)`` in order."""
        match, _ = cls.new(ruleset, seed, setup)
        for seat, move in moves:
            match.apply(seat, move)
        return match

    # -- queries --------------------------------------------------------------
    @property
    def round_number(self) -> int:
        return self.round_index + 1

    @property
    def phase(self) -> str:
        """``spinner`` / ``foot`` while a group of ends must be filled first, else ``free``."""
        return self.layout.pending_kind or "free"

    def _plays(self, hand: Sequence[Tile]) -> list[Move]:
        layout = self.layout
        ends = layout.ends
        by_pip: dict[int, list[int]] = {}
        for end in layout.pending or ends:
            by_pip.setdefault(ends[end], []).append(end)
        moves = []
        for tile in hand:
            high, low = tile
            for end in by_pip.get(high, ()):
                moves.append(Move(PLAY, tile, end))
            if low != high:
                for end in by_pip.get(low, ()):
                    moves.append(Move(PLAY, tile, end))
        return moves

    def _can_play(self, hand: Sequence[Tile]) -> bool:
        layout = self.layout
        ends = layout.ends
        pips = {ends[e] for e in layout.pending} if layout.pending else set(ends.values())
        return any(h in pips or lo in pips for h, lo in hand)

    def legal_moves(self, seat: int | None = None) -> list[Move]:
        """Every move the seat to move may make (nothing for another seat or after the end)."""
        if self.status != PLAYING or (seat is not None and seat != self.turn):
            return []
        if self.drawn is not None:
            return [*self._plays((self.drawn,)), PASS_MOVE]
        plays = self._plays(self.hands[self.turn])
        if plays:
            return plays
        return [DRAW_MOVE] if self.boneyard else [PASS_MOVE]

    # -- moves ----------------------------------------------------------------
    def apply(self, seat: int, move: Move | Mapping[str, Any]) -> list[dict[str, Any]]:
        """Make ``seat``'s move, or raise ``RuleError`` and change nothing."""
        move = Move.from_dict(move, self.ruleset.set_max)
        if self.status != PLAYING:
            raise RuleError("match_over", "The match is over: no more moves.")
        if seat != self.turn:
            raise RuleError("not_your_turn", f"It is seat {self.turn}'s turn, not seat {seat}'s.")
        events: list[dict[str, Any]] = []
        if move.type == PLAY:
            self._play(seat, move, events)
        elif move.type == DRAW:
            self._draw(seat, events)
        else:
            self._pass(seat, events)
        self.move_count += 1
        if not self.hands[seat]:
            self._end_round(DOMINO, seat, events)
        elif not self.boneyard and self._blocked():
            self._end_round(BLOCKED, None, events)
        return events

    def _emit(self, events: list[dict[str, Any]], event: dict[str, Any]) -> None:
        event["round"] = self.round_index + 1
        events.append(event)
        self.log.append(dict(event))  # the caller's copy may be changed; the log's may not

    def _play(self, seat: int, move: Move, events: list[dict[str, Any]]) -> None:
        tile, end = move.tile, move.end
        assert tile is not None and end is not None
        hand = self.hands[seat]
        if self.drawn is not None and tile != self.drawn:
            raise RuleError(
                "must_play_drawn_tile",
                f"After drawing you may only play the drawn tile {tile_text(self.drawn)}, or pass.",
            )
        if tile not in hand:
            raise RuleError("tile_not_in_hand", f"{tile_text(tile)} is not in your hand.")
        outer = self.layout.check_play(tile, end)
        hand.remove(tile)
        self.drawn = None
        new_ends, change = self.layout.place(tile, end, outer, seat)
        self._emit(
            events,
            {
                "type": "tile_played",
                "seat": seat,
                "tile": tile_text(tile),
                "end": end_text(end),
                "outer": outer,
                "new_ends": [end_text(e) for e in new_ends],
            },
        )
        if change == "foot_opened":
            self._emit(
                events,
                {
                    "type": "foot_opened",
                    "seat": seat,
                    "double": tile_text(tile),
                    "toes": [end_text(e) for e in new_ends],
                },
            )
        elif change is not None:
            self._emit(events, {"type": change, "seat": seat})
        self.turn = (seat + 1) % self.players

    def _draw(self, seat: int, events: list[dict[str, Any]]) -> None:
        if self.drawn is not None:
            raise RuleError("already_drew", f"You already drew {tile_text(self.drawn)}: play it or pass.")
        hand = self.hands[seat]
        if self._can_play(hand):
            raise RuleError("must_play", "You hold a playable tile, so you must play it; drawing is refused.")
        if not self.boneyard:
            raise RuleError("boneyard_empty", "The boneyard is empty: you cannot play, so pass.")
        tile = self.boneyard.pop(0)
        hand.append(tile)
        self._emit(events, {"type": "drew", "seat": seat, "boneyard_size": len(self.boneyard)})
        if self._can_play((tile,)):
            self.drawn = tile
        else:
            self._emit(events, {"type": "passed", "seat": seat, "reason": "drawn_tile_unplayable"})
            self.turn = (seat + 1) % self.players

    def _pass(self, seat: int, events: list[dict[str, Any]]) -> None:
        if self.drawn is not None:
            reason = "declined_drawn_tile"
        elif self._can_play(self.hands[seat]):
            raise RuleError("must_play", "You hold a playable tile, so you must play it; passing is refused.")
        elif self.boneyard:
            raise RuleError("must_draw", "You cannot play, but the boneyard is not empty: draw first.")
        else:
            reason = "no_play"
        self.drawn = None
        self._emit(events, {"type": "passed", "seat": seat, "reason": reason})
        self.turn = (seat + 1) % self.players

    def _blocked(self) -> bool:
        return not any(self._can_play(hand) for hand in self.hands)

    # -- rounds ---------------------------------------------------------------
    def _deal(self, index: int) -> None:
        ruleset = self.ruleset
        rng = random.Random(f"chickenfoot:{self.seed}:{index}")
        if index == 0 and self.setup is not None:
            self.hands = [list(h) for h in self.setup.hands]
            if self.setup.boneyard is not None:
                self.boneyard = list(self.setup.boneyard)
            else:
                held = {t for h in self.hands for t in h}
                self.boneyard = [t for t in full_set(ruleset.set_max) if t not in held]
                rng.shuffle(self.boneyard)
            return
        tiles = list(full_set(ruleset.set_max))
        rng.shuffle(tiles)
        size = ruleset.effective_hand_size
        self.hands = [tiles[i * size : (i + 1) * size] for i in range(self.players)]
        self.boneyard = tiles[self.players * size :]

    def _start_round(self, index: int, events: list[dict[str, Any]]) -> None:
        draw_from = 0 if index == 0 else (self.starter + 1) % self.players
        self.round_index = index
        self.layout = Layout()
        self.drawn = None
        self.log = []
        self._deal(index)
        pip = self.ruleset.starting_double(index)
        double = (pip, pip)
        self._emit(
            events,
            {
                "type": "round_started",
                "starting_double": tile_text(double),
                "hand_sizes": [len(h) for h in self.hands],
                "boneyard_size": len(self.boneyard),
            },
        )
        holder = next((s for s, h in enumerate(self.hands) if double in h), None)
        seat = draw_from
        while holder is None:
            tile = self.boneyard.pop(0)
            self.hands[seat].append(tile)
            self._emit(
                events, {"type": "drew", "seat": seat, "boneyard_size": len(self.boneyard), "for_starting_double": True}
            )
            if tile == double:
                holder = seat
            seat = (seat + 1) % self.players
        self.hands[holder].remove(double)
        arms = self.layout.place_spinner(pip, holder, self.ruleset.spinner_arms)
        self.starter = holder
        self.turn = (holder + 1) % self.players
        self._emit(
            events,
            {"type": "spinner_placed", "seat": holder, "tile": tile_text(double), "arms": [end_text(e) for e in arms]},
        )
        if not self.hands[holder]:
            self._end_round(DOMINO, holder, events)
        elif not self.boneyard and self._blocked():
            self._end_round(BLOCKED, None, events)

    def hand_points(self, seat: int) -> int:
        points = self.ruleset.double_blank_points
        return sum(tile_points(t, points) for t in self.hands[seat])

    def _end_round(self, reason: str, went_out: int | None, events: list[dict[str, Any]]) -> None:
        scores = [self.hand_points(s) for s in range(self.players)]
        for seat, score in enumerate(scores):
            self.totals[seat] += score
        self.drawn = None
        summary = {
            "number": self.round_index + 1,
            "starting_double": tile_text((self.ruleset.starting_double(self.round_index),) * 2),
            "starter": self.starter,
            "reason": reason,
            "went_out": went_out,
            "hands": [[tile_text(t) for t in h] for h in self.hands],
            "scores": scores,
        }
        self.rounds.append(summary)
        self._emit(events, {"type": "round_ended", **summary, "totals": list(self.totals)})
        if self.round_index + 1 < self.ruleset.round_count:
            self._start_round(self.round_index + 1, events)
        else:
            self.status = ENDED
            self.winners, self.tie_break = decide_winners([r["scores"] for r in self.rounds], self.totals)
            self._emit(
                events,
                {
                    "type": "match_ended",
                    "totals": list(self.totals),
                    "winners": list(self.winners),
                    "tie_break": self.tie_break,
                    "seed": self.seed,
                },
            )

    # -- copying --------------------------------------------------------------
    def copy(self) -> Match:
        """An independent copy, exactly equal (``to_dict``), for search: what either
        one does next leaves the other as it was. Much cheaper than ``copy.deepcopy``:
        what is never changed in place once made - the ruleset, the set-up, tiles,
        layout nodes, the events in ``log`` and the summaries in ``rounds`` - is
        shared; every container a move changes is copied."""
        match = Match.__new__(Match)
        match.ruleset = self.ruleset
        match.seed = self.seed
        match.setup = self.setup
        match.players = self.players
        match.status = self.status
        match.move_count = self.move_count
        match.round_index = self.round_index
        match.hands = [hand.copy() for hand in self.hands]
        match.boneyard = self.boneyard.copy()
        match.layout = self.layout.copy()
        match.turn = self.turn
        match.starter = self.starter
        match.drawn = self.drawn
        match.log = self.log.copy()
        match.rounds = self.rounds.copy()
        match.totals = self.totals.copy()
        match.winners = self.winners.copy()
        match.tie_break = self.tie_break
        return match

    # -- persistence ----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (hidden parts included: never show it raw).

        A snapshot: later moves do not change it. Like ``copy``, it shares what is
        never changed in place once made - the events in ``log`` and the summaries
        in ``rounds`` (each list is new; a move appends to the match's own) - so a
        caller must not change those dicts either. Copying each of them was a
        measurable share of every move (docs/performance.md)."""
        return {
            "version": STATE_VERSION,
            "ruleset": self.ruleset.to_dict(),
            "seed": self.seed,
            "setup": None if self.setup is None else self.setup.to_dict(),
            "status": self.status,
            "move_count": self.move_count,
            "round_index": self.round_index,
            "hands": [[tile_text(t) for t in h] for h in self.hands],
            "boneyard": [tile_text(t) for t in self.boneyard],
            "layout": self.layout.to_dict(),
            "turn": self.turn,
            "starter": self.starter,
            "drawn": None if self.drawn is None else tile_text(self.drawn),
            "log": list(self.log),
            "rounds": list(self.rounds),
            "totals": list(self.totals),
            "winners": list(self.winners),
            "tie_break": self.tie_break,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """The match ``data`` (``to_dict``'s) describes. It takes ``data``'s event and
        round dicts as they are (see ``to_dict``): a state loaded to be played on is
        not changed by its caller afterwards."""
        if data.get("version") != STATE_VERSION:
            raise RulesetError("invalid_state", f"State version {data.get('version')!r} is not {STATE_VERSION}.")
        ruleset = Ruleset.from_dict(data["ruleset"])
        setup = None if data["setup"] is None else Setup.from_dict(data["setup"], ruleset)
        match = cls(ruleset, data["seed"], setup)
        match.status = data["status"]
        match.move_count = data["move_count"]
        match.round_index = data["round_index"]
        match.hands = [[parse_tile(t) for t in h] for h in data["hands"]]
        match.boneyard = [parse_tile(t) for t in data["boneyard"]]
        match.layout = Layout.from_dict(data["layout"])
        match.turn = data["turn"]
        match.starter = data["starter"]
        match.drawn = None if data["drawn"] is None else parse_tile(data["drawn"])
        match.log = list(data["log"])
        match.rounds = list(data["rounds"])
        match.totals = list(data["totals"])
        match.winners = list(data["winners"])
        match.tie_break = data["tie_break"]
        return match


def decide_winners(round_scores: Sequence[Sequence[int]], totals: Sequence[int]) -> tuple[list[int], str]:
    """Lowest total wins; ties go to most zero-point rounds, then to the smallest
    non-zero round score; players still tied share the win."""
    seats = range(len(totals))
    best = min(totals)
    tied = [s for s in seats if totals[s] == best]
    if len(tied) == 1:
        return tied, "lowest_total"
    zeros = {s: sum(1 for r in round_scores if r[s] == 0) for s in tied}
    most = max(zeros.values())
    tied = [s for s in tied if zeros[s] == most]
    if len(tied) == 1:
        return tied, "most_zero_rounds"
    lowest = {s: min((r[s] for r in round_scores if r[s] > 0), default=float("inf")) for s in tied}
    smallest = min(lowest.values())
    tied = [s for s in tied if lowest[s] == smallest]
    if len(tied) == 1:
        return tied, "lowest_nonzero_round"
    return tied, "shared"
