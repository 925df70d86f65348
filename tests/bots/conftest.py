"""Fixtures of the bots' tests."""

from __future__ import annotations

from typing import Any

import pytest

from bots.sim import Sim


@pytest.fixture
def rollout_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets an item for every ``Sim.rollout`` (a search's play-outs), for
    tests of a search's budget; ``clear()`` it between searches."""
    calls: list[int] = []
    rollout = Sim.rollout

    def counted(self: Sim, *args: Any, **kwargs: Any) -> list[int]:
        calls.append(1)
        return rollout(self, *args, **kwargs)

    monkeypatch.setattr(Sim, "rollout", counted)
    return calls
