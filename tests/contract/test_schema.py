"""The contract: ``openapi.yaml`` is valid, warning-free and up to date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "openapi.yaml"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The document as ``make schema`` would write it, from a fresh process (no
    error codes registered by other tests can leak in)."""
    target = tmp_path_factory.mktemp("schema") / "openapi.yaml"
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", str(target)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"spectacular --validate --fail-on-warn failed:\n{result.stdout}\n{result.stderr}"
    return target.read_text()


def test_schema_generates_without_warnings_and_validates(generated):
    assert generated.startswith("openapi: 3")


def test_committed_schema_is_up_to_date(generated):
    committed = COMMITTED.read_text() if COMMITTED.exists() else ""
    assert committed == generated, (
        "openapi.yaml is out of date with the code: run `make schema` and commit openapi.yaml."
    )


def test_every_error_code_is_in_the_document(generated):
    import yaml

    from core.errors import all_error_codes

    document = yaml.safe_load(generated)
    listed = set(document["components"]["schemas"]["ErrorCode"]["enum"])
    registered = {code for code in all_error_codes() if not code.startswith("test_")}
    assert registered <= listed
