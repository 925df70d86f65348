"""What one seat knows of a running round, and positions sampled to fit it.

A strategy that searches has to guess the hidden tiles: the other hands and the
boneyard. ``Knowledge.from_view`` reads a seat's view (``seat_view``: its own hand,
hand and boneyard sizes, and the round's public history - nothing hidden) and
``sample`` deals the hidden tiles at random so that everything public still holds:

* the tiles in the layout and in the seat's hand are nobody else's;
* every hand has its size, the boneyard its size;
* each time a seat had no play - it drew, or passed with an empty boneyard - it
  held no tile matching a pip it could have played on (the spinner's arms or the
  open foot's toes while they came first, else any open end);
* a drawn tile that it passed on at once could not be played either; one it
  declined (or has not decided on yet) could; one it played at once is known.

What a seat holds now is its dealt tiles (with those drawn for the starting
double) and its drawn ones, less the tiles it played. Which of its tiles were
held at each of those moments depends on which ones it played, which nobody sees.
So each seat is a list of *slots*, one per tile it was dealt or drew, each with the
condition its tile had to meet; the tiles it played fill some slots (a matching:
each played tile into a slot it could have come from, ``_match_plays``) and the
hidden tiles fill the rest. Every sample is a possible deal: ``world`` returns the
whole deal and draw order behind a sample, and ``tests/bots/test_knowledge.py``
replays the public history on it with ``Match`` and gets the same events.

Samples are consistent, not weighted by how likely each deal is given how the
others chose their moves: ``likelihood`` gives that weight, for a model of the
others as the ``greedy`` rule (they shed their heaviest playable tile).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from bots.sim import Sim, tables
from games.engine.ruleset import Ruleset
from games.engine.tiles import Tile, full_set

# What a drawn tile turned out to be (a draw slot's condition).
_UNPLAYABLE = 0  # passed on at once: it matched no playable pip
_KEPT_PLAYABLE = 1  # declined, or not decided yet: it matched one
_PLAYED = 2  # played at once: known

E0 = -1  # the slot group of the tiles held when the spinner was placed
_NOW = 1 << 62  # a time later than any event: "held now"
_GOOD_KEPT = 16  # profile choices that dealt once, kept to be tried first


@dataclass
class _Draw:
    time: int  # index of the "drew" event in the round's history
    pips: int  # bit mask of the pips the seat could have played on
    outcome: int = _KEPT_PLAYABLE
    tile: int = -1  # when played at once


@dataclass
class _SeatFacts:
    seat: int
    size: int  # tiles held now
    dealt: int  # tiles held once the spinner was placed (slot group E0)
    draws: list[_Draw] = field(default_factory=list)
    plays: list[tuple[int, int]] = field(default_factory=list)  # (time, tile) of plays not made at once after a draw
    no_plays: list[tuple[int, int]] = field(default_factory=list)  # (time, pip mask): drew or passed for want of a play


@dataclass(frozen=True)
class Profile:
    """One way a seat's played tiles fill its slots: which slots hold its tiles now
    (``groups``: allowed-tile bit mask and count, for the dealt slots and each kept
    draw) and, for ``world``, which slot each played tile came from."""

    groups: tuple[tuple[int, int, int], ...]  # (slot: E0 or draw number, allowed tiles mask, count)
    played_from: tuple[tuple[int, int], ...]  # (tile, slot)


@dataclass(frozen=True)
class World:
    """A whole deal behind a sample: the hands as dealt at the round's start and the
    boneyard in draw order (the draws for the starting double first)."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]


@dataclass
class _Deal:
    profiles: dict[int, Profile]
    groups: list[tuple[int, int, int, int]]  # (seat, slot, allowed tiles mask, count)
    tiles: list[list[int]]  # per group
    boneyard: list[int]


class NoConsistentDeal(Exception):
    """No deal fits the view: the view is not one the engine produced."""


@cache
def _tile_index(set_max: int) -> dict[str, int]:
    """Tile text -> index in ``full_set``."""
    return {f"{h}-{lo}": i for i, (h, lo) in enumerate(full_set(set_max))}


