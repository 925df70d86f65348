"""A fast simulator of the rest of a round, for strategies that search.

Fast twin of ``games.engine.Match`` (the canonical rules); ``tests/bots/test_sim.py``
keeps the two equal, move by move.

``Sim`` is one running round in the smallest form the rules need, so that a
strategy can copy it and play it out thousands of times a second:

* a tile is a small int, its index in ``full_set`` (``tile_index``);
* the open ends are only a count per pip. Two open ends that need the same pip are
  interchangeable: what may be played next, and what a play leaves, depend on the
  pips alone, never on which end (or where in the layout) a tile goes. The
  pending group - the spinner's arms, or the open foot's toes - all need one pip,
  so it is that pip and how many of its ends are still empty;
* the boneyard is a list in reverse draw order (the next tile drawn is the last);
* no events, no end ids, no log, no totals: a round's end is its scores.

The rules are exactly ``Match``'s: the same moves are legal, a move has the same
effect on hands, boneyard and (the pips of) the open ends, and a round ends at the
same point with the same scores. ``tests/bots/test_sim.py`` checks that against
``Match`` move by move, and a whole ``rollout`` by replaying its moves on ``Match``.

A move is an int: ``play_move(tile, pip)`` (``tile << 5 | pip``: the tile on an end
that needs ``pip``), ``DRAW`` or ``PASS``. ``engine_move`` turns one back into the
``Move`` of a ``Match`` (it names an open end with that pip).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from games.engine.match import PLAYING, Match
from games.engine.moves import DRAW as DRAW_TYPE
from games.engine.moves import PASS as PASS_TYPE
from games.engine.moves import PLAY, Move
from games.engine.tiles import Tile, full_set

DRAW = -1
PASS = -2

# Rollout policies (``Sim.rollout``).
GREEDY = 0  # the ``greedy`` strategy's choice: the heaviest playable tile, a coverable double a little heavier
HEAVY = 1  # the heaviest playable tile, nothing else
SMART = 2  # GREEDY, and a tile that fits two pips goes where it leaves outward a pip the seat holds more of


def tile_index(tile: Tile) -> int:
    """A tile's index in ``full_set`` (tiles are stored high half first)."""
    high, low = tile
    return high * (high + 1) // 2 + low


def play_move(tile: int, pip: int) -> int:
    return tile << 5 | pip


def move_tile(move: int) -> int:
    return move >> 5


def move_pip(move: int) -> int:
    return move & 31


