"""The whole site in Estonian: no English left on any page a player sees.

Two headless Chromiums against the embedded ``manage.py serve``, one reading English
and one Estonian (the ``language`` cookie the page's switch sets), both signed in as
the same player, walk the same pages in the same states side by side: the lobby, the
table during play and at the held end of a hand, the replay of a finished rated match,
the player's profile, the leaderboard, the bot ladder, the account page and How to
play. On each, every text a person reads or hears (visible text nodes, text for screen
readers, ``aria-label``/``title``/``placeholder``/``alt``, the options of a visible
list and their titles, the document title) is read from both pages, at desktop size and at phone size.
Any word of the Estonian page that also appears on the English page is English left
behind - unless it is a player's name, or one of the few words both languages write
alike (``SHARED_WORDS``). Numbers and tile pips have no letters and pass.

A string left out of the catalogue, a machine value shown raw ("hard", "running") or
a server text not translated shows up here as the word(s) and the page they are on.
Screenshots: artifacts/web-<page>-<size>-<language>.png.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import base_url, check_requests_against_contract, save_shot, session_sign_in, until
from tests.web.test_find import play_rated_match, register

pytestmark = [pytest.mark.slow]

LANGUAGES = ("en", "et")
SIZES = {"desktop": (1366, 768), "phone": (360, 740)}
PLAYERS = ("kadriann", "bertilbo")  # letters only: their names are whole words on the pages

# Words both languages write alike: "on" (Estonian "is"), the language switch's "English"
# and "Eesti" (each language named in its own words, on both pages), the abbreviations
# "API", "JSON" and "ms" (milliseconds), "server" (an Estonian word too), the rating's "mu" and
# "sigma" (its Greek letters, in the formula "mu - 3 sigma"). One-letter words ("s",
# seconds) are never counted.
SHARED_WORDS = {"on", "english", "eesti", "api", "json", "ms", "server", "mu", "sigma"}

TEXTS = """
// Names are not text to translate: players' names (links to their profiles) and the
// names of signed-in devices (given by whoever signed in, in their language).
const NAMES = '[data-testid=player-link], [data-testid=device-name]';
const visible = (e) => Boolean(e) && e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
const texts = [document.title];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const text = node.nodeValue.trim();
  const parent = node.parentElement;
  if (!text || !parent || parent.closest('script, style, template, noscript') || parent.closest(NAMES)) continue;
  const svg = parent.closest('svg');  // an SVG's <title>/<desc> is its accessible name
  if (svg ? visible(svg) : visible(parent)) texts.push(text);
}
for (const element of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
  if (!visible(element.closest('svg') || element)) continue;
  for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
    const value = (element.getAttribute(name) || '').trim();
    if (value) texts.push(value);
  }
}
// An option has no box of its own (checkVisibility says no): its words, and its title
// (the tooltip), count when its list is shown.
for (const option of document.querySelectorAll('select option')) {
  if (!visible(option.closest('select'))) continue;
  texts.push(option.textContent.trim());
  if (option.title.trim()) texts.push(option.title.trim());
}
return texts;
"""

LOADING = re.compile(
    r"^(Loading|Laadin|Connecting|Ühendan)", re.IGNORECASE
)  # "Loading…", "connecting..." in either language


def words(text: str) -> set[str]:
    return {word for word in re.findall(r"[^\W\d_]+", text.lower()) if len(word) > 1}


def page_texts(driver: Any) -> list[str]:
    return [str(text) for text in driver.execute_script(TEXTS)]


def english_left(english: list[str], estonian: list[str]) -> list[str]:
    """Each text of the Estonian page with a word of the English page in it (not a name
    or a shared word), as 'text: word, word'."""
    known = set().union(*(words(text) for text in english)) - SHARED_WORDS - set(PLAYERS)
    left = []
    for text in estonian:
        found = sorted(words(text) & known)
        if found:
            left.append(f"{text!r}: {', '.join(found)}")
    return sorted(set(left))


def ready_when(selector: str) -> Callable[[Any], bool]:
    """The page drawn: ``selector`` matches, and nothing says it is still loading."""

    def ready(driver: Any) -> bool:
        if not driver.execute_script("return Boolean(document.querySelector(arguments[0]));", selector):
            return False
        return not any(LOADING.search(text) for text in page_texts(driver))

    return ready


def compare(drivers: dict[str, Any], page: str, ready: Callable[[Any], bool]) -> list[str]:
    """Both pages drawn, at both sizes: the English words left on the Estonian one."""
    from selenium.common.exceptions import TimeoutException

    problems = []
    for size, (width, height) in SIZES.items():
        texts = {}
        for language, driver in drivers.items():
            driver.set_window_size(width, height)
            try:
                until(driver, f"{page} ({language}, {size})", ready)
            except TimeoutException as timeout:
                loading = [text for text in page_texts(driver) if LOADING.search(text)]
                raise AssertionError(f"{timeout}; still loading: {loading}; url {driver.current_url}") from timeout
            assert driver.execute_script("return document.documentElement.lang") == language
            texts[language] = page_texts(driver)
            save_shot(driver, f"{page}-{size}-{language}")
        assert len(texts["et"]) > 3, texts["et"]
        problems += [f"{page} ({size}): {line}" for line in english_left(texts["en"], texts["et"])]
    return problems


def visit(drivers: dict[str, Any], server: Serve, path: str) -> None:
    for driver in drivers.values():
        driver.get(base_url(server) + path)


def test_every_page_in_estonian_has_no_english_left(embedded: Serve, make_browser: Callable[..., Any]) -> None:
    tokens = {name: register(embedded, name)[1] for name in PLAYERS}
    finished = play_rated_match(embedded, tokens, random.Random(39))
    me, token = PLAYERS[0], tokens[PLAYERS[0]]

    drivers: dict[str, Any] = {}
    for language in LANGUAGES:
        driver = make_browser(*SIZES["desktop"])
        driver.get(base_url(embedded) + "/login/")
        driver.add_cookie({"name": "language", "value": language, "path": "/"})
        session_sign_in(driver, embedded, me)
        drivers[language] = driver

    problems: list[str] = []
    visit(drivers, embedded, "/")
    problems += compare(drivers, "lobby", ready_when("#account-stream-status[data-state=open]"))
    visit(drivers, embedded, f"/players/{me}/")
    problems += compare(drivers, "profile", ready_when("#profile[data-state=ready] [data-testid=rating-chart]"))
    # One rated match so far: the chart's name counts it in the singular ("1 mäng", not "1 mängu").
    chart = "return document.querySelector('[data-testid=rating-chart]').getAttribute('aria-label')"
    assert drivers["et"].execute_script(chart).endswith(": 1 mäng"), drivers["et"].execute_script(chart)
    visit(drivers, embedded, "/leaderboard/?pool=2&kind=humans")
    problems += compare(drivers, "leaderboard", ready_when("#leaderboard[data-state=ready] [data-testid=board-row]"))
    visit(drivers, embedded, "/ladder/")
    problems += compare(drivers, "ladder", ready_when("#ladder[data-state=ready]"))
    visit(drivers, embedded, "/account/")
    problems += compare(drivers, "account", ready_when("[data-testid=account-page] [data-testid=device-revoke]"))
    visit(drivers, embedded, "/rules/")
    problems += compare(drivers, "rules", ready_when("#rules[data-lang]"))
    visit(drivers, embedded, f"/games/{finished}/replay/")
    problems += compare(drivers, "replay", ready_when("[data-testid=replay][data-status=finished]"))
    visit(drivers, embedded, f"/games/{finished}/")
    problems += compare(drivers, "table-finished", ready_when("[data-testid=table][data-status=finished]"))

    # A table in play against a server bot, then the held end of its first hand.
    body = {"ruleset": {"set_max": 6, "players": 2, "rounds": 2}, "bot_delay_ms": 0, "turn_time_limit": 600}
    status, created = request(embedded.port, "POST", "/api/v1/games/", body, token=token)
    assert status == 201, created
    game = created["game"]["id"]
    for path, sent in ((f"/api/v1/games/{game}/bots/", {"strategy": "hard"}), (f"/api/v1/games/{game}/start/", {})):
        status, answer = request(embedded.port, "POST", path, sent, token=token)
        assert status == 200, answer
    visit(drivers, embedded, f"/games/{game}/")
    problems += compare(drivers, "table", ready_when("[data-testid=table][data-your-turn=true][data-busy=false]"))

    play_until_the_first_hand_ends(embedded, game, token)
    problems += compare(
        drivers, "hand-over", ready_when("[data-testid=hand-over]:not([hidden]) [data-testid=next-hand]")
    )
    assert not problems, "English left on the Estonian page:\n" + "\n".join(problems)
    for driver in drivers.values():
        check_requests_against_contract(driver)


def play_until_the_first_hand_ends(server: Serve, game: int, token: str) -> None:
    """My moves over the API (the first legal one each turn) until hand 1 is over."""
    for _ in range(400):
        status, view = request(server.port, "GET", f"/api/v1/games/{game}/", token=token)
        assert status == 200, view
        rounds = view["state"].get("rounds") or []
        if len(rounds) >= 1 or view["game"]["status"] != "running":
            return
        if not view["you"]["your_turn"]:
            request(server.port, "GET", f"/api/v1/games/{game}/events/?after={view['game']['seq']}&wait=5", token=token)
            continue
        move = view["you"]["legal_moves"][0]
        status, answer = request(
            server.port,
            "POST",
            f"/api/v1/games/{game}/moves/",
            {**move, "expected_seq": view["game"]["seq"]},
            token=token,
        )
        assert status in (201, 409), answer
    raise AssertionError("the first hand never ended")
