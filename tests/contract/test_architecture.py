"""The one commit path: only ``games/services/commit.py`` writes a game's rows.

Every state change of a game must lock its row, append events and publish after
the commit; ``games.services.commit.GameChange`` does all of it. A write to a
``Game``, ``Seat``, ``Move`` or ``Event`` row from anywhere else would skip some
of that, so this scan of the server's code (not the tests, not migrations) fails
on any such write it can see: a model manager's or queryset's write method, a
related manager's (``game.seats...``), or ``save()``/``delete()`` on a variable
that holds one of those rows.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.contract.apps import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
APPS = PACKAGES  # every top-level package but the tests (tests/contract/apps.py)
THE_ONE_PATH = Path("games/services/commit.py")

MODELS = {"Game", "Seat", "Move", "Event"}
RELATED = {"seats", "moves", "events"}
ROW_NAMES = {"game", "seat", "free", "move", "event"}
QUERY_WRITES = {"update", "create", "bulk_create", "bulk_update", "get_or_create", "update_or_create", "delete"}
ROW_WRITES = {"save", "delete"}


def _chain(node: ast.expr) -> list[str]:
    """The names along ``a.b(...).c`` from the root: ``["a", "b", "c"]``."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            if isinstance(node, ast.Name):
                names.append(node.id)
            return names[::-1]


def game_writes(source: str) -> list[tuple[int, str]]:
    """``(line, code)`` of every call in ``source`` that writes a game's rows."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, receiver = node.func.attr, _chain(node.func.value)
        if not receiver:
            continue
        query = method in QUERY_WRITES and (receiver[0] in MODELS or RELATED & set(receiver[1:]))
        row = method in ROW_WRITES and receiver[-1] in ROW_NAMES
        if query or row:
            found.append((node.lineno, ast.unparse(node)[:100]))
    return found


def test_only_the_commit_path_writes_a_game():
    offenders = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative == THE_ONE_PATH or "migrations" in relative.parts:
                continue
            offenders += [f"{relative}:{line}: {code}" for line, code in game_writes(path.read_text())]
    assert not offenders, "game rows written outside games/services/commit.py:\n" + "\n".join(offenders)


def test_the_scan_sees_the_writes_it_must_refuse():
    bad = """
Game.objects.filter(pk=1).update(moderated=True)
game.seats.select_for_update().filter(number=0).update(player=None)
Move.objects.create(game=game, number=1)
game.save(update_fields=["seq"])
seat.delete()
"""
    assert [line for line, _ in game_writes(bad)] == [2, 3, 4, 5, 6]
    harmless = """
Game.objects.filter(pk=1).exists()
user.save(update_fields=["is_active"])
token.delete()
cache.set("k", 1)
"""
    assert game_writes(harmless) == []


def test_the_one_path_is_where_the_writes_are():
    assert len(game_writes((ROOT / THE_ONE_PATH).read_text())) >= 4  # the scan is not blind to the real thing
