"""The lists of the project's packages agree with ``INSTALLED_APPS`` and the
repository, so a new app cannot slip past the contracts: the scans of the contract
tests (``tests/contract/apps.py``), import-linter's root packages, ruff's
first-party list, mypy's files, and the architecture document's drawing."""

from __future__ import annotations

import re
import tomllib

from django.conf import settings

from tests.contract.apps import PACKAGES, PROJECT_APPS, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_apps_read_from_the_settings_are_djangos():
    ours = tuple(app for app in settings.INSTALLED_APPS if app in PACKAGES)
    assert ours == PROJECT_APPS


def test_every_project_app_is_a_package_the_contract_tests_scan():
    assert set(PROJECT_APPS) <= set(PACKAGES)
    assert {"config", "games", "core"} <= set(PACKAGES)


def test_import_linter_knows_every_package():
    assert set(PYPROJECT["tool"]["importlinter"]["root_packages"]) == set(PACKAGES)


def test_ruff_and_mypy_know_every_package():
    first_party = set(PYPROJECT["tool"]["ruff"]["lint"]["isort"]["known-first-party"])
    assert set(PACKAGES) <= first_party
    assert set(PACKAGES) <= set(PYPROJECT["tool"]["mypy"]["files"])


def test_the_architecture_document_draws_every_package():
    text = (ROOT / "docs" / "architecture.md").read_text()
    layers = re.search(r"^## Layers\n.*?^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert layers, "docs/architecture.md has no drawing under ## Layers"
    drawn = set(re.findall(r"[a-z_]+", layers.group(1)))
    missing = set(PACKAGES) - drawn
    assert not missing, f"docs/architecture.md's drawing leaves out {sorted(missing)}"
    for package in PACKAGES:
        assert f"`{package}`" in text, f"docs/architecture.md does not describe `{package}`"
