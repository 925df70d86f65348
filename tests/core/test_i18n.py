"""Translation (docs/i18n.md): the catalogues are complete and current, the API
answers people in their language while its machine fields stay the same, and the
browser paths' error pages speak the reader's language.

* Catalogues: no untranslated or fuzzy message in ``locale/*/LC_MESSAGES`` (both
  domains), no message of the code missing from them (``makemessages`` run over a
  copy of the tree and compared), the committed ``.mo`` files compiled from the
  ``.po`` files as they are. Needs GNU gettext (``xgettext``, ``msgfmt``): without
  it these tests are skipped, saying why - under ``CI=true`` that is a failure.
* Problems: ``title`` and ``detail`` in Estonian with ``Accept-Language: et`` or the
  language cookie, English otherwise; ``code`` and ``type`` the same in both;
  ``Content-Language`` says which.
"""

from __future__ import annotations

import gettext as gnu_gettext
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.utils import translation

from core.errors import ERROR_CODES
from core.humanize import duration, try_again_in
from tests.api.games_helpers import GAMES
from tests.api.problems import assert_problem
from tests.services import in_ci

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
DOMAINS = ("django", "djangojs")
TRANSLATED = [code for code, _ in settings.LANGUAGES if code != "en"]
# What `make messages` leaves out of the scan (Makefile's MESSAGES_IGNORE) and what a copy needs not hold.
NOT_SCANNED = {
    ".git",
    ".venv",
    "node_modules",
    "staticfiles",
    "tests",
    "artifacts",
    ".run",
    "typescript",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    ".schemathesis",
    ".import_linter_cache",
}


# -- the catalogues ------------------------------------------------------------------------


def _gettext_tools() -> None:
    missing = [tool for tool in ("xgettext", "msgfmt", "msgmerge") if shutil.which(tool) is None]
    if missing:
        if in_ci():
            pytest.fail(f"CI=true and GNU gettext is missing ({', '.join(missing)}): .ci/run installs it")
        pytest.skip(f"needs GNU gettext: {', '.join(missing)} not found (apt-get install gettext)")