@cache
def tables(set_max: int, double_blank_points: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(high, low, points)`` per tile index of a double-``set_max`` set."""
    tiles = full_set(set_max)
    high = tuple(t[0] for t in tiles)
    low = tuple(t[1] for t in tiles)
    points = tuple(double_blank_points if t == (0, 0) else t[0] + t[1] for t in tiles)
    return high, low, points


@cache
def covers(set_max: int) -> tuple[frozenset[int], ...]:
    """Per pip: the tiles that cover a double of it (the other tiles with that pip)."""
    tiles = full_set(set_max)
    return tuple(
        frozenset(i for i, (h, lo) in enumerate(tiles) if (h == pip) != (lo == pip)) for pip in range(set_max + 1)
    )


class Sim:
    """One round, for search. Build it with ``from_match`` or ``from_position``."""

    __slots__ = (
        "blank_points",
        "counts",
        "drawn",
        "ended",
        "hands",
        "high",
        "low",
        "pending",
        "pending_pip",
        "players",
        "points",
        "set_max",
        "stock",
        "turn",
        "went_out",
    )
    set_max: int
    blank_points: int
    high: tuple[int, ...]  # per tile index: its high half
    low: tuple[int, ...]
    points: tuple[int, ...]  # per tile index: what it scores left in a hand
    players: int
    hands: list[list[int]]
    stock: list[int]  # the boneyard, last drawn first
    counts: list[int]  # open ends per pip
    pending: int  # empty ends of the pending group (spinner arms, foot toes); 0: play is free
    pending_pip: int  # the pip they need (-1 when none)
    turn: int
    drawn: int  # the playable tile the seat to move drew (-1 when none)
    ended: bool
    went_out: int  # the seat that played its last tile (-1 when none)

    def __init__(self) -> None:  # pragma: no cover - use from_match / from_position / copy
        raise TypeError("build a Sim with Sim.from_match or Sim.from_position")

    @classmethod
    def from_position(
        cls,
        *,
        set_max: int,
        double_blank_points: int,
        hands: Sequence[Sequence[int]],
        boneyard: Sequence[int],
        counts: Sequence[int],
        pending: int,
        pending_pip: int,
        turn: int,
        drawn: int = -1,
    ) -> Sim:
        """A running round from its parts: tile indices, the boneyard in draw order
        (first drawn first), open ends per pip, the pending group (how many of its
        ends are empty, and their pip), the seat to move, the playable tile it drew."""
        sim = object.__new__(cls)
        sim.set_max = set_max
        sim.blank_points = double_blank_points
        sim.high, sim.low, sim.points = tables(set_max, double_blank_points)
        sim.players = len(hands)
        sim.hands = [list(h) for h in hands]
        sim.stock = list(reversed(boneyard))
        sim.counts = list(counts)
        sim.pending = pending
        sim.pending_pip = pending_pip if pending else -1
        sim.turn = turn
        sim.drawn = drawn
        sim.ended = False
        sim.went_out = -1
        return sim

    @classmethod
    def from_match(cls, match: Match) -> Sim:
        """The running round of ``match`` (which must be playing)."""
        if match.status != PLAYING:
            raise ValueError("the match is over: there is no round to simulate")
        ruleset = match.ruleset
        layout = match.layout
        counts = [0] * (ruleset.set_max + 1)
        for pip in layout.ends.values():
            counts[pip] += 1
        pending = layout.pending
        return cls.from_position(
            set_max=ruleset.set_max,
            double_blank_points=ruleset.double_blank_points,
            hands=[[tile_index(t) for t in hand] for hand in match.hands],
            boneyard=[tile_index(t) for t in match.boneyard],
            counts=counts,
            pending=len(pending),
            pending_pip=layout.ends[pending[0]] if pending else -1,
            turn=match.turn,
            drawn=-1 if match.drawn is None else tile_index(match.drawn),
        )

    def copy(self) -> Sim:
        sim = object.__new__(Sim)
        sim.set_max = self.set_max
        sim.blank_points = self.blank_points
        sim.high = self.high
        sim.low = self.low
        sim.points = self.points
        sim.players = self.players
        sim.hands = [h.copy() for h in self.hands]
        sim.stock = self.stock.copy()
        sim.counts = self.counts.copy()
        sim.pending = self.pending
        sim.pending_pip = self.pending_pip
        sim.turn = self.turn
        sim.drawn = self.drawn
        sim.ended = self.ended
        sim.went_out = self.went_out
        return sim

    # -- queries ------------------------------------------------------------
    @property
    def boneyard(self) -> list[int]:
        """The boneyard in draw order (first drawn first)."""
        return self.stock[::-1]

    def playable_pips(self) -> list[int]:
        if self.pending:
            return [self.pending_pip]
        return [pip for pip, count in enumerate(self.counts) if count]

    def can_play(self, tile: int) -> bool:
        high, low = self.high[tile], self.low[tile]
        if self.pending:
            return self.pending_pip in (high, low)
        return self.counts[high] > 0 or self.counts[low] > 0

    def plays(self, tiles: Sequence[int]) -> list[int]:
        """Every play of these tiles: one per (tile, pip of an end it fits)."""
        moves = []
        high, low = self.high, self.low
        if self.pending:
            pip = self.pending_pip
            for t in tiles:
                if high[t] == pip or low[t] == pip:
                    moves.append(t << 5 | pip)
            return moves
        counts = self.counts
        for t in tiles:
            h, lo = high[t], low[t]
            if counts[h]:
                moves.append(t << 5 | h)
            if lo != h and counts[lo]:
                moves.append(t << 5 | lo)
        return moves

    def legal_moves(self) -> list[int]:
        """What the seat to move may do, like ``Match.legal_moves`` with the plays of
        a tile on ends of one pip counted once."""
        if self.ended:
            return []
        if self.drawn >= 0:
            return [*self.plays((self.drawn,)), PASS]
        plays = self.plays(self.hands[self.turn])
        if plays:
            return plays
        return [DRAW] if self.stock else [PASS]

    def blocked(self) -> bool:
        return not any(self.can_play(t) for hand in self.hands for t in hand)

    def scores(self) -> list[int]:
        """Each seat's pips left in hand (the round's scores once it has ended)."""
        points = self.points
        return [sum(points[t] for t in hand) for hand in self.hands]

    # -- moves --------------------------------------------------------------
    def apply(self, move: int) -> None:
        """Make the seat to move's ``move``, one of ``legal_moves()`` (not checked)."""
        seat = self.turn
        hand = self.hands[seat]
        if move >= 0:
            tile, pip = move >> 5, move & 31
            hand.remove(tile)
            self.drawn = -1
            self._place(tile, pip)
            self.turn = (seat + 1) % self.players
        elif move == DRAW:
            tile = self.stock.pop()
            hand.append(tile)
            if self.can_play(tile):
                self.drawn = tile
            else:
                self.turn = (seat + 1) % self.players
        else:
            self.drawn = -1
            self.turn = (seat + 1) % self.players
        if not hand:
            self.ended = True
            self.went_out = seat
        elif not self.stock and self.blocked():
            self.ended = True

    def _place(self, tile: int, pip: int) -> None:
        counts = self.counts
        counts[pip] -= 1
        if self.pending:
            self.pending -= 1
            if not self.pending:
                self.pending_pip = -1
        high, low = self.high[tile], self.low[tile]
        outer = low if high == pip else high
        if high == low:
            counts[outer] += 3
            self.pending = 3
            self.pending_pip = outer
        else:
            counts[outer] += 1

    # -- one move at a time (for searching the searcher's own later choices) -----
    def policy_move(self, rng: random.Random, policy: int = GREEDY) -> int:
        """The move ``rollout`` would make for the seat to move (one of ``legal_moves``)."""
        if self.drawn >= 0:
            t = self.drawn
        else:
            hand, high, low, points, counts = self.hands[self.turn], self.high, self.low, self.points, self.counts
            t, weight = -1, -1
            pending, pip_pending = self.pending, self.pending_pip
            for u in hand:
                if pending:
                    if (high[u] == pip_pending or low[u] == pip_pending) and points[u] > weight:
                        t, weight = u, points[u]
                elif counts[high[u]] or counts[low[u]]:
                    w = points[u]
                    if policy != HEAVY and high[u] == low[u]:
                        d = high[u]
                        w += 3 * min(3, len(covers(self.set_max)[d].intersection(hand)))
                    if w > weight:
                        t, weight = u, w
            if t < 0:
                return DRAW if self.stock else PASS
        h, lo = self.high[t], self.low[t]
        if self.pending:
            return t << 5 | self.pending_pip
        if self.counts[h] and self.counts[lo] and h != lo:
            return t << 5 | (h if rng.random() < 0.5 else lo)
        return t << 5 | (h if self.counts[h] else lo)

    def advance(self, seat: int, rng: random.Random, policy: int = GREEDY) -> list[int]:
        """Play the others by ``policy`` (and ``seat``'s forced moves) until ``seat``
        has a choice; its choices then (``legal_moves``), or [] once the round ended.

        The same moves, drawing the same random numbers, as ``policy_move`` and
        ``apply`` one at a time (``tests/bots/test_sim.py`` keeps them equal), in
        ``rollout``'s inlined loop: it runs in every play-out of the tree search.
        Once the boneyard is empty the round ends, as in ``rollout``, when every
        seat in a row had to pass."""
        if self.ended:
            return []
        hands, counts, stock = self.hands, self.counts, self.stock
        high, low, points = self.high, self.low, self.points
        players, turn, pending, pip_pending = self.players, self.turn, self.pending, self.pending_pip
        drawn, passes, rand = self.drawn, 0, rng.random
        cover = covers(self.set_max)
        while True:
            hand = hands[turn]
            best = -1
            if drawn >= 0:
                if turn == seat:
                    break  # play the drawn tile or pass: a choice
                best, drawn = drawn, -1
            else:
                weight = -1
                if pending:
                    found = 0
                    for t in hand:
                        if high[t] == pip_pending or low[t] == pip_pending:
                            found += 1
                            if points[t] > weight:
                                best, weight = t, points[t]
                    if turn == seat and found > 1:
                        break
                else:
                    found = 0
                    for t in hand:
                        h, lo = high[t], low[t]
                        if counts[h] or counts[lo]:
                            found += 2 if h != lo and counts[h] and counts[lo] else 1
                            w = points[t]
                            if policy != HEAVY and h == lo:
                                w += 3 * min(3, len(cover[h].intersection(hand)))
                            if w > weight:
                                best, weight = t, w
                    if turn == seat and found > 1:
                        break
                if best < 0:
                    if stock:
                        t = stock.pop()
                        hand.append(t)
                        if (
                            (high[t] == pip_pending or low[t] == pip_pending)
                            if pending
                            else (counts[high[t]] or counts[low[t]])
                        ):
                            drawn = t
                        else:
                            turn = (turn + 1) % players
                        continue
                    passes += 1  # the boneyard is empty: a pass
                    if passes >= players:
                        self.turn, self.pending, self.pending_pip = turn, pending, pip_pending
                        self.drawn, self.ended = -1, True
                        return []
                    turn = (turn + 1) % players
                    continue
            passes = 0
            hand.remove(best)
            h, lo = high[best], low[best]
            if pending:
                pip = pip_pending
                pending -= 1
            elif counts[h] and counts[lo] and h != lo:
                pip = h if rand() < 0.5 else lo  # as ``policy_move``: a random pip, whatever the policy
            else:
                pip = h if counts[h] else lo
            counts[pip] -= 1
            if h == lo:
                counts[h] += 3
                pending, pip_pending = 3, h
            else:
                counts[lo if pip == h else h] += 1
            if not pending:
                pip_pending = -1
            if not hand:
                self.turn, self.pending, self.pending_pip = (turn + 1) % players, pending, pip_pending
                self.drawn, self.ended, self.went_out = -1, True, turn
                return []
            turn = (turn + 1) % players
        self.turn, self.pending, self.pending_pip, self.drawn = turn, pending, pip_pending, drawn
        return self.legal_moves()

    # -- play-outs ----------------------------------------------------------
    def rollout(self, rng: random.Random, policy: int = GREEDY, record: list[int] | None = None) -> list[int]:
        """Play the round to its end, every seat by ``policy``, and return the scores.

        Every seat plays a playable tile when it has one, the heaviest (``GREEDY``
        and ``SMART`` also count a double it can cover with three more tiles a little
        heavier, like the ``greedy`` strategy), on a random one of the pips it fits
        (``SMART``: the one that leaves outward a pip of more of its tiles); without
        one it draws, and plays the drawn tile when it can. ``rng`` only picks
        between two pips a tile fits. ``record`` (a list) receives every move made.

        Once the boneyard is empty the round ends when every seat in a row had to
        pass: the same hands, so the same scores, as ``Match`` ending it at the
        first moment nobody can play (``record`` then ends with those passes)."""
        if self.ended:
            return self.scores()
        hands, counts, stock = self.hands, self.counts, self.stock
        high, low, points = self.high, self.low, self.points
        players, seat, pending, pip_pending = self.players, self.turn, self.pending, self.pending_pip
        drawn, passes, rand = self.drawn, 0, rng.random
        cover = covers(self.set_max)
        self.drawn = -1
        while True:
            hand = hands[seat]
            best = -1
            if drawn >= 0:
                best, drawn = drawn, -1
            else:
                weight = -1
                if pending:
                    for t in hand:
                        if (high[t] == pip_pending or low[t] == pip_pending) and points[t] > weight:
                            best, weight = t, points[t]
                else:
                    for t in hand:
                        if counts[high[t]] or counts[low[t]]:
                            w = points[t]
                            if policy != HEAVY and high[t] == low[t]:
                                d = high[t]
                                w += 3 * min(3, len(cover[d].intersection(hand)))
                            if w > weight:
                                best, weight = t, w
                if best < 0:
                    if stock:
                        t = stock.pop()
                        hand.append(t)
                        if record is not None:
                            record.append(DRAW)
                        fits = (
                            (high[t] == pip_pending or low[t] == pip_pending)
                            if pending
                            else counts[high[t]] or counts[low[t]]
                        )
                        if fits:
                            best = t
                        else:
                            seat = (seat + 1) % players
                            continue
                    else:
                        if record is not None:
                            record.append(PASS)
                        passes += 1
                        if passes >= players:
                            break
                        seat = (seat + 1) % players
                        continue
            passes = 0
            hand.remove(best)
            h, lo = high[best], low[best]
            if pending:
                pip = pip_pending
                pending -= 1
            elif counts[h] and counts[lo] and h != lo:
                if policy == SMART:
                    # Leave outward the pip of more of the tiles still in hand (on h, lo shows).
                    keep_lo = sum(1 for u in hand if high[u] == lo or low[u] == lo)
                    keep_h = sum(1 for u in hand if high[u] == h or low[u] == h)
                    pip = h if keep_lo > keep_h else lo if keep_h > keep_lo else (h if rand() < 0.5 else lo)
                else:
                    pip = h if rand() < 0.5 else lo
            else:
                pip = h if counts[h] else lo
            if record is not None:
                record.append(best << 5 | pip)
            counts[pip] -= 1
            if h == lo:
                counts[h] += 3
                pending, pip_pending = 3, h
            else:
                counts[lo if pip == h else h] += 1
            if not hand:
                self.went_out = seat
                break
            seat = (seat + 1) % players
        self.turn, self.pending, self.pending_pip, self.ended = seat, pending, pip_pending if pending else -1, True
        return [sum(points[t] for t in hand) for hand in hands]


def engine_move(match: Match, move: int) -> Move:
    """The ``Move`` of ``match`` that a ``Sim`` move of the same position stands for
    (a play goes on the first playable open end with its pip)."""
    if move == DRAW:
        return Move(DRAW_TYPE)
    if move == PASS:
        return Move(PASS_TYPE)
    tile = full_set(match.ruleset.set_max)[move >> 5]
    pip = move & 31
    layout = match.layout
    end = next(e for e in layout.playable_ends() if layout.ends[e] == pip)
    return Move(PLAY, tile, end)


def sim_move(match: Match, move: Move) -> int:
    """The ``Sim`` move a ``Move`` of ``match`` stands for."""
    if move.type == DRAW_TYPE:
        return DRAW
    if move.type == PASS_TYPE:
        return PASS
    assert move.tile is not None and move.end is not None
    return play_move(tile_index(move.tile), match.layout.ends[move.end])
