"""A Python client generated from the contract by a real generator, and what a test needs
to use it as a client author would.

``generate`` runs openapi-python-client (pinned in requirements-dev.txt) on
``openapi.yaml`` into a temporary folder, with no option but ``--meta none`` and no hand
edit, and keeps what it printed: it prints a warning for every schema or operation it
cannot generate, and the contract must give it none. The client is then imported from
that folder (``GeneratedClient``).

The generated models decode leniently: a nullable or a oneOf member that does not decode
is kept as the plain JSON object, and members a schema does not declare go to
``additional_properties``. ``audit`` walks a decoded model and reports both, so a test can
insist that everything the server sent was decoded by the model the contract names.

Streams: a generator reads a response whole, so a ``text/event-stream`` is read with the
bot kit's typed stream reader (``chickenfoot_bot.streams``) over the generated client's
own httpx client, with the request the generated stream operation builds
(``stream_reader``); ``StreamContract`` reads from the contract which schema each frame
is (``x-itemSchema``: a ``oneOf`` of frame schemas told apart by ``event``) and which
schema decodes its ``data`` (the ``contentSchema`` of its ``data`` string), and
``decode_frame`` decodes a frame with the generated model of its parsed form
(``x-itemMessageSchema``: the frame schema's ``...Message``, ``data`` typed).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import httpx
from chickenfoot_bot.streams import End, Frame, Snapshot, StreamReader, Update, connect_httpx

#: The import name of the generated package (its folder in the temporary directory).
PACKAGE = "chickenfoot_generated_client"

#: The generator, as installed from requirements-dev.txt.
GENERATOR = [sys.executable, "-m", "openapi_python_client"]

#: What the generator prints when it has nothing to say about the document.
QUIET = re.compile(r"\AGenerating \S+\Z")

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True)
class Generation:
    """One run of the generator: its exit status, what it printed, where the package is."""

    returncode: int
    output: str
    package_dir: Path

    @property
    def quiet(self) -> bool:
        return self.returncode == 0 and bool(QUIET.match(self.output.strip()))


def generate(schema: Path, into: Path) -> Generation:
    """Generate the client of ``schema`` as the package ``into/PACKAGE``.

    ``--fail-on-warning`` makes any warning an exit status of 1 (the client is still
    written; only errors stop it). The generator's post-hooks run ``ruff`` on the
    generated code: the one installed beside this Python comes first on PATH."""
    package_dir = into / PACKAGE
    command = [
        *GENERATOR,
        "generate",
        "--path",
        str(schema),
        "--output-path",
        str(package_dir),
        "--meta",
        "none",
        "--fail-on-warning",
    ]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    # NO_COLOR and a wide terminal: plain text, no line wrapped in the middle of a name.
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"})
    run = subprocess.run(command, cwd=into, env=env, capture_output=True, text=True, timeout=300)
    return Generation(run.returncode, (run.stdout + run.stderr).strip(), package_dir)


def snake_case(name: str) -> str:
    """The generator's module name for an operationId or a schema name (``games_stream``,
    ``GameStreamEnd`` -> ``game_stream_end``)."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()


class GeneratedClient:
    """The generated package, imported from the folder it was generated into; ``close()``
    forgets it again (sys.path, sys.modules)."""

    def __init__(self, generation: Generation) -> None:
        self.generation = generation
        self.root = generation.package_dir.parent
        sys.path.insert(0, str(self.root))
        importlib.invalidate_caches()
        self.package = importlib.import_module(PACKAGE)
        self.models = importlib.import_module(f"{PACKAGE}.models")
        self.types = importlib.import_module(f"{PACKAGE}.types")
        self.client_module = importlib.import_module(f"{PACKAGE}.client")
        # Every operation module under api/<tag>/, by its file name (the operationId, snake_case).
        self.operations: dict[str, ModuleType] = {}
        for path in sorted((generation.package_dir / "api").rglob("*.py")):
            if path.name == "__init__.py":
                continue
            relative = path.relative_to(self.root).with_suffix("")
            self.operations[path.stem] = importlib.import_module(".".join(relative.parts))

    def close(self) -> None:
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]
        if str(self.root) in sys.path:
            sys.path.remove(str(self.root))

    def operation(self, operation_id: str) -> Any:
        """The module of one operation (``sync_detailed``, ``asyncio_detailed``, ...)."""
        try:
            return self.operations[snake_case(operation_id)]
        except KeyError:
            raise AssertionError(f"the generator wrote no function for operation {operation_id}") from None

    def model(self, schema_name: str) -> Any:
        """The model class of a component schema (the generator keeps PascalCase names)."""
        model = getattr(self.models, schema_name, None)
        if model is None:
            known = sorted(n for n in dir(self.models) if not n.startswith("_"))
            raise AssertionError(f"no generated model named {schema_name} (the models are: {', '.join(known)})")
        return model

    def anonymous(self, base_url: str, timeout: float) -> Any:
        return self.client_module.Client(base_url=base_url, timeout=_timeout(timeout), raise_on_unexpected_status=True)

    def authenticated(self, base_url: str, token: str, timeout: float) -> Any:
        return self.client_module.AuthenticatedClient(
            base_url=base_url, token=token, timeout=_timeout(timeout), raise_on_unexpected_status=True
        )


