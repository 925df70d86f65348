"""The shell walkthrough of docs/api.md as a test runs it: its ```sh blocks cut into steps,
and the answers its ``# ->`` comments show, as patterns to match.

A *step* is one command (with its ``\\`` continuation lines) and the comment lines
right under it that show its answer:

* ``# -> 201 {"game": {"id": 1, ...}, ...}`` - the HTTP status (optional) and the
  JSON answer of the step's last request, continued on lines ``#    ...``;
* ``# -> 204`` - the status alone;
* under a ``curl -N`` (a stream), the ``# `` lines are the stream as it is sent,
  message by message (``retry:``, ``event:``, ``id:``, ``data:``).

In a JSON pattern ``...`` is what the page leaves out: ``{...}`` any object,
``[...]`` any list, ``[a, ...]`` a list that starts with ``a``, ``{"k": 1, ...}``
an object with at least ``k`` (objects are always matched on the keys shown),
``"..."`` any value and ``"cf_..."`` any string that starts ``cf_``. Everything
else is compared exactly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

ANY = "\x00any"  # "..." as a value
MORE = "\x00more"  # "..." as a list's last item
TEXT = "\x00text:"  # a string with "..." in it: a pattern


@dataclass
class Step:
    command: str
    status: int | None = None
    answer: Any = None  # a JSON pattern, or None when the page shows none
    stream: list[dict[str, str]] = field(default_factory=list)  # a curl -N's messages

    @property
    def streams(self) -> bool:
        return bool(re.search(r"\bcurl\b.*\s-N\b", self.command))


def sections(text: str, titles: tuple[str, ...]) -> dict[str, str]:
    """The body of each ``## `` section whose title starts with one of ``titles``."""
    found: dict[str, str] = {}
    parts = re.split(r"^## ", text, flags=re.MULTILINE)
    for part in parts[1:]:
        title, _, body = part.partition("\n")
        for wanted in titles:
            if title.startswith(wanted):
                found[wanted] = body
    missing = set(titles) - set(found)
    assert not missing, f"the page has no section {sorted(missing)}"
    return found


def sh_blocks(section: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)


def steps(block: str) -> list[Step]:
    """The block cut into steps (see the module's docstring)."""
    result: list[Step] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        command = [line]
        while command[-1].rstrip().endswith("\\"):
            i += 1
            command.append(lines[i])
        i += 1
        comments: list[str] = []
        while i < len(lines) and lines[i].startswith("#"):
            comments.append(lines[i])
            i += 1
        step = Step("\n".join(command))
        if step.streams:
            step.stream = _stream_messages(comments)
        else:
            _read_answer(step, comments)
        result.append(step)
    return result


def _read_answer(step: Step, comments: list[str]) -> None:
    shown: list[str] = []
    for comment in comments:
        if comment.startswith("# -> "):
            shown = [comment[len("# -> ") :]]
        elif shown and comment.startswith("#    "):
            shown.append(comment[1:].strip())
        elif shown:
            break  # a new remark: the answer is over
    if not shown:
        return
    text = " ".join(shown).strip()
    status = re.match(r"^(\d{3})\b\s*", text)
    if status:
        step.status = int(status.group(1))
        text = text[status.end() :]
    if text:
        step.answer = pattern(text)


def _stream_messages(comments: list[str]) -> list[dict[str, str]]:
    messages: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for comment in comments:
        line = comment[2:] if comment.startswith("# ") else ""
        if not line:
            if current:
                messages.append(current)
            current = {}
            continue
        name, _, value = line.partition(": ")
        current[name] = value
    if current:
        messages.append(current)
    return messages


def pattern(text: str) -> Any:
    """A JSON example with ``...`` in it, as a pattern for ``matches``."""
    text = re.sub(r'"((?:[^"\\]|\\.)*)"', _string_pattern, text)
    text = re.sub(r"\{\s*\.\.\.\s*\}", "{}", text)
    text = re.sub(r"\[\s*\.\.\.\s*\]", lambda _: json.dumps([MORE]), text)
    text = re.sub(r",\s*\.\.\.\s*\]", lambda _: ", " + json.dumps(MORE) + "]", text)
    text = re.sub(r",\s*\.\.\.\s*\}", "}", text)
    return json.loads(text)


def _string_pattern(match: re.Match[str]) -> str:
    value = json.loads(match.group(0))
    if value == "...":
        return json.dumps(ANY)
    if "..." in value:
        return json.dumps(TEXT + value)
    return match.group(0)


def mismatch(expected: Any, actual: Any, where: str = "") -> str | None:
    """None if ``actual`` matches the pattern ``expected``, else where and how it does not."""
    here = where or "the answer"
    if expected == ANY:
        return None
    if isinstance(expected, str) and expected.startswith(TEXT):
        regex = ".*".join(re.escape(part) for part in expected[len(TEXT) :].split("..."))
        if isinstance(actual, str) and re.fullmatch(regex, actual, flags=re.DOTALL):
            return None
        return f"{here}: {actual!r} is not like {expected[len(TEXT) :]!r}"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{here}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{here}: no {key!r} in {sorted(actual)}"
            problem = mismatch(value, actual[key], f"{where}.{key}" if where else key)
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{here}: expected a list, got {actual!r}"
        more = bool(expected) and expected[-1] == MORE
        items = expected[:-1] if more else expected
        if len(actual) < len(items) or (not more and len(actual) != len(items)):
            return f"{here}: expected {len(items)}{' or more' if more else ''} items, got {len(actual)}: {actual!r}"
        for n, item in enumerate(items):
            problem = mismatch(item, actual[n], f"{where}[{n}]")
            if problem:
                return problem
        return None
    if type(expected) is not type(actual) or expected != actual:
        return f"{here}: expected {expected!r}, got {actual!r}"
    return None