def parse_po(path: Path) -> list[dict[str, Any]]:
    """The entries of a .po file: msgid, msgid_plural, msgstr (a list), flags, obsolete."""
    entries: list[dict[str, Any]] = []
    entry: dict[str, Any] = {}
    field = ""

    def close() -> None:
        if "msgid" in entry:
            entries.append(dict(entry))
        entry.clear()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            close()
            continue
        if line.startswith("#~"):
            entry["obsolete"] = True
            continue
        if line.startswith("#,"):
            if "msgid" in entry:
                close()
            entry.setdefault("flags", set()).update(flag.strip() for flag in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+"(.*)"$', line)
        if match:
            keyword, text = match.groups()
            if keyword in ("msgctxt", "msgid") and "msgid" in entry:
                close()
            field = keyword
            if keyword.startswith("msgstr"):
                entry.setdefault("msgstr", []).append(text)
                field = "msgstr"
            else:
                entry[keyword] = text
        elif line.startswith('"') and field:
            text = line[1:-1]
            if field == "msgstr":
                entry["msgstr"][-1] += text
            else:
                entry[field] += text
    close()
    return entries


def messages(path: Path) -> dict[tuple[str, str, str], list[str]]:
    """(msgctxt, msgid, msgid_plural) -> msgstrs, without the header and obsolete entries."""
    return {
        (e.get("msgctxt", ""), e["msgid"], e.get("msgid_plural", "")): e.get("msgstr", [])
        for e in parse_po(path)
        if e["msgid"] and not e.get("obsolete")
    }


def catalogues() -> Iterator[Path]:
    for language in TRANSLATED:
        for domain in DOMAINS:
            yield LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


@pytest.mark.parametrize("po", list(catalogues()), ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_every_message_is_translated_and_none_is_fuzzy(po: Path) -> None:
    assert po.is_file(), f"{po} is missing: run make messages"
    entries = [e for e in parse_po(po) if e["msgid"] and not e.get("obsolete")]
    assert entries, f"{po} holds no message"
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e.get("flags", set())]
    untranslated = [e["msgid"] for e in entries if not e.get("msgstr") or not all(e["msgstr"])]
    assert not fuzzy, f"fuzzy in {po.relative_to(ROOT)} (check the translation, drop the flag): {fuzzy}"
    assert not untranslated, f"untranslated in {po.relative_to(ROOT)}: {untranslated}"
    header = next(e for e in parse_po(po) if e["msgid"] == "")
    assert "Plural-Forms: nplurals=2; plural=(n != 1);" in header["msgstr"][0]


def test_the_catalogues_hold_every_message_of_the_code(tmp_path: Path) -> None:
    """``make messages`` over a copy of the tree finds no message the catalogues lack
    (and none they hold that the code no longer has)."""
    _gettext_tools()
    copy = tmp_path / "tree"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_SCANNED, "*.sqlite3", "*.pyc"), symlinks=True)
    for language in TRANSLATED:
        command = [sys.executable, "manage.py", "makemessages", "-l", language, "--no-obsolete"]
        for domain in DOMAINS:
            done = subprocess.run(
                [*command, "-d", domain, "--ignore=clients/typescript"],
                cwd=copy,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, done.stderr
    for po in catalogues():
        fresh = messages(copy / po.relative_to(ROOT))
        committed = messages(po)
        lacking = sorted(fresh.keys() - committed.keys())
        stale = sorted(committed.keys() - fresh.keys())
        where = po.relative_to(ROOT)
        assert not lacking, f"the code has messages {where} lacks (run make messages, translate them): {lacking}"
        assert not stale, f"{where} holds messages the code no longer has (run make messages): {stale}"


@pytest.mark.parametrize("po", list(catalogues()), ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_the_committed_mo_is_compiled_from_the_po(po: Path, tmp_path: Path) -> None:
    """A fresh clone serves translations without gettext: the .mo files are committed,
    and must say what the .po files say (``make messages`` compiles them)."""
    _gettext_tools()
    compiled = tmp_path / "fresh.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(compiled), str(po)], check=True, timeout=60)
    with compiled.open("rb") as fresh, po.with_suffix(".mo").open("rb") as committed:
        expected = gnu_gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]
        actual = gnu_gettext.GNUTranslations(committed)._catalog  # type: ignore[attr-defined]
    assert actual == expected, f"{po.with_suffix('.mo').relative_to(ROOT)} is out of date: run make messages"


def test_every_problem_code_has_its_title_and_description_in_every_language() -> None:
    missing = []
    for code, spec in ERROR_CODES.items():
        if code.startswith("test_"):  # the exception handler tests' own
            continue
        with translation.override("en"):
            english = (str(spec.title), str(spec.description))
        for language in TRANSLATED:
            with translation.override(language):
                translated = (str(spec.title), str(spec.description))
            missing += [
                f"{language} {code}: {text!r}" for text, same in zip(english, translated, strict=True) if text == same
            ]
    assert not missing, "\n".join(missing)


# -- durations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "english", "estonian"),
    [
        (1, "1 second", "1 sekund"),
        (0.2, "1 second", "1 sekund"),
        (59, "59 seconds", "59 sekundit"),
        (60, "1 minute", "1 minut"),
        (2815, "47 minutes", "47 minutit"),
        (3600, "1 hour", "1 tund"),
        (3601, "1 hour and 1 minute", "1 tund ja 1 minut"),
        (7 * 3600 + 300, "7 hours and 5 minutes", "7 tundi ja 5 minutit"),
    ],
)
def test_a_wait_reads_as_people_say_it(seconds: float, english: str, estonian: str) -> None:
    with translation.override("en"):
        assert duration(seconds) == english
        assert try_again_in(seconds) == f"Too many requests: try again in {english}."
    with translation.override("et"):
        assert duration(seconds) == estonian


# -- the API's problems ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_problem_is_in_the_readers_language_and_its_code_is_not(api_client: Any) -> None:
    url = "/api/v1/games/987654/"
    english = api_client.get(url)
    assert_problem(english, 404, "not_found")
    estonian = api_client.get(url, HTTP_ACCEPT_LANGUAGE="et,en;q=0.5")
    assert_problem(estonian, 404, "not_found")
    one, other = english.json(), estonian.json()
    assert (one["code"], one["type"], one["status"]) == (other["code"], other["type"], other["status"])
    assert one["title"] == "Not found" and one["detail"] == "There is no game 987654."
    assert other["title"] == "Ei leitud" and other["detail"] == "Mängu 987654 ei ole."
    assert english["Content-Language"] == "en" and estonian["Content-Language"] == "et"
    assert "Accept-Language" in estonian["Vary"]
    # A language nobody translated: English.
    assert api_client.get(url, HTTP_ACCEPT_LANGUAGE="fr").json()["detail"] == "There is no game 987654."


