"""The API walkthrough (docs/api.md), run as a newcomer runs it: ``PORT=... make
serve`` on a fresh database, then every ```sh block of "Players and tokens",
"Playing a match over HTTP" and "Waiting for moves" pasted into one bash, in
order, with curl and jq. A step fails the test when it exits non-zero, when a
request gets an error the page does not show, or when an answer differs from its
``# ->`` comment (``tests/integration/readme.py`` says how those are read)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.readme import Step, mismatch, pattern, sections, sh_blocks, steps
from tests.integration.serve import Serve
from tests.integration.workers import ROOT

pytestmark = [pytest.mark.slow]

WALKTHROUGH_PAGE = ROOT / "docs" / "api.md"
OPERATIONS = ROOT / "docs" / "operations.md"
WALKTHROUGH = ("Players and tokens", "Playing a match over HTTP", "Waiting for moves")
REQUEST_SECONDS = 30
STREAM_SECONDS = 3  # a stream stays open: the test reads it this long, then hangs up
CURL_TIMED_OUT = 28

# curl as docs/api.md calls it, but the test also sees each request's status and
# keeps the last answer of a step (even when docs/api.md pipes it into jq).
PRELUDE = """
set -u -o pipefail
curl() {
  local limit=REQUEST_SECONDS
  case " $* " in *" -N "*) limit=STREAM_SECONDS ;; esac
  command curl --max-time "$limit" --write-out '%{stderr}@@HTTP %{http_code}\\n' "$@" | tee "$CF_BODY"
  return "${PIPESTATUS[0]}"
}
""".replace("REQUEST_SECONDS", str(REQUEST_SECONDS)).replace("STREAM_SECONDS", str(STREAM_SECONDS))


def walkthrough() -> list[Step]:
    found = sections(WALKTHROUGH_PAGE.read_text(), WALKTHROUGH)
    return [step for title in WALKTHROUGH for block in sh_blocks(found[title]) for step in steps(block)]


def script(all_steps: list[Step], folder: Path, port: int) -> str:
    lines = [PRELUDE]
    for n, step in enumerate(all_steps):
        command = step.command.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        lines += [
            f'CF_BODY={folder}/step-{n}.body; : > "$CF_BODY"',
            f"printf '@@STEP {n}\\n' >&2",
            command,
            f"printf '@@RC {n} %d\\n' $? >&2",
        ]
    return "\n".join(lines) + "\n"


def test_the_walkthrough_parses_into_steps_with_answers():
    """Not a live test: docs/api.md still has the walkthrough this module runs."""
    all_steps = walkthrough()
    assert len(all_steps) > 20
    assert sum(step.answer is not None or step.status is not None for step in all_steps) > 15
    assert any(step.stream for step in all_steps)


def test_the_patterns_mean_what_the_docstring_says():
    assert not mismatch(pattern('{"a": 1, "b": [...], "c": {...}, ...}'), {"a": 1, "b": [2], "c": {"d": 3}, "e": 4})
    assert mismatch(pattern('{"a": 1}'), {"a": 2})
    assert not mismatch(pattern('["x", ...]'), ["x", "y"])
    assert mismatch(pattern('["x"]'), ["x", "y"])
    assert not mismatch(pattern('{"t": "cf_...", "p": "..."}'), {"t": "cf_12_ab", "p": 7})
    assert mismatch(pattern('{"t": "cf_..."}'), {"t": "xx"})


def test_the_procfile_shown_is_the_procfile():
    shown = re.search(
        r"\[`Procfile`\]\(\.\./Procfile\), whole:\n\n```text\n(.*?)```", OPERATIONS.read_text(), re.DOTALL
    )
    assert shown, "docs/operations.md's Procfile block is gone"
    assert shown.group(1) == (ROOT / "Procfile").read_text()


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the walkthrough needs curl and jq")
def test_every_walkthrough_example_answers_what_the_readme_says(tmp_path):
    server = Serve(tmp_path / "serve", via_make=True, account=False)  # PORT=<free port> make serve
    try:
        assert f"http://127.0.0.1:{server.port}/api/v1/health/" in server.log()
        all_steps = walkthrough()
        run = subprocess.run(
            ["bash", "-c", script(all_steps, tmp_path, server.port)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        server.stop()
    problems = check(all_steps, run.stderr, tmp_path)
    assert not problems, "\n\n".join(problems) + f"\n\nserver log:\n{server.log()[-3000:]}"


def check(all_steps: list[Step], stderr: str, folder: Path) -> list[str]:
    """What went wrong, one paragraph per step that failed."""
    reports = _split_stderr(stderr)
    problems = []
    for n, step in enumerate(all_steps):
        if n not in reports:
            problems.append(f"step {n} never ran:\n{step.command}\nbash said:\n{stderr[-2000:]}")
            break
        rc, statuses, noise = reports[n]
        body = (folder / f"step-{n}.body").read_text()
        problem = _step_problem(step, rc, statuses, body)
        if problem:
            problems.append(f"step {n}:\n{step.command}\n-> {problem}\nstderr: {noise!r}\nanswer: {body[:1500]}")
    return problems


def _split_stderr(stderr: str) -> dict[int, tuple[int, list[int], str]]:
    reports: dict[int, tuple[int, list[int], str]] = {}
    statuses: list[int] = []
    noise: list[str] = []
    for line in stderr.splitlines():
        if re.fullmatch(r"@@STEP \d+", line):
            statuses, noise = [], []
        elif m := re.fullmatch(r"@@HTTP (\d+)", line):
            statuses.append(int(m.group(1)))
        elif m := re.fullmatch(r"@@RC (\d+) (\d+)", line):
            reports[int(m.group(1))] = (int(m.group(2)), statuses, "\n".join(noise))
        else:
            noise.append(line)
    return reports


def _step_problem(step: Step, rc: int, statuses: list[int], body: str) -> str | None:
    if rc != 0 and not (step.streams and rc == CURL_TIMED_OUT):
        return f"exit status {rc}"
    if step.status is not None and (not statuses or statuses[-1] != step.status):
        return f"HTTP {statuses}, docs/api.md says {step.status}"
    errors = [status for status in statuses if status >= 400 and status != step.status]
    if errors or (statuses and 0 in statuses):
        return f"HTTP {statuses}: an error docs/api.md does not show"
    if step.stream:
        return _stream_problem(step.stream, body)
    if step.answer is not None:
        try:
            answer = json.loads(body)
        except ValueError:
            return "the answer is not JSON"
        return mismatch(step.answer, answer)
    return None


def _stream_problem(expected: list[dict[str, str]], body: str) -> str | None:
    messages = []
    for chunk in re.split(r"\n\n+", body.strip()):
        fields = dict(line.split(": ", 1) for line in chunk.splitlines() if ": " in line and not line.startswith(":"))
        if fields:
            messages.append(fields)
    if len(messages) < len(expected):
        return f"{len(messages)} messages, docs/api.md shows {len(expected)}"
    for n, (shown, sent) in enumerate(zip(expected, messages, strict=False)):
        if set(shown) != set(sent):
            return f"message {n} has {sorted(sent)}, docs/api.md shows {sorted(shown)}"
        for name, value in shown.items():
            if name == "data":
                problem = mismatch(pattern(value), json.loads(sent[name]), f"message {n} data")
                if problem:
                    return problem
            elif value != sent[name]:
                return f"message {n}: {name}: {sent[name]!r}, docs/api.md shows {value!r}"
    return None
