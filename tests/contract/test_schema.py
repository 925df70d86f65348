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


# -- what a generated client needs: exact, named, typed ---------------------------


def _walk(node, path=""):
    """Every schema-ish mapping in the document with its path."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}[{index}]")


@pytest.fixture(scope="module")
def document():
    import yaml

    return yaml.safe_load(COMMITTED.read_text())


def test_the_document_is_openapi_3_1(document):
    assert document["openapi"].startswith("3.1")


def test_every_reference_resolves(document):
    schemas = document["components"]["schemas"]
    prefix = "#/components/schemas/"
    broken = [
        (path, node["$ref"])
        for path, node in _walk(document)
        if isinstance(node.get("$ref"), str)
        and node["$ref"].startswith(prefix)
        and node["$ref"][len(prefix) :] not in schemas
    ]
    assert not broken


def test_no_untyped_object(document):
    """An object says what it holds: its properties, or the schema of its values."""
    untyped = [
        path
        for path, node in _walk(document["components"]["schemas"])
        if (node.get("type") == "object" or (isinstance(node.get("type"), list) and "object" in node["type"]))
        and "properties" not in node
        and not isinstance(node.get("additionalProperties"), dict)
    ]
    assert not untyped
    open_ended = [path for path, node in _walk(document) if node.get("additionalProperties") is True]
    assert not open_ended, "additionalProperties: true makes generated types open-ended"


def test_every_enum_is_one_named_component(document):
    schemas = document["components"]["schemas"]
    named = {name for name, schema in schemas.items() if "enum" in schema}
    assert not [name for name in schemas if name.endswith("Enum")], "an enum named by the generator"
    inline = [path for path, node in _walk(document) if "enum" in node and path.rsplit("/", 1)[-1] not in named]
    assert not inline, "an enum written inline instead of referring to its named component"
    values = [tuple(sorted(map(str, schemas[name]["enum"]))) for name in named]
    assert len(values) == len(set(values)), "the same enum under two names"


def test_component_names_are_plain(document):
    odd = [
        name
        for name in document["components"]["schemas"]
        if name.endswith(("Output", "Request", "Serializer")) or "InputRequest" in name
    ]
    assert not odd


def test_streams_answer_event_streams_with_typed_frames(document):
    """A stream's body is text (what a generator reads whole); ``x-itemSchema`` (OpenAPI
    3.2's ``itemSchema``) is its frame union, each frame's data JSON text naming its
    schema; ``x-itemMessageSchema`` the same frames with their data parsed, which the
    stream readers yield (``core.schema.stream_items``)."""
    streams = {"/api/v1/games/{game_id}/stream/": "GameStream", "/api/v1/me/stream/": "AccountStream"}
    schemas = document["components"]["schemas"]
    for path, stream in streams.items():
        ok = document["paths"][path]["get"]["responses"]["200"]["content"]
        assert list(ok) == ["text/event-stream"]
        media = ok["text/event-stream"]
        assert media["schema"]["type"] == "string"
        assert media["x-itemSchema"] == {"$ref": f"#/components/schemas/{stream}Frame"}
        assert media["x-itemMessageSchema"] == {"$ref": f"#/components/schemas/{stream}Message"}
        frames, messages = schemas[f"{stream}Frame"], schemas[f"{stream}Message"]
        assert [f"{o['$ref']}Message" for o in frames["oneOf"]] == [o["$ref"] for o in messages["oneOf"]]
        assert messages["discriminator"]["mapping"] == {
            event: f"{target}Message" for event, target in frames["discriminator"]["mapping"].items()
        }
        for option in frames["oneOf"]:
            name = option["$ref"].rsplit("/", 1)[-1]
            data = schemas[name]["properties"]["data"]
            assert data["contentMediaType"] == "application/json" and "$ref" in data["contentSchema"]
            message = schemas[f"{name}Message"]
            assert message["properties"]["data"]["$ref"] == data["contentSchema"]["$ref"]
            assert {k: v for k, v in message["properties"].items() if k != "data"} == {
                k: v for k, v in schemas[name]["properties"].items() if k != "data"
            }
            assert message["required"] == schemas[name]["required"]


def test_no_operation_lists_a_parameter_the_server_ignores(document):
    names = {p["name"] for ops in document["paths"].values() for op in ops.values() for p in op.get("parameters", [])}
    assert "format" not in names


def test_every_problem_code_has_its_own_title():
    from core.errors import all_error_codes

    titles = [spec.title for code, spec in all_error_codes().items() if not code.startswith("test_")]
    assert len(titles) == len(set(titles)), "two codes share a title: a title names one kind of problem"
