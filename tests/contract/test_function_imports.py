"""No first-party import hides inside a function of the apps.

An import inside a function is how a layer violation or an import cycle hides
from a reader (and from a quick look at a module's head): ``lint-imports``
still sees it, but the module's head no longer says what it depends on. So the
apps import this project's modules at the top, except for the few cases listed
in ``ALLOWED`` with the reason (Django's ``AppConfig.ready``, modules that the
Celery app loads before Django's app registry is ready).

Runs in ``make test`` as a test and in ``make lint`` as a script
(``python -m tests.contract.test_function_imports``: prints each one found).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.contract.apps import PACKAGES

ROOT = Path(__file__).resolve().parents[2]

#: The packages checked: every top-level package but the tests (``tests/contract/apps.py``,
#: derived from the repository and ``INSTALLED_APPS``, so a new app is checked at once).
APPS = PACKAGES

#: Top-level names of this project's modules; a relative import is first-party too.
FIRST_PARTY = frozenset({*APPS, "tests", "tools"})

#: (file, function, imported module) -> why it must stay inside the function.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("tools/move_profile.py", "_requests", "games.services"): "a script: Django is set up in main() first",
    ("tools/move_profile.py", "_requests", "games.engine"): "a script: Django is set up in main() first",
    ("tools/move_profile.py", "_requests", "games.models"): "a script: Django is set up in main() first",
    ("tools/move_profile.py", "_requests", "players.services"): "a script: Django is set up in main() first",
    ("tools/bridge_bench.py", "main", "config.asgi"): "a script: builds the application after setting its environment",
    ("tools/lock_statement_bench.py", "main", "games.models"): "a script: Django is set up in main() first",
    ("tools/lock_statement_bench.py", "main", "games.services.commit"): "a script: Django is set up in main() first",
    (
        "tools/lock_statement_bench.py",
        "main",
        "tools.loadtest.bare.models",
    ): "a script: Django is set up in main() first",
    ("core/apps.py", "CoreConfig.ready", "core.schema"): "registers OpenAPI extensions once apps are ready",
    ("players/apps.py", "PlayersConfig.ready", "players.schema"): "registers the token security scheme on ready",
    ("players/apps.py", "PlayersConfig.ready", "players.signals"): "connects to the saves of accounts and tokens",
    ("games/apps.py", "GamesConfig.ready", "games.errors"): "registers the games' and engine's error codes on ready",
    ("live/apps.py", "LiveConfig.ready", "live.lobby_feed"): "registers the lobby's tables feed of the account stream",
    ("live/apps.py", "LiveConfig.ready", "games.signals"): "hooks live play to every committed change on ready",
    ("challenges/apps.py", "ChallengesConfig.ready", "challenges.errors"): "registers the challenges' error codes",
    ("challenges/apps.py", "ChallengesConfig.ready", "challenges.feed"): "registers the account stream's feed",
    ("analysis/apps.py", "AnalysisConfig.ready", "analysis.errors"): "registers the analysis error codes",
    ("analysis/apps.py", "AnalysisConfig.ready", "analysis.feed"): "registers the account stream's feed",
    ("matchmaking/apps.py", "MatchmakingConfig.ready", "live.account_feeds"): "registers the seeks' feed on ready",
    ("ratings/apps.py", "RatingsConfig.ready", "ratings.errors"): "registers the ratings' error codes",
    ("ratings/apps.py", "RatingsConfig.ready", "ratings.receivers"): "connects to games.signals.match_finished",
    ("moderation/apps.py", "ModerationConfig.ready", "live.account_feeds"): "registers the warnings' feed on ready",
    ("moderation/apps.py", "ModerationConfig.ready", "moderation.feeds"): "the feed reads models: apps ready",
    ("moderation/apps.py", "ModerationConfig.ready", "moderation.sanction_feed"): "it reads models: apps ready",
    ("moderation/apps.py", "ModerationConfig.ready", "chat.guards"): "registers the mute check as a chat guard",
    ("moderation/apps.py", "ModerationConfig.ready", "moderation.selectors"): "the guard reads models: apps ready",
    ("moderation/apps.py", "ModerationConfig.ready", "players.standing"): "tells the player their sanctions",
    (
        "moderation/apps.py",
        "ModerationConfig.ready",
        "moderation.admin.audited",
    ): "audits every admin, once the admin has found them all",
    ("chat/apps.py", "ChatConfig.ready", "chat.errors"): "registers the chat's error codes",
    ("chat/apps.py", "ChatConfig.ready", "chat.feed"): "registers the chat's frames of the game stream",
    ("matchmaking/apps.py", "MatchmakingConfig.ready", "matchmaking.errors"): "registers the seeks' error codes",
    ("matchmaking/apps.py", "MatchmakingConfig.ready", "matchmaking.feeds"): "the feed reads models: apps ready",
    ("games/apps.py", "GamesConfig.ready", "games.account_data"): "registers its part of the account's data",
    ("ratings/apps.py", "RatingsConfig.ready", "ratings.account_data"): "registers its part of the account's data",
    ("chat/apps.py", "ChatConfig.ready", "chat.account_data"): "registers its part of the account's data",
    (
        "moderation/apps.py",
        "ModerationConfig.ready",
        "moderation.account_data",
    ): "registers its part of the account's data",
    # config/celery.py imports ops.worker when Django starts (config/__init__.py
    # loads the Celery app), before the app registry is ready: no models then.
    ("ops/worker.py", "Recovery.start", "live.dispatch"): "loaded with the Celery app, before apps are ready",
    ("ops/worker.py", "Recovery.shutdown", "ops.heartbeats"): "loaded with the Celery app, before apps are ready",
    ("ops/worker.py", "Recovery._beat", "ops.heartbeats"): "loaded with the Celery app, before apps are ready",
    ("ops/worker.py", "Recovery._beat", "ops.models"): "loaded with the Celery app, before apps are ready",
    # Observability (docs/observability.md): scrape-time gauges and task names registered once apps are ready;
    # gunicorn's hooks run in its master, which loads no app.
    ("live/apps.py", "LiveConfig.ready", "core.request_context"): "names the follow-up tasks once apps are ready",
    ("live/apps.py", "LiveConfig.ready", "live.dispatch"): "hooks after_commit, names the follow-up tasks on ready",
    ("ops/apps.py", "OpsConfig.ready", "core.metrics"): "registers the scrape-time gauges once apps are ready",
    ("ops/apps.py", "OpsConfig.ready", "ops.metrics"): "registers the scrape-time gauges once apps are ready",
    ("matchmaking/apps.py", "MatchmakingConfig.ready", "core.metrics"): "registers its gauge once apps are ready",
    ("matchmaking/apps.py", "MatchmakingConfig.ready", "matchmaking.selectors"): "registers its gauge on ready",
    ("config/gunicorn.conf.py", "on_starting", "config.settings.observability"): "gunicorn's master: settings only",
    ("config/gunicorn.conf.py", "on_starting", "core.metrics"): "gunicorn's master, after the settings",
    ("config/gunicorn.conf.py", "child_exit", "core.metrics"): "gunicorn's master, after the settings",
    ("tools/metrics_bench.py", "child", "core.metrics"): "a script: Django is set up in child() first",
    ("tools/metrics_bench.py", "child", "core.request_context"): "a script: Django is set up in child() first",
}


@dataclass(frozen=True)
class FunctionImport:
    path: str
    line: int
    function: str
    module: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.function, self.module)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.function}() imports {self.module}"


def _modules(node: ast.Import | ast.ImportFrom, package: str) -> Iterator[str]:
    """The modules an import reaches: ``from games import services`` -> ``games.services``."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: resolve against the importing module's package
        parts = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*parts, *([node.module] if node.module else [])])
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        yield submodule if _is_module(submodule) else base


