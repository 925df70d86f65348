"""The project's own packages, derived from ``INSTALLED_APPS`` so that a new app
cannot slip past the contract tests (their scans, the import-linter root
packages, the architecture document).

Read from ``config/settings/base.py`` without setting Django up (``make lint``
runs ``test_function_imports`` as a script); ``test_app_lists`` checks that the
reading equals Django's own ``settings.INSTALLED_APPS``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "config" / "settings" / "base.py"


def installed_apps(settings: Path = SETTINGS) -> tuple[str, ...]:
    """``INSTALLED_APPS`` as the settings module writes it (a list of strings)."""
    for node in ast.walk(ast.parse(settings.read_text())):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "INSTALLED_APPS" for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            return tuple(value)
    raise LookupError(f"no INSTALLED_APPS in {settings}")


def is_package(name: str) -> bool:
    return (ROOT / name / "__init__.py").exists()


#: The apps of this repository in INSTALLED_APPS (Django's and other libraries' left out).
PROJECT_APPS: tuple[str, ...] = tuple(app for app in installed_apps() if "." not in app and is_package(app))

#: Every top-level package of the repository but the tests: the apps, the project
#: package ``config`` (settings, URLs, the Celery app), and any package that is not
#: a Django app. A package added at the top is in this list at once.
PACKAGES: tuple[str, ...] = tuple(
    sorted(path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests")
)
