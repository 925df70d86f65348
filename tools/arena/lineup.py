"""Strategy specs: a registered name (``greedy``), or a search level with some
settings changed (``strong:rollouts=50,policy=1``), for checking a level against
itself at smaller budgets."""

from __future__ import annotations

from dataclasses import fields
from functools import cache

from bots.search import SearchSettings
from bots.strategies import LEVELS, STRATEGIES, Choose, level_strategy

_SETTINGS = {f.name: f.type for f in fields(SearchSettings)}


class LineupError(ValueError):
    """A spec that names no strategy, or a setting the level does not have."""


def _value(text: str) -> int | float | bool:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_spec(spec: str) -> tuple[str, dict[str, int | float | bool]]:
    """``"strong:rollouts=50"`` -> ``("strong", {"rollouts": 50})``; refuses unknown names."""
    name, _, rest = spec.partition(":")
    if name not in STRATEGIES:
        raise LineupError(f"no strategy {name!r}; there are: {', '.join(sorted(STRATEGIES))}")
    overrides: dict[str, int | float | bool] = {}
    if rest:
        if name not in LEVELS:
            raise LineupError(f"{name!r} takes no settings (only the search levels do: {', '.join(sorted(LEVELS))})")
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or key not in _SETTINGS:
                raise LineupError(f"{spec!r}: settings are key=value with key in {', '.join(sorted(_SETTINGS))}")
            try:
                overrides[key] = _value(value)
            except ValueError:
                raise LineupError(f"{spec!r}: {value!r} is not a number") from None
    return name, overrides


@cache
def strategy(spec: str) -> Choose:
    """The ``choose`` function of a spec (made once per process)."""
    name, overrides = parse_spec(spec)
    if overrides:
        return level_strategy(name, **overrides)
    return STRATEGIES[name].choose
