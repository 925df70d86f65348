"""The engine is pure: no Django, no I/O, no clock, no global randomness.

DESIGN.md: "engine/ - the rules, pure Python: no Django, no I/O, no clock, no
global random". This is checked on the source (an AST scan of every module of
``games/engine/``), so a forbidden import is caught even on a code path no test
runs. ``bench.py`` is the benchmark entry point and is the one explicit exemption:
it may use ``time`` (it measures) and ``sys`` (its ``main`` reads argv), and print.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
MODULES = sorted(ENGINE.glob("*.py"))

BENCH = "bench.py"

# Modules that do I/O, read a clock, talk to the network or the OS, run
# concurrently, or draw on global randomness - and Django.
FORBIDDEN_MODULES = {
    "django",
    "os",
    "sys",
    "io",
    "socket",
    "pathlib",
    "time",
    "datetime",
    "requests",
    "subprocess",
    "threading",
    "multiprocessing",
    "concurrent",
    "asyncio",
    "urllib",
    "http",
    "shutil",
    "tempfile",
    "glob",
    "sqlite3",
    "logging",
    "secrets",
    "uuid",
    "signal",
    "select",
    "selectors",
    "importlib",
    "pickle",
    "shelve",
    "fileinput",
    "zoneinfo",
    "calendar",
    "ctypes",
    "platform",
    "celery",
    "redis",
}

# Everything an engine module may import (relative imports of the engine itself
# are always fine). A new dependency is a decision: add it here on purpose.
ALLOWED_MODULES = {
    "__future__",
    "typing",
    "collections",
    "collections.abc",
    "dataclasses",
    "functools",
    "itertools",
    "math",
    "enum",
    "random",
    "copy",
    "json",
    "operator",
    "abc",
    "bisect",
    "heapq",
    "string",
    "types",
}

# bench.py's explicit exemptions.
BENCH_ALLOWED = {"time", "sys"}

# Built-ins that do I/O or escape the static scan. (``hash`` of a str differs
# between processes, so it would break exact replays.)
FORBIDDEN_CALLS = {"open", "input", "print", "breakpoint", "exec", "eval", "compile", "__import__", "hash"}
BENCH_ALLOWED_CALLS = {"print"}

# The only name of the random module an engine may use: a seeded instance.
RANDOM_ALLOWED_ATTRS = {"Random"}


@dataclass
class Scan:
    """What one module does that purity cares about."""

    name: str
    problems: list[str] = field(default_factory=list)


def _top(module: str) -> str:
    return module.split(".")[0]


def _in_main_of_bench(stack: list[ast.AST]) -> bool:
    """Inside ``def main`` or the ``if __name__ == "__main__":`` block."""
    for node in stack:
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            return True
        if isinstance(node, ast.If):
            test = node.test
            if (
                isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name)
                and test.left.id == "__name__"
                and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
            ):
                return True
    return False


def scan_source(source: str, name: str) -> Scan:
    """Scan one module's source; ``name`` is its file name (``bench.py`` is exempt
    from the clock and argv rules, nothing else)."""
    scan = Scan(name)
    tree = ast.parse(source, filename=name)
    is_bench = name == BENCH
    random_names: set[str] = set()  # names bound to the random module
    sys_names: set[str] = set()

    def check_module(module: str, line: int) -> None:
        top = _top(module)
        if is_bench and top in BENCH_ALLOWED:
            return
        if top in FORBIDDEN_MODULES:
            scan.problems.append(f"{name}:{line}: imports forbidden module {module!r}")
        elif module not in ALLOWED_MODULES and top not in ALLOWED_MODULES:
            scan.problems.append(f"{name}:{line}: imports {module!r}, which is not on the engine's allow-list")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check_module(alias.name, node.lineno)
                if alias.name == "random":
                    random_names.add(alias.asname or "random")
                if alias.name == "sys":
                    sys_names.add(alias.asname or "sys")
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: the engine's own modules
                continue
            module = node.module or ""
            check_module(module, node.lineno)
            if module == "random":
                for alias in node.names:
                    if alias.name not in RANDOM_ALLOWED_ATTRS:
                        scan.problems.append(
                            f"{name}:{node.lineno}: 'from random import {alias.name}' uses the global generator"
                        )
            if _top(module) == "sys":
                sys_names.update(a.asname or a.name for a in node.names)

    # Walk again with the ancestor stack: names used, calls made.
    def visit(node: ast.AST, stack: list[ast.AST]) -> None:
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in random_names
            and node.attr not in RANDOM_ALLOWED_ATTRS
        ):
            scan.problems.append(
                f"{name}:{node.lineno}: random.{node.attr} uses the global generator; use a seeded random.Random(...)"
            )
        if isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Name)
                and func.id in FORBIDDEN_CALLS
                and not (is_bench and func.id in BENCH_ALLOWED_CALLS)
            ):
                scan.problems.append(f"{name}:{node.lineno}: calls {func.id}(")
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in random_names
                and func.attr == "Random"
                and not (node.args or node.keywords)
            ):
                scan.problems.append(f"{name}:{node.lineno}: random.Random() without a seed is seeded from the OS")
        if isinstance(node, ast.Name) and node.id in sys_names and not (is_bench and _in_main_of_bench(stack)):
            scan.problems.append(f"{name}:{node.lineno}: uses sys outside bench.py's main")
        for child in ast.iter_child_nodes(node):
            visit(child, [*stack, node])

    visit(tree, [])
    return scan


def test_the_engine_modules_are_all_scanned() -> None:
    names = {m.name for m in MODULES}
    expected = {
        "__init__.py",
        "errors.py",
        "tiles.py",
        "ruleset.py",
        "moves.py",
        "layout.py",
        "match.py",
        "views.py",
        BENCH,
    }
    assert expected <= names, f"missing engine modules: {expected - names}"


def test_the_engine_is_the_rules_only() -> None:
    """The bots' reasoning lives in ``bots`` (kept pure by its import-linter contract)."""
    names = {m.name for m in MODULES}
    assert not names & {"sim.py", "knowledge.py", "search.py", "strategies.py"}