def _timeout(seconds: float) -> httpx.Timeout:
    return httpx.Timeout(seconds)


# -- the contract's operations --------------------------------------------------------------


def operation_ids(contract: dict[str, Any]) -> list[str]:
    """Every operation of the document, by operationId (``<METHOD> <path>`` if it has none)."""
    found = []
    for path, item in contract.get("paths", {}).items():
        for method in HTTP_METHODS:
            if method in item:
                found.append(item[method].get("operationId") or f"{method.upper()} {path}")
    return found


# -- auditing decoded models ----------------------------------------------------------------


def _annotation(field: Any) -> str:
    kind = field.type
    return kind if isinstance(kind, str) else getattr(kind, "__name__", repr(kind))


def _untyped(annotation: str) -> bool:
    """Does a generated annotation leave a value untyped (``Any``, a plain dict)?"""
    return bool(re.search(r"\bAny\b", annotation)) or annotation.startswith("dict[")


def audit(value: Any, where: str) -> list[str]:
    """What a decoded ``value`` did not decode: members its schema does not declare (in
    ``additional_properties`` where the schema types none), and JSON objects left as plain
    dicts (a member the contract leaves untyped, or one whose model failed to decode it)."""
    problems: list[str] = []
    _audit(value, where, None, problems)
    return problems