def _is_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def function_imports(root: Path = ROOT) -> list[FunctionImport]:
    """Every first-party import inside a function (or a method) of the apps."""
    found: list[FunctionImport] = []
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            relative = path.relative_to(root)
            if "migrations" in relative.parts:
                continue
            package = ".".join(relative.parent.parts)
            tree = ast.parse(path.read_text(), filename=str(relative))
            found.extend(_visit(tree, [], False, relative.as_posix(), package))
    return found


def _visit(node: ast.AST, names: list[str], in_function: bool, path: str, package: str) -> Iterator[FunctionImport]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inside = in_function or not isinstance(child, ast.ClassDef)
            yield from _visit(child, [*names, child.name], inside, path, package)
        elif isinstance(child, ast.Import | ast.ImportFrom) and in_function:
            for module in dict.fromkeys(_modules(child, package)):
                if module.split(".")[0] in FIRST_PARTY:
                    yield FunctionImport(path, child.lineno, ".".join(names), module)
        else:
            yield from _visit(child, names, in_function, path, package)


def unjustified(found: list[FunctionImport]) -> list[FunctionImport]:
    return [f for f in found if f.key not in ALLOWED]


def test_no_first_party_imports_inside_functions() -> None:
    offending = unjustified(function_imports())
    assert not offending, (
        "first-party imports inside functions (import at the module's top, or add the case to ALLOWED "
        "with the reason):\n" + "\n".join(map(str, offending))
    )


def test_the_allow_list_names_only_imports_that_exist() -> None:
    keys = {f.key for f in function_imports()}
    assert not set(ALLOWED) - keys, f"stale ALLOWED entries: {sorted(set(ALLOWED) - keys)}"


def main() -> int:
    found = function_imports()
    offending = unjustified(found)
    for item in offending:
        print(item)
    stale = sorted(set(ALLOWED) - {f.key for f in found})
    for key in stale:
        print(f"stale ALLOWED entry (no such import any more): {key}")
    if offending:
        print(
            f"{len(offending)} first-party import(s) inside functions; import at the module's top, or list the "
            "case in ALLOWED (tests/contract/test_function_imports.py) with the reason."
        )
    return 1 if offending or stale else 0


if __name__ == "__main__":
    sys.exit(main())