@pytest.mark.parametrize("path", MODULES, ids=[m.name for m in MODULES])
def test_engine_module_is_pure(path: Path) -> None:
    scan = scan_source(path.read_text(encoding="utf-8"), path.name)
    assert scan.problems == []


@pytest.mark.parametrize(
    "source",
    [
        "import django",
        "from django.db import models",
        "import os",
        "import os.path",
        "from os import path",
        "import sys",
        "import io",
        "import socket",
        "import pathlib",
        "from pathlib import Path",
        "import time",
        "from datetime import datetime",
        "import requests",
        "import subprocess",
        "import threading",
        "import secrets",
        "import numpy",
        "import random\nrandom.shuffle([1, 2])",
        "import random\nx = random.choice([1, 2])",
        "import random\nx = random.randint(1, 2)",
        "import random\nx = random.random()",
        "import random\nrandom.seed(1)",
        "import random as r\nr.shuffle([1])",
        "from random import shuffle",
        "from random import choice as pick",
        "import random\nrng = random.Random()",
        "def f():\n    return open('x')",
        "x = open('x').read()",
        "print('hi')",
        "x = hash('abc')",
        "x = __import__('os')",
    ],
)
def test_the_scan_catches_impurity(source: str) -> None:
    """The scan is not vacuous: each of these snippets is refused in an engine module."""
    assert scan_source(source, "match.py").problems


@pytest.mark.parametrize(
    "source",
    [
        "import random\nrng = random.Random('seed:1')\nrng.shuffle([1, 2])\nx = rng.choice([1])",
        "from random import Random\nrng = Random(4)",
        "from __future__ import annotations\nfrom typing import Any\nfrom collections.abc import Mapping",
        "from .tiles import tile_text",
    ],
)
def test_the_scan_allows_pure_code(source: str) -> None:
    assert scan_source(source, "match.py").problems == []


def test_bench_exemption_is_explicit_and_only_for_bench() -> None:
    """bench.py may read the clock and argv (in main) and print; no other module may,
    and bench.py may still not use global randomness, open files or sys outside main."""
    bench_like = (
        "import sys\nimport time\n"
        "def main(argv):\n    t = time.perf_counter()\n    print(t)\n"
        "if __name__ == '__main__':\n    main(sys.argv[1:])\n"
    )
    assert scan_source(bench_like, BENCH).problems == []
    assert scan_source(bench_like, "views.py").problems
    assert scan_source("import sys\nARGS = sys.argv\n", BENCH).problems
    assert scan_source("import random\nrandom.shuffle([1])\n", BENCH).problems
    assert scan_source("x = open('f')\n", BENCH).problems
    assert scan_source("import os\n", BENCH).problems


def test_importing_the_engine_loads_no_django_and_no_io_modules() -> None:
    """Importing ``games.engine`` (everything but bench.py) pulls in none of the
    forbidden modules that the interpreter does not load by itself. (The standard
    library's own ``inspect``, used by ``dataclasses``, loads ``importlib``
    machinery, so that one is left to the source scan.)"""
    runtime_forbidden = FORBIDDEN_MODULES - {"sys", "os", "io", "importlib"}
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import games.engine\n"
        "loaded = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        f"bad = sorted(loaded & set({sorted(runtime_forbidden)!r}))\n"
        "assert not bad, bad\n"
        "assert 'games.engine.bench' not in sys.modules\n"
    )
    root = ENGINE.parents[1]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