def _audit(value: Any, where: str, annotation: str | None, problems: list[str]) -> None:
    if attrs.has(type(value)):
        name = type(value).__name__
        for field in attrs.fields(type(value)):
            item = getattr(value, field.name)
            kind = _annotation(field)
            if field.name == "additional_properties":
                # A schema that declares what more members hold (a map, like Problem.errors)
                # types them; an undeclared one leaves them Any.
                if item and _untyped(kind.removeprefix("dict[str, ")):
                    problems.append(f"{where}: {name} got members its schema does not declare: {sorted(item)}")
                else:
                    for key, member in item.items():
                        _audit(member, f"{where}[{key!r}]", None, problems)
                continue
            _audit(item, f"{where}.{field.name}", kind, problems)
    elif isinstance(value, dict):
        if annotation is not None and not _untyped(annotation):
            problems.append(f"{where}: not decoded as {annotation}: left a plain object {_brief(value)}")
        else:
            problems.append(f"{where}: an object the contract leaves untyped ({annotation}): {_brief(value)}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _audit(item, f"{where}[{index}]", annotation, problems)


def _brief(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def untyped_fields(models: ModuleType) -> list[str]:
    """Every member of a generated model typed ``Any`` (the schema says nothing of it),
    and every model with no declared member at all (an object schema without properties)."""
    found = []
    for name in sorted(dir(models)):
        model = getattr(models, name)
        if not (isinstance(model, type) and attrs.has(model)):
            continue
        declared = [f for f in attrs.fields(model) if f.name != "additional_properties"]
        if not declared:
            extra = next((f for f in attrs.fields(model) if f.name == "additional_properties"), None)
            if extra is None or _untyped(_annotation(extra).removeprefix("dict[str, ")):
                found.append(f"{name}: an object with no declared member")
        found += [f"{name}.{f.name}: {_annotation(f)}" for f in declared if re.search(r"\bAny\b", _annotation(f))]
    return found


def unset_fields(models: ModuleType, schemas: Iterable[str]) -> list[str]:
    """The members of these models that may be missing (``| Unset``): optional in the schema."""
    found = []
    for name in schemas:
        model = getattr(models, name, None)
        if model is None or not attrs.has(model):
            continue
        found += [f"{name}.{f.name}" for f in attrs.fields(model) if re.search(r"\bUnset\b", _annotation(f))]
    return found


# -- Server-Sent Events -------------------------------------------------------------------


def stream_reader(client: Any, operation: ModuleType, *args: Any, **kwargs: Any) -> StreamReader:
    """The kit's typed reader of a generated stream operation: its request (what the
    generated ``_get_kwargs`` builds from ``args``) sent through the generated client's
    httpx client, resumed with Last-Event-ID by the reader."""
    request = operation._get_kwargs(*args, **kwargs)
    return StreamReader(connect_httpx(client.get_httpx_client(), **request))


@dataclass(frozen=True)
class FrameSchema:
    """One frame schema of a stream: the ``event`` names it covers, and the schema that
    decodes its ``data`` (None: the contract gives none)."""

    name: str
    events: frozenset[str]
    data_schema: str | None


class StreamContract:
    """What the contract says about one ``text/event-stream`` answer: its frame schemas."""

    def __init__(self, contract: dict[str, Any], path: str, method: str = "get") -> None:
        self.contract = contract
        self.path = path
        self.problems: list[str] = []
        self.frames: list[FrameSchema] = []
        self.message = ""
        operation = contract["paths"][path][method]
        content = operation["responses"].get("200", {}).get("content", {})
        if list(content) != ["text/event-stream"]:
            self.problems.append(f"{path}: 200 answers {sorted(content)}, not text/event-stream only")
        media = content.get("text/event-stream", {})
        if media.get("schema", {}).get("type") != "string":
            self.problems.append(f"{path}: the body's schema is not a string (a generator reads it whole)")
        schema = media.get("x-itemSchema")
        if schema is None:
            self.problems.append(f"{path}: no schema for a frame (x-itemSchema)")
            return
        message = media.get("x-itemMessageSchema", {}).get("$ref", "")
        self.message = message.rsplit("/", 1)[-1]
        if not self.message:
            self.problems.append(f"{path}: no schema for a parsed frame (x-itemMessageSchema)")
        name, schema = self._resolve(schema)
        if "oneOf" not in schema:
            self.problems.append(
                f"{path}: the frame schema {name or '(inline)'} is no oneOf of frame schemas, so a frame's "
                "data has no schema to decode it with"
            )
            members = [(name, schema)]
        else:
            members = [self._resolve(member) for member in schema["oneOf"]]
        for member_name, member in members:
            self.frames.append(self._frame(member_name or "(inline)", member))
        seen: dict[str, str] = {}
        for frame in self.frames:
            for event in frame.events:
                if event in seen:
                    self.problems.append(f"{path}: event {event!r} is both {seen[event]} and {frame.name}")
                seen[event] = frame.name

    def _resolve(self, schema: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        ref = schema.get("$ref")
        if ref is None:
            return None, schema
        name = ref.rsplit("/", 1)[-1]
        return name, self.contract["components"]["schemas"][name]

    def _events(self, schema: dict[str, Any]) -> frozenset[str]:
        _, schema = self._resolve(schema)
        if "const" in schema:
            return frozenset([schema["const"]])
        return frozenset(schema.get("enum", []))

    def _frame(self, name: str, schema: dict[str, Any]) -> FrameSchema:
        properties = schema.get("properties", {})
        events = self._events(properties.get("event", {}))
        if not events:
            self.problems.append(f"{self.path}: frame schema {name} names no event (const or enum)")
        data = properties.get("data", {})
        content_schema = data.get("contentSchema")
        data_schema = self._resolve(content_schema)[0] if content_schema else None
        if data_schema is None:
            self.problems.append(
                f"{self.path}: frame schema {name}: data is a string with no contentSchema naming the schema "
                "of its JSON"
            )
        elif data.get("contentMediaType") != "application/json":
            self.problems.append(f"{self.path}: frame schema {name}: data's contentMediaType is not application/json")
        return FrameSchema(name, events, data_schema)

    def frame_schema(self, event: str) -> FrameSchema:
        for frame in self.frames:
            if event in frame.events:
                return frame
        raise AssertionError(f"{self.path}: no frame schema covers event {event!r}")

    def data_schemas(self) -> dict[str, str | None]:
        """Event name -> the schema of its data."""
        return {event: frame.data_schema for frame in self.frames for event in frame.events}


@dataclass
class DecodedFrame:
    raw: Frame  # as the kit's reader yields it (data: the parsed JSON)
    frame: Any  # the model of its parsed form (the frame schema's ...Message)
    data: Any  # the data schema's model (frame.data)


def decode_frame(client: GeneratedClient, stream: StreamContract, raw: Frame) -> DecodedFrame:
    """Decode one frame, as the kit's reader yields it, with the generated model of its
    parsed form (``<frame schema>Message``: ``data`` of the schema the contract names);
    raise AssertionError (with what was sent) if it fails or leaves anything undecoded."""
    schema = stream.frame_schema(raw.event)
    frame_id = raw.id if isinstance(raw, Update | End) else None
    where = f"{stream.path} frame {raw.event!r}" + (f" id {frame_id}" if frame_id is not None else "")
    expected = Snapshot if raw.event == "snapshot" else End if raw.event == "end" else None
    if expected is not None:
        assert isinstance(raw, expected), f"{where}: read as {type(raw).__name__}"
    message = {"event": raw.event, "data": raw.data} | ({"id": frame_id} if frame_id is not None else {})
    model = f"{schema.name}Message"
    try:
        frame = client.model(model).from_dict(message)
    except Exception as error:
        raise AssertionError(f"{where}: {model}.from_dict failed ({error!r}) on {_brief(message)}") from error
    if schema.data_schema is None:
        raise AssertionError(f"{where}: the contract names no schema for its data")
    data_model = client.model(schema.data_schema)
    assert isinstance(frame.data, data_model), f"{where}: data decoded as {type(frame.data).__name__}"
    problems = audit(frame, f"{where} ({model})")
    assert not problems, "\n".join(problems)
    return DecodedFrame(raw, frame, frame.data)
