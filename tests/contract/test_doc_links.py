"""The documentation holds together: every relative link in README.md,
CONTRIBUTING.md and docs/*.md resolves (the file, and the #anchor in it), every
command the README's quick start shows is a real Makefile target, and the engine's
rule tests cite sections of docs/rules.md that exist, quoting its text.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) and ![alt](target); text may span lines, target has no blanks.
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`+[^`]*`+")


def prose(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks: (line number, line)."""
    lines = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        lines.append((number, line))
    return lines


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every link in ``path``'s prose, code spans left out."""
    found = []
    lines = prose(path.read_text())
    # Join the prose so that a link's text may run over a line break; keep line numbers.
    text = "\n".join(CODE_SPAN.sub("", line) for _, line in lines)
    starts = [0]
    for _, line in lines:
        starts.append(starts[-1] + len(CODE_SPAN.sub("", line)) + 1)
    for match in LINK.finditer(text):
        index = max(i for i, start in enumerate(starts[:-1]) if start <= match.start())
        number, _ = lines[index]
        found.append((number, match.group(1)))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, blanks to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link: its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for _, line in prose(path.read_text()):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def problems(path: Path) -> list[str]:
    found = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        name, _, anchor = target.partition("#")
        resolved = (path.parent / name).resolve() if name else path
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not resolved.exists():
            found.append(f"{where}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            found.append(f"{where}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
        elif anchor and resolved.suffix != ".md":
            found.append(f"{where}: an anchor into a file that is not Markdown")
    return found


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    assert links(path) or path.name != "README.md", "the README links to nothing?"
    found = problems(path)
    assert not found, "\n".join(found)


def test_the_link_check_finds_what_is_broken(tmp_path: Path) -> None:
    """The checker itself: a missing file, a missing anchor, a link in code (ignored)."""
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A `code` heading: with, punctuation\n")
    page.write_text(
        "# Page\n\n[ok](other.md#a-code-heading-with-punctuation) [self](#page)\n"
        "[gone](missing.md) [bad anchor](other.md#nope)\n`[in code](nowhere.md)`\n"
        "```\n[in a block](nowhere.md)\n```\n[split\nacross lines](missing2.md)\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = problems(page)
    finally:
        ROOT = saved
    assert [line.split(": ", 1)[1] for line in found] == [
        "missing.md: no such file",
        "other.md#nope: no heading #nope in other.md",
        "missing2.md: no such file",
    ]


def quick_start() -> str:
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^## Quick start\n(.*?)(?=^## )", text, re.MULTILINE | re.DOTALL)
    assert section, "the README has no Quick start section"
    return section.group(1)


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w-]*):(?!=)", text, re.MULTILINE))


def quick_start_commands() -> list[str]:
    section = quick_start()
    blocks = re.findall(r"^```sh\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    commands = [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines()]
    commands += [span for _, line in prose(section) for span in CODE_SPAN.findall(line)]
    return [c.strip("`").strip() for c in commands if re.search(r"\bmake\b", c)]


def test_the_quick_start_shows_make_serve_and_make_test() -> None:
    commands = quick_start_commands()
    assert "make serve" in commands and "make test" in commands


def test_every_make_command_of_the_quick_start_is_a_makefile_target() -> None:
    targets = makefile_targets()
    for command in quick_start_commands():
        words = [w for w in command.split() if not re.match(r"^[A-Z_]+=", w)]  # PORT=8080 make serve
        assert words[0] == "make", command
        for target in words[1:]:
            assert target in targets, f"the quick start shows `{command}`: the Makefile has no target {target}"


@pytest.mark.parametrize("target", ["serve", "test"])
def test_the_quick_start_targets_resolve_to_commands(target: str) -> None:
    """``make -n``: make works out every recipe the target runs (and its
    prerequisites') without running them; a missing file or target fails."""
    run = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "manage.py" in run.stdout or "pytest" in run.stdout


RULE_TESTS = sorted((ROOT / "tests" / "engine").glob("test_rules_*.py"))


@pytest.mark.parametrize("path", RULE_TESTS, ids=lambda p: p.name)
def test_the_rule_tests_cite_sections_of_docs_rules(path: Path) -> None:
    """Each module's docstring names the docs/rules.md sections it tests; they exist,
    and every rule a test quotes (a docstring that opens with a quotation) is there."""
    rules = (ROOT / "docs" / "rules.md").read_text()
    headings = {h.strip() for h in re.findall(r"^## (.*)$", rules, re.MULTILINE)}
    source = path.read_text()
    head = source.split('"""')[1]
    assert head.startswith("docs/rules.md, section"), f"{path.name} does not cite docs/rules.md"
    cited = re.findall(r'"([^"]+)"', head.split(":", 1)[0])
    assert cited and set(cited) <= headings, f"{path.name} cites {cited}; docs/rules.md has {sorted(headings)}"
    flat = " ".join(rules.split())
    quotes = 0
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef):
            continue
        doc = ast.get_docstring(node) or ""
        if doc.startswith('"'):
            # The quotation's opening words, up to its first inner quote (rules quote
            # words like ("domino") themselves) or its first elision ("..."): enough
            # to find the rule it cites.
            opening = " ".join(doc[1:].split('"', 1)[0].split("...", 1)[0].split())[:60].strip()
            assert opening in flat, f"{path.name}, {node.name}: docs/rules.md does not say {opening!r}"
            quotes += 1
    assert quotes, f"{path.name} quotes no rule"
