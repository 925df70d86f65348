"""Bot strategies: pluggable move choosers for server bots and turn-clock fallbacks.

The registry lives in ``games`` because the games services need it (a bot seat's
strategy is checked when it is added; the turn clock plays ``greedy`` for an
absent player); other apps (``bots``) may register more with ``@register``.
Strategies are pure: they see only what the seat may see.

A strategy is a callable ``choose(view, rng) -> move``. ``view`` is exactly what the
seat may see (``games.engine.seat_view``: its own hand, the layout, hand sizes,
``legal_moves`` ...), so a strategy can never cheat; it must return one of
``view["legal_moves"]``. ``rng`` is a ``random.Random`` the caller seeds, so a
bot's choices replay. Register a new one with ``@register("name", "description")``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Move = dict[str, Any]
View = dict[str, Any]
Choose = Callable[[View, random.Random], Move]


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    choose: Choose


STRATEGIES: dict[str, Strategy] = {}


def register(name: str, description: str) -> Callable[[Choose], Choose]:
    def add(choose: Choose) -> Choose:
        STRATEGIES[name] = Strategy(name, description, choose)
        return choose

    return add


def get_strategy(name: str) -> Strategy:
    """The strategy called ``name``; ``KeyError`` when there is none."""
    return STRATEGIES[name]


def _pips(tile: str) -> tuple[int, int]:
    high, low = tile.split("-")
    return int(high), int(low)


@register("random", "Plays a uniformly random legal move.")
def choose_random(view: View, rng: random.Random) -> Move:
    return rng.choice(view["legal_moves"])


@register(
    "greedy",
    "Sheds the heaviest tile it can (the double-blank by its point value); prefers a double "
    "when it also holds tiles to cover the foot's toes; always plays a drawn tile it can play.",
)
def choose_greedy(view: View, rng: random.Random) -> Move:
    plays = [m for m in view["legal_moves"] if m["type"] == "play"]
    if not plays:
        return view["legal_moves"][0]  # draw, or pass: the only choice left
    blank_points = view["ruleset"]["double_blank_points"]
    hand = [_pips(t) for t in view["hand"]]

    def weight(move: Move) -> tuple[int, float]:
        high, low = _pips(move["tile"])
        points = blank_points if (high, low) == (0, 0) else high + low
        if high == low:
            covers = sum(1 for h, lo in hand if (h == high) != (lo == high))
            points += 3 * min(covers, 3)  # a double we can cover ourselves is cheap to play
        return points, rng.random()

    return max(plays, key=weight)