@pytest.mark.django_db
def test_the_language_cookie_wins_over_accept_language(api_client: Any) -> None:
    api_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "et"
    response = api_client.get("/api/v1/games/987654/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.json()["title"] == "Ei leitud" and response["Content-Language"] == "et"


@pytest.mark.django_db
def test_validation_messages_are_translated_field_names_are_not(people: Any) -> None:
    _, client = people.player()
    body = {"turn_time_limit": "1", "bot_delay_ms": "soon"}  # both of the wrong type (core.strict)
    english = client.post(GAMES, body, format="json")
    estonian = client.post(GAMES, body, format="json", HTTP_ACCEPT_LANGUAGE="et")
    one = assert_problem(english, 400, "validation_error")
    other = assert_problem(estonian, 400, "validation_error")
    assert one["errors"].keys() == other["errors"].keys() == {"turn_time_limit", "bot_delay_ms"}
    assert one["title"] == "Invalid input" and other["title"] == "Vigased andmed"
    assert one["errors"]["bot_delay_ms"] == ["A valid integer is required."]
    assert other["errors"]["bot_delay_ms"] == ["Sisendiks peab olema täisarv."]  # core.strict, in DRF's Estonian words


@pytest.mark.django_db
def test_a_refusal_of_the_rules_engine_is_translated(make_table: Any) -> None:
    table = make_table(players=2)
    game = table.game()
    waiting = table.clients[1 - game.turn_seat]
    url = f"/api/v1/games/{table.game_id}/moves/"
    english = waiting.post(url, {"type": "pass", "expected_seq": game.seq}, format="json")
    estonian = waiting.post(url, {"type": "pass", "expected_seq": game.seq}, format="json", HTTP_ACCEPT_LANGUAGE="et")
    one = assert_problem(english, 422, "not_your_turn")
    other = assert_problem(estonian, 422, "not_your_turn")
    assert "turn" in one["detail"]
    assert other["detail"] == "Käigul on teine mängija."


@pytest.mark.django_db
@pytest.mark.urls("tests.api.error_urls")
def test_a_throttled_request_says_when_in_words_and_in_seconds(api_client: Any) -> None:
    for _ in range(2):
        assert api_client.get("/throttled/").status_code == 200
    response = api_client.get("/throttled/", HTTP_ACCEPT_LANGUAGE="et")
    body = assert_problem(response, 429, "rate_limited")
    assert 1 <= body["retry_after"] <= 60 and response["Retry-After"] == str(body["retry_after"])
    with translation.override("et"):
        assert body["detail"] == try_again_in(body["retry_after"])
    assert body["detail"].startswith("Liiga palju päringuid: oota ")
    assert "Expected available" not in body["detail"]


# -- the browser's error pages (the client's look, the reader's language) -----------------------


@pytest.mark.django_db
def test_an_unknown_browser_path_is_the_clients_404_page_in_the_readers_language(client: Any) -> None:
    english = client.get("/no/such/page/")
    assert english.status_code == 404 and english["Content-Type"].startswith("text/html")
    page = english.content.decode()
    assert '<html lang="en">' in page and "Page not found" in page and "web/css/app.css" in page
    estonian = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE="et")
    page = estonian.content.decode()
    assert estonian.status_code == 404 and '<html lang="et">' in page and "Lehte ei leitud" in page
    # Known routes written without their slash are still sent to them; the API keeps its problems.
    assert client.get("/login")["Location"] == "/login/"
    assert_problem(client.get("/api/v1/no-such-thing/", HTTP_ACCEPT_LANGUAGE="et"), 404, "not_found")


def test_the_500_page_is_the_clients_in_the_readers_language() -> None:
    from web.views import server_error

    request = RequestFactory().get("/games/7/")
    with translation.override("et"):
        response = server_error(request)
    page = response.content.decode()
    assert response.status_code == 500 and '<html lang="et">' in page and "Midagi läks valesti" in page
    api = server_error(RequestFactory().get("/api/v1/games/7/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/problem+json"


@pytest.mark.django_db
def test_the_page_is_in_the_readers_language_and_loads_the_catalogue_first(client: Any) -> None:
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="et").content.decode()
    assert '<html lang="et">' in page and "Kanajalg" in page
    catalogue, module = page.index('src="/jsi18n/"'), page.index('type="module"')
    assert catalogue < module  # a classic script, run before the modules read its `django`
    assert 'data-testid="language-et"' in page and 'data-testid="language-en"' in page
    script = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="et")
    assert script.status_code == 200 and "Kanajalg" in script.content.decode()
