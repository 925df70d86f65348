"""games is split along its seam (docs/architecture.md, "games and live"): the game
record (``games``) below, live play (``live``) above. The record tells live play of
every committed change through one hook, and an import-linter ``layers`` contract
keeps the record from importing live play."""

from __future__ import annotations

import tomllib

from games import signals
from live import dispatch
from tests.contract.apps import ROOT

CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_live_play_hears_every_committed_change_once():
    # Without the hook a move would commit but nobody would be told: no notice on the
    # streams, no bot turn, no turn clock.
    hooks = signals.COMMITTED_HOOKS
    assert hooks == [dispatch.after_commit]


def test_the_record_is_below_live_play_in_a_layers_contract():
    seams = [c for c in CONTRACTS if c["type"] == "layers" and c["layers"] == ["live", "games"]]
    assert len(seams) == 1, "the seam's contract (live above games) is missing from pyproject.toml"