@cache
def _with_pip(set_max: int) -> tuple[int, ...]:
    """Per pip, the bit mask of the tiles that have it."""
    tiles = full_set(set_max)
    return tuple(sum(1 << i for i, t in enumerate(tiles) if pip in t) for pip in range(set_max + 1))


class Knowledge:
    """The public facts of a round as one seat sees them; ``sample`` deals the rest."""

    def __init__(self, view: Mapping[str, Any], rng: random.Random | None = None) -> None:
        ruleset = Ruleset.from_dict(view["ruleset"])
        self.ruleset = ruleset
        self.set_max = set_max = ruleset.set_max
        self.players = players = ruleset.players
        self.seat: int = view["seat"]
        self.others = [s for s in range(players) if s != self.seat]
        self.turn: int = view["turn"]
        tiles = full_set(set_max)
        index = _tile_index(set_max)
        self.index = index
        self.hand = [index[t] for t in view["hand"]]
        drawn = view.get("drawn_tile")
        self.drawn = index[drawn] if drawn is not None else -1
        self.hand_sizes: list[int] = list(view["hand_sizes"])
        self.boneyard_size: int = view["boneyard_size"]
        self.all_tiles = (1 << len(tiles)) - 1  # bit masks of tiles: bit i is tile i of full_set
        self._with_any_cache: dict[int, int] = {}
        self._evidence: list[tuple[int, int]] | None = None
        self._facts(view["history"])
        pool = set(range(len(tiles))) - set(self.hand) - set(self.laid)
        self.pool = sorted(pool)
        self.pool_mask = sum(1 << t for t in self.pool)
        hidden = sum(self.hand_sizes) - len(self.hand) + self.boneyard_size
        if len(self.pool) != hidden:
            raise NoConsistentDeal(f"{len(self.pool)} unseen tiles for {hidden} hidden places")
        self._rng = rng if rng is not None else random.Random(0)
        self.profiles: dict[int, list[Profile]] = {}
        self._good: dict[tuple[int, ...], list[dict[int, Profile]]] = {}
        # sample's quick path: profile choices (one index per other seat) that dealt, and their plans.
        self._quick_good: list[tuple[int, ...]] = []
        self._plans: dict[tuple[int, ...], tuple[list[tuple[int, int, int]], list[tuple[int, int]]]] = {}

    @classmethod
    def from_view(cls, view: Mapping[str, Any], rng: random.Random | None = None) -> Knowledge:
        return cls(view, rng)

    # -- reading the history ------------------------------------------------------
    def _facts(self, history: Sequence[Mapping[str, Any]]) -> None:
        index, players = self.index, self.players
        ends: dict[str, int] = {}
        pending: set[str] = set()
        dealt = [0] * players
        start_draws = [0] * players
        self.start_order: list[int] = []  # seats that drew for the starting double, in order
        self.draw_order: list[tuple[int, int]] = []  # (seat, draw number) of the other draws, in order
        facts = [_SeatFacts(s, self.hand_sizes[s], 0) for s in range(players)]
        self.laid: list[int] = []
        self.holder = -1
        self.spinner = -1
        last: tuple[int, _Draw] | None = None  # a playable drawn tile not yet played or declined
        choices: list[tuple[int, int, int, int]] = []  # (seat, time, tile, playable pips) of chosen plays

        def playable_pips() -> int:
            mask = 0
            for end in pending or ends:
                mask |= 1 << ends[end]
            return mask

        for time, event in enumerate(history):
            kind = event["type"]
            if kind == "tile_played":
                seat, tile = event["seat"], index[event["tile"]]
                if last is not None and last[0] == seat:
                    last[1].outcome, last[1].tile = _PLAYED, tile
                else:
                    facts[seat].plays.append((time, tile))
                    choices.append((seat, time, tile, playable_pips()))
                last = None
                end = event["end"]
                del ends[end]
                pending.discard(end)
                for new in event["new_ends"]:
                    ends[new] = event["outer"]
                self.laid.append(tile)
            elif kind == "drew":
                seat = event["seat"]
                if event.get("for_starting_double"):
                    start_draws[seat] += 1
                    self.start_order.append(seat)
                    continue
                mask = playable_pips()
                draw = _Draw(time, mask)
                self.draw_order.append((seat, len(facts[seat].draws)))
                facts[seat].draws.append(draw)
                facts[seat].no_plays.append((time, mask))
                last = (seat, draw)
            elif kind == "passed":
                seat, reason = event["seat"], event["reason"]
                if reason == "drawn_tile_unplayable":
                    assert last is not None and last[0] == seat
                    last[1].outcome = _UNPLAYABLE
                elif reason == "no_play":
                    facts[seat].no_plays.append((time, playable_pips()))
                last = None
            elif kind == "spinner_placed":
                self.holder, tile = event["seat"], index[event["tile"]]
                self.spinner = tile
                self.laid.append(tile)
                pip = int(event["tile"].split("-")[0])
                for arm in event["arms"]:
                    ends[arm] = pip
                pending = set(event["arms"])
            elif kind == "foot_opened":
                pending = set(event["toes"])
            elif kind == "round_started":
                dealt = list(event["hand_sizes"])
        for seat, fact in enumerate(facts):
            fact.dealt = dealt[seat] + start_draws[seat] - (seat == self.holder)
        self.facts = facts
        self._choices = choices
        self.ends_count = [0] * (self.set_max + 1)
        for pip in ends.values():
            self.ends_count[pip] += 1
        self.pending = len(pending)
        self.pending_pip = ends[next(iter(pending))] if pending else -1

    # -- the opponent model ---------------------------------------------------------
    def greedy_evidence(self) -> list[tuple[int, int]]:
        """What the others' chosen plays say of their hands, if they shed their
        heaviest playable tile like ``greedy``: ``(seat, tiles)`` per play that a
        heavier playable tile would have beaten, ``tiles`` the bit mask of those
        tiles. Only plays after which the seat drew nothing count: every tile it
        holds now was held then. A play made at once after a draw was no choice.
        Heavier is surely heavier: more points than the tile played (a double played
        counts its largest cover bonus, ``greedy``'s 9)."""
        found = self._evidence
        if found is not None:
            return found
        _, _, points = tables(self.set_max, self.ruleset.double_blank_points)
        tiles = full_set(self.set_max)
        found = []
        for seat, time, tile, pips in self._choices:
            if seat == self.seat or any(draw.time > time for draw in self.facts[seat].draws):
                continue
            high, low = tiles[tile]
            weight = points[tile] + (9 if high == low else 0)
            heavier = sum(1 << u for u in range(len(tiles)) if points[u] > weight)
            beaten = heavier & self._with_any(pips) & self.pool_mask
            if beaten:
                found.append((seat, beaten))
        self._evidence = found
        return found

    def likelihood(self, sim: Sim, slip: float) -> float:
        """How likely the others' chosen plays were on the deal ``sim``, relative to a
        deal where each was ``greedy``'s: ``slip`` (0 to 1) per play where a seat
        held a playable tile surely heavier than the one it played."""
        weight = 1.0
        evidence = self._evidence if self._evidence is not None else self.greedy_evidence()
        if not evidence:
            return weight
        masks: dict[int, int] = {}
        for seat, beaten in evidence:
            held = masks.get(seat)
            if held is None:
                held = 0
                for t in sim.hands[seat]:
                    held |= 1 << t
                masks[seat] = held
            if held & beaten:
                weight *= slip
        return weight

    # -- slots ----------------------------------------------------------------------
    def _with_any(self, pips: int) -> int:
        """Tiles with a pip in the mask ``pips``."""
        mask = self._with_any_cache.get(pips)
        if mask is None:
            with_pip = _with_pip(self.set_max)
            mask = 0
            for pip in range(self.set_max + 1):
                if pips >> pip & 1:
                    mask |= with_pip[pip]
            self._with_any_cache[pips] = mask
        return mask

    def _slot_allows(self, fact: _SeatFacts, slot: int, until: int) -> int:
        """The tiles that slot ``slot`` (E0 or a draw number) may have held from its
        start up to time ``until`` (the tile was played then, or is held now)."""
        if slot == E0:
            start, allowed = -1, self.all_tiles
        else:
            draw = fact.draws[slot]
            start = draw.time
            matches = self._with_any(draw.pips)
            allowed = matches if draw.outcome == _KEPT_PLAYABLE else self.all_tiles & ~matches
        avoid = 0
        for time, pips in fact.no_plays:
            if start < time < until:
                avoid |= pips
        return allowed & ~self._with_any(avoid)

    def _match_plays(self, fact: _SeatFacts, rng: random.Random) -> dict[int, int] | None:
        """A random matching of the seat's played tiles (by position in ``plays``) to
        slots they may have come from (each slot one tile, the dealt ones E0
        ``dealt``), by augmenting paths; None if there is none."""
        kept = [d for d, draw in enumerate(fact.draws) if draw.outcome != _PLAYED]
        options: list[list[int]] = []
        for time, tile in fact.plays:
            fits = [s for s in [E0, *kept] if (s == E0 or fact.draws[s].time < time)]
            fits = [s for s in fits if self._slot_allows(fact, s, time) >> tile & 1]
            rng.shuffle(fits)
            options.append(fits)
        capacity = {E0: fact.dealt, **{d: 1 for d in kept}}
        owners: dict[int, list[int]] = {s: [] for s in capacity}

        def augment(play: int, seen: set[int]) -> bool:
            for slot in options[play]:
                if slot in seen:
                    continue
                seen.add(slot)
                if len(owners[slot]) < capacity[slot]:
                    owners[slot].append(play)
                    return True
                for i, other in enumerate(owners[slot]):
                    if augment(other, seen):
                        owners[slot][i] = play
                        return True
            return False

        order = list(range(len(fact.plays)))
        rng.shuffle(order)
        for play in order:
            if not augment(play, set()):
                return None
        return {play: slot for slot, plays in owners.items() for play in plays}

    def _profile(self, fact: _SeatFacts, matching: dict[int, int]) -> Profile:
        """The profile a matching leaves: the slots no played tile took hold the seat's tiles now."""
        used = {E0: 0}
        for slot in matching.values():
            used[slot] = used.get(slot, 0) + 1
        groups = []
        if fact.dealt - used[E0]:
            groups.append((E0, self._slot_allows(fact, E0, _NOW), fact.dealt - used[E0]))
        for d, draw in enumerate(fact.draws):
            if draw.outcome != _PLAYED and d not in used:
                groups.append((d, self._slot_allows(fact, d, _NOW), 1))
        played_from = tuple((fact.plays[p][1], slot) for p, slot in sorted(matching.items()))
        return Profile(tuple(groups), played_from)

    def seat_profiles(self, seat: int) -> list[Profile]:
        """Distinct ways the seat's played tiles may fill its slots (a few, found by
        randomised matchings; every one is possible)."""
        found = self.profiles.get(seat)
        if found is not None:
            return found
        fact = self.facts[seat]
        kept = sum(1 for d in fact.draws if d.outcome != _PLAYED)
        tries = 1 if kept == 0 else 8
        seen: dict[tuple[tuple[int, int, int], ...], Profile] = {}
        for _ in range(tries):
            matching = self._match_plays(fact, self._rng)
            if matching is None:
                break
            profile = self._profile(fact, matching)
            seen.setdefault(profile.groups, profile)
        if not seen:
            raise NoConsistentDeal(f"the tiles seat {seat} played fit none of its slots")
        found = list(seen.values())
        self.profiles[seat] = found
        return found

    # -- dealing ----------------------------------------------------------------------
    def _fill(
        self, groups: Sequence[tuple[int, int, int, int]], pool: Sequence[int], rng: random.Random
    ) -> list[list[int]] | None:
        """Tiles of ``pool`` for every group ``(seat, slot, allowed, count)``, and the
        tiles left over (last): random picks, the tightest group first; None when
        they get stuck (``_deal_exact`` then settles it)."""
        pool_mask = 0
        for t in pool:
            pool_mask |= 1 << t
        tight = [(g, allowed & pool_mask) for g, (_, _, allowed, _) in enumerate(groups)]
        tight = [(g, a) for g, a in tight if a != pool_mask]
        chosen: list[list[int]] = [[] for _ in groups]
        remaining = pool_mask
        if tight:
            for _attempt in range(2):
                remaining = pool_mask
                order = sorted(tight, key=lambda ga: (ga[1].bit_count() - groups[ga[0]][3], rng.random()))
                for g, allowed in order:
                    candidates = [t for t in pool if (allowed & remaining) >> t & 1]
                    count = groups[g][3]
                    if len(candidates) < count:
                        break
                    picked = rng.sample(candidates, count)
                    chosen[g] = picked
                    for t in picked:
                        remaining ^= 1 << t
                else:
                    break
            else:
                return None
        rest = [t for t in pool if remaining >> t & 1]
        rng.shuffle(rest)
        for g, (_, _, allowed, count) in enumerate(groups):
            if allowed & pool_mask == pool_mask:
                chosen[g], rest = rest[:count], rest[count:]
        chosen.append(rest)
        return chosen

    def _deal(
        self,
        rng: random.Random,
        seats: Sequence[int],
        fixed: Mapping[int, Sequence[int]],
        pool: Sequence[int] | None = None,
    ) -> _Deal:
        """Profiles and tiles for ``seats`` from ``pool`` (default: the unseen tiles),
        the rest of it the boneyard; a seat in ``fixed`` fills its slots with the tiles
        given (a hand known, or given to be checked).

        Fast: a profile per seat (one that worked before, or a random one) and random
        picks; a few tries, then ``_deal_exact``, which always finds a deal if any."""
        pool = self.pool if pool is None else pool
        options = {s: self.seat_profiles(s) for s in seats}
        good = self._good.setdefault((*seats, -1, *sorted(fixed)), [])
        for attempt in range(6):
            if good and (attempt >= 3 or rng.random() < 0.5):
                picked = good[rng.randrange(len(good))]
            else:
                picked = {s: p[rng.randrange(len(p))] if len(p) > 1 else p[0] for s, p in options.items()}
            deal = self._try_deal(picked, rng, fixed, pool)
            if deal is not None:
                if len(good) < _GOOD_KEPT and picked not in good:
                    good.append(picked)
                return deal
        deal = self._deal_exact(rng, seats, fixed, pool)
        if len(good) < _GOOD_KEPT:
            good.append(deal.profiles)
        return deal

    def _try_deal(
        self,
        picked: Mapping[int, Profile],
        rng: random.Random,
        fixed: Mapping[int, Sequence[int]],
        pool: Sequence[int],
    ) -> _Deal | None:
        groups: list[tuple[int, int, int, int]] = []
        tiles: list[list[int]] = []
        for seat, tiles_known in fixed.items():
            mine = [(seat, slot, allowed, count) for slot, allowed, count in picked[seat].groups]
            filled = self._fill(mine, tiles_known, rng)
            if filled is None or filled[-1]:
                return None
            groups += mine
            tiles += filled[:-1]
        others = [
            (seat, slot, allowed, count)
            for seat, profile in picked.items()
            if seat not in fixed
            for slot, allowed, count in profile.groups
        ]
        filled = self._fill(others, pool, rng)
        if filled is None:
            return None
        return _Deal(dict(picked), groups + others, tiles + filled[:-1], filled[-1])

    def _deal_exact(
        self, rng: random.Random, seats: Sequence[int], fixed: Mapping[int, Sequence[int]], pool: Sequence[int]
    ) -> _Deal:
        """One matching of every slot of every seat (and every place in the boneyard)
        to a tile it may hold: the seat's played tiles (up to when each was played)
        and the unseen tiles (held now). A deal exists exactly when this matching
        does, and the matching finds one whenever it exists (augmenting paths)."""
        # Right side: tiles. ("played", seat, tile, time) or ("unseen", owner seat or -1 for anyone, tile).
        right: list[tuple[int, int, int]] = []  # (seat or -1, tile, time played or _NOW)
        for seat in seats:
            for time, tile in self.facts[seat].plays:
                right.append((seat, tile, time))
        unseen_from = len(right)
        for seat, tiles_known in fixed.items():
            right += [(seat, t, _NOW) for t in tiles_known]
        right += [(-1, t, _NOW) for t in pool]
        # Left side: slots, then the boneyard's places (seat -1).
        left: list[tuple[int, int]] = []
        for seat in seats:
            fact = self.facts[seat]
            left += [(seat, E0)] * fact.dealt
            left += [(seat, d) for d, draw in enumerate(fact.draws) if draw.outcome != _PLAYED]
        left += [(-1, 0)] * (len(pool) - sum(self.facts[s].size for s in seats if s not in fixed))
        allows: dict[tuple[int, int, int], int] = {}
        options: list[list[int]] = []
        for seat, slot in left:
            if seat < 0:
                fits = [r for r in range(unseen_from, len(right)) if right[r][0] < 0]
            else:
                fact = self.facts[seat]
                start = -1 if slot == E0 else fact.draws[slot].time
                fits = []
                for r, (owner, tile, time) in enumerate(right):
                    if (owner == seat or (owner < 0 and seat not in fixed)) and start < time:
                        key = (seat, slot, time)
                        if key not in allows:
                            allows[key] = self._slot_allows(fact, slot, time)
                        if allows[key] >> tile & 1:
                            fits.append(r)
            rng.shuffle(fits)
            options.append(fits)
        owner_of = [-1] * len(right)

        def augment(node: int, seen: set[int]) -> bool:
            for r in options[node]:
                if r in seen:
                    continue
                seen.add(r)
                if owner_of[r] < 0 or augment(owner_of[r], seen):
                    owner_of[r] = node
                    return True
            return False

        for node in sorted(range(len(left)), key=lambda n: len(options[n])):
            if not augment(node, set()):
                raise NoConsistentDeal("no deal of the unseen tiles fits what was seen")
        # Back to profiles and groups.
        played_from: dict[int, list[tuple[int, int]]] = {s: [] for s in seats}
        held: dict[tuple[int, int], list[int]] = {}
        boneyard: list[int] = []
        for r, node in enumerate(owner_of):
            seat, slot = left[node]
            tile = right[r][1]
            if seat < 0:
                boneyard.append(tile)
            elif r < unseen_from:
                played_from[seat].append((tile, slot))
            else:
                held.setdefault((seat, slot), []).append(tile)
        rng.shuffle(boneyard)
        profiles: dict[int, Profile] = {}
        groups: list[tuple[int, int, int, int]] = []
        tiles: list[list[int]] = []
        fixed_first = [*fixed, *(s for s in seats if s not in fixed)]
        for seat in fixed_first:
            fact = self.facts[seat]
            slots = [E0, *(d for d, draw in enumerate(fact.draws) if draw.outcome != _PLAYED)]
            mine = [
                (slot, self._slot_allows(fact, slot, _NOW), held[seat, slot]) for slot in slots if (seat, slot) in held
            ]
            profiles[seat] = Profile(tuple((s, a, len(t)) for s, a, t in mine), tuple(played_from[seat]))
            groups += [(seat, slot, allowed, len(t)) for slot, allowed, t in mine]
            tiles += [t for _, _, t in mine]
        return _Deal(profiles, groups, tiles, boneyard)

    def sample(self, rng: random.Random) -> Sim:
        """A position of the round consistent with everything the seat saw: the
        others' hands and the boneyard dealt from the unseen tiles."""
        quick = self._quick_deal(rng)
        if quick is None:
            deal = self._deal(rng, self.others, {})
            hands: list[list[int]] = [[] for _ in range(self.players)]
            for (seat, _, _, _), chosen in zip(deal.groups, deal.tiles, strict=True):
                hands[seat] += chosen
            hands[self.seat] = list(self.hand)
            boneyard = deal.boneyard
        else:
            hands, boneyard = quick
        return self.position(hands, boneyard)

    def position(self, hands: Sequence[Sequence[int]], boneyard: Sequence[int]) -> Sim:
        """The round as the seat sees it (layout, seat to move, its drawn tile) with
        these hands and this boneyard (in draw order)."""
        return Sim.from_position(
            set_max=self.set_max,
            double_blank_points=self.ruleset.double_blank_points,
            hands=hands,
            boneyard=boneyard,
            counts=self.ends_count,
            pending=self.pending,
            pending_pip=self.pending_pip,
            turn=self.turn,
            drawn=self.drawn,
        )

    def _quick_deal(self, rng: random.Random) -> tuple[list[list[int]], list[int]] | None:
        """``sample``'s common path: a profile per other seat (a combination that dealt
        before, half the time), the tiles of its constrained slots picked tightest
        first, the rest shuffled; None when the picks get stuck."""
        options = [self.seat_profiles(s) for s in self.others]
        if self._quick_good and rng.random() < 0.5:
            combo = self._quick_good[rng.randrange(len(self._quick_good))]
        else:
            combo = tuple(rng.randrange(len(p)) if len(p) > 1 else 0 for p in options)
        plan = self._plans.get(combo)
        if plan is None:
            tight: list[tuple[int, int, int]] = []
            loose: list[tuple[int, int]] = []
            for seat, profiles, choice in zip(self.others, options, combo, strict=True):
                for _, allowed, count in profiles[choice].groups:
                    if allowed & self.pool_mask == self.pool_mask:
                        loose.append((seat, count))
                    else:
                        tight.append((seat, allowed & self.pool_mask, count))
            tight.sort(key=lambda group: group[1].bit_count() - group[2])
            plan = self._plans[combo] = (tight, loose)
        tight, loose = plan
        pool = self.pool
        hands: list[list[int]] = [[] for _ in range(self.players)]
        hands[self.seat] = list(self.hand)
        if tight:
            remaining = self.pool_mask
            for seat, allowed, count in tight:
                fits = allowed & remaining
                candidates = [t for t in pool if fits >> t & 1]
                if len(candidates) < count:
                    return None
                picked = rng.sample(candidates, count)
                hands[seat] += picked
                for t in picked:
                    remaining ^= 1 << t
            rest = [t for t in pool if remaining >> t & 1]
        else:
            rest = list(pool)
        rng.shuffle(rest)
        start = 0
        for seat, count in loose:
            hands[seat] += rest[start : start + count]
            start += count
        if len(self._quick_good) < _GOOD_KEPT and combo not in self._quick_good:
            self._quick_good.append(combo)
        return hands, rest[start:]

    def world(self, rng: random.Random, sample: Sim | None = None) -> World:
        """A whole deal and draw order consistent with the view - behind ``sample`` if
        given (its hands as they are now; ``NoConsistentDeal`` if none is), for
        checking: replaying the round's public history on it gives the same events."""
        seats = range(self.players)
        if sample is None:
            deal = self._deal(rng, seats, {self.seat: self.hand})
        else:
            deal = self._deal(rng, seats, dict(enumerate(sample.hands)), sample.boneyard)
        dealt: dict[int, list[int]] = {s: [] for s in seats}
        drawn: dict[tuple[int, int], int] = {}
        for (seat, slot, _, _), chosen in zip(deal.groups, deal.tiles, strict=True):
            if slot == E0:
                dealt[seat] += chosen
            else:
                drawn[seat, slot] = chosen[0]
        for seat in seats:
            for tile, slot in deal.profiles[seat].played_from:
                if slot == E0:
                    dealt[seat].append(tile)
                else:
                    drawn[seat, slot] = tile
            for d, draw in enumerate(self.facts[seat].draws):
                if draw.outcome == _PLAYED:
                    drawn[seat, d] = draw.tile
        if self.holder >= 0:
            dealt[self.holder].append(self.spinner)
        # The draws for the starting double: the holder's last one drew it.
        start_tiles: list[int] = []
        for i, seat in enumerate(self.start_order):
            if i == len(self.start_order) - 1:
                start_tiles.append(self.spinner)
            else:
                start_tiles.append(next(t for t in dealt[seat] if t != self.spinner and t not in start_tiles))
        hands = [[t for t in dealt[seat] if t not in start_tiles] for seat in seats]
        order = start_tiles + [drawn[seat, d] for seat, d in self.draw_order] + deal.boneyard
        tiles_of = full_set(self.set_max)
        return World(
            tuple(tuple(tiles_of[t] for t in hand) for hand in hands),
            tuple(tiles_of[t] for t in order),
        )
