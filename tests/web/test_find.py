"""Finding a game and knowing where you stand, in headless Chromium against
``manage.py serve`` (its own worker and beat: the matcher, the bots):

* Quick play: two browsers press Quick play with the same preset and land at one
  table; a third waits (the rating window shown, Cancel works), and when its wait
  runs out (``MATCHMAKING_DEFAULT_WAIT_SECONDS``, shortened here) bots fill its table.
* A challenges B by name; B, on another page, sees the notice without a reload,
  accepts, and both are at the table.
* The lobby follows the open tables by the account stream: a table someone else
  opens, and a seat taken at it, appear without a reload.
* A rated match finishes (moves sent over the API): both profiles and the
  leaderboard show the new ratings, and the history chart gains a point with the
  next match.

Click-to-drawn of the lobby and the profile page is measured in the browser and
printed (``-s``) and written to artifacts/web-find-timings.json; never asserted.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.integration.workers import ROOT
from tests.web.conftest import (
    ARTIFACTS,
    PASSWORD,
    RELAXED_LIMITS,
    base_url,
    check_requests_against_contract,
    save_shot,
    sign_in,
    until,
)
from tests.web.test_shell import by_id, css, fill, shown

browser_test = pytest.mark.slow
QUICK_WAIT_SECONDS = 15  # a seek's wait: long enough for two clicks, short enough to wait out
MATCHED_SECONDS = 30  # the matcher runs on each seek and every 2 s (beat)
LIVE_SECONDS = 10  # the account stream brings a change well within this


@pytest.fixture(scope="module")
def finder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    server = Serve(
        tmp_path_factory.mktemp("find") / "serve",
        env={**RELAXED_LIMITS, "MATCHMAKING_DEFAULT_WAIT_SECONDS": str(QUICK_WAIT_SECONDS)},
    )
    try:
        yield server
    finally:
        server.stop()


def at_table(driver: Any, seconds: float = MATCHED_SECONDS) -> int:
    """The table the page went to by itself (the router: no reload)."""
    until(
        driver,
        "the page to go to a table",
        lambda d: d.execute_script("return document.body.dataset.route") == "table",
        seconds,
    )
    path = driver.execute_script("return location.pathname")
    assert path.startswith("/games/"), path
    return int(path.split("/")[2])


def mark_no_reload(driver: Any) -> None:
    driver.execute_script("window.cfNoReload = true;")


def not_reloaded(driver: Any) -> bool:
    return bool(driver.execute_script("return window.cfNoReload === true"))


def quick_play(driver: Any, preset: str = "double-6-quick", players: int = 2) -> None:
    until(driver, "the presets", lambda d: d.find_elements("css selector", f'#quick-preset option[value="{preset}"]'))
    fill(driver, {"quick-preset": preset, "quick-players": players})
    by_id(driver, "quick-submit").click()


def seat_names(server: Serve, game_id: int) -> list[str | None]:
    status, body = server.api("GET", f"/games/{game_id}/")
    assert status == 200, body
    return [(s["player"] or {}).get("username") for s in body["game"]["seats"]]


@browser_test
def test_quick_play_seats_two_browsers_together_and_bots_fill_a_lone_seek(finder: Serve, make_browser: Any) -> None:
    ann, ben, cai = make_browser(), make_browser(), make_browser(360, 740)
    for driver, name in ((ann, "qp-ann"), (ben, "qp-ben"), (cai, "qp-cai")):
        sign_in(driver, finder, name)
        shown(driver, "#quick-play")
        mark_no_reload(driver)

    quick_play(ann)
    waiting = shown(ann, "[data-testid=seek-waiting]")
    assert css(ann, "#quick-play").get_attribute("data-state") == "waiting"
    # rated by default: the rating window around ann's rating (0: no rating yet)
    until(ann, "the rating window", lambda d: "to" in css(d, "[data-testid=seek-window]").text)
    assert "Bots take the empty seats" in waiting.text
    quick_play(ben)
    table = at_table(ann)
    assert at_table(ben) == table
    assert sorted(n for n in seat_names(finder, table) if n) == ["qp-ann", "qp-ben"]
    assert not_reloaded(ann) and not_reloaded(ben)

    # A lone seeker: Cancel, then again - and at the end of its wait bots take the seats.
    quick_play(cai)
    shown(cai, "#quick-cancel").click()
    until(cai, "the seek cancelled", lambda d: css(d, "#quick-play").get_attribute("data-state") == "idle")
    assert finder.api("GET", "/games/")[0] == 200
    save_shot(cai, "phone-quick-play")
    quick_play(cai)
    shown(cai, "[data-testid=seek-waiting]")
    save_shot(cai, "phone-quick-play-waiting")
    lone = at_table(cai, QUICK_WAIT_SECONDS + MATCHED_SECONDS)
    assert lone != table
    _, body = finder.api("GET", f"/games/{lone}/")
    seats = body["game"]["seats"]
    assert [s["player"]["username"] for s in seats if s["player"] and not s["player"]["is_bot"]] == ["qp-cai"]
    assert any(s["bot_strategy"] or (s["player"] and s["player"]["is_bot"]) for s in seats)
    assert body["game"]["status"] in ("running", "finished")
    assert not_reloaded(cai)
    made = check_requests_against_contract(ann) | check_requests_against_contract(cai)
    assert {("POST", "/api/v1/seeks/"), ("DELETE", "/api/v1/seeks/{seek_id}/"), ("GET", "/api/v1/presets/")} <= made


@browser_test
def test_a_challenge_by_name_is_a_notice_accepted_without_a_reload(finder: Serve, make_browser: Any) -> None:
    ada, bea = make_browser(), make_browser()
    sign_in(ada, finder, "ch-ada")
    sign_in(bea, finder, "ch-bea")
    # another page than the lobby (by the header's link): the notice shows everywhere
    shown(bea, "[data-testid=nav-leaderboard]").click()
    shown(bea, "#leaderboard")
    mark_no_reload(bea)

    shown(ada, "#challenge summary").click()
    fill(ada, {"challenge-to": "ch-bea", "challenge-set": 6, "challenge-rounds": 1})
    by_id(ada, "challenge-submit").click()
    sent = shown(ada, '[data-testid=challenge-notice][data-role="sent"]', LIVE_SECONDS)
    assert "ch-bea" in sent.text

    notice = shown(bea, '[data-testid=challenge-notice][data-role="received"]', LIVE_SECONDS)
    assert "ch-ada" in notice.text and "casual" in notice.text
    save_shot(bea, "challenge-notice")
    css(bea, '[data-testid=challenge-notice] [data-action="accept"]').click()
    game = at_table(bea)
    assert at_table(ada) == game
    assert seat_names(finder, game) == ["ch-ada", "ch-bea"]
    assert not_reloaded(bea)
    until(bea, "the notice gone", lambda d: not d.find_elements("css selector", "[data-testid=challenge-notice]"))
    made = check_requests_against_contract(ada) | check_requests_against_contract(bea)
    assert {("POST", "/api/v1/challenges/"), ("POST", "/api/v1/challenges/{challenge_id}/accept/")} <= made


@browser_test
def test_the_lobby_follows_new_tables_and_seats_by_the_account_stream(finder: Serve, browser: Any) -> None:
    sign_in(browser, finder, "lb-eve")
    until(
        browser, "the account stream", lambda d: css(d, "#account-stream-status").get_attribute("data-state") == "open"
    )
    mark_no_reload(browser)
    status, created = finder.api(
        "POST", "/games/", {"ruleset": {"set_max": 6, "players": 3, "rounds": 1}, "rated": True}
    )
    assert status == 201, created
    game_id = created["game"]["id"]
    card = f'#game-list [data-testid=game-card][data-game="{game_id}"]'
    shown(browser, card, LIVE_SECONDS)
    assert css(browser, f"{card} [data-testid=rated]").text == "Rated"
    # someone takes a seat: the card shows it
    _, token = register(finder, "lb-fay")
    status, _ = request(finder.port, "POST", f"/api/v1/games/{game_id}/join/", {}, token=token)
    assert status == 200
    until(browser, "the seat taken", lambda d: "lb-fay" in css(d, f'{card} [data-seat="1"]').text, LIVE_SECONDS)
    # names link to profiles
    assert css(browser, f'{card} [data-seat="1"] a').get_attribute("href").endswith("/players/lb-fay/")
    # started: it leaves the open tables
    status, _ = finder.api("POST", f"/games/{game_id}/abort/", {})
    assert status == 200
    until(browser, "the table gone", lambda d: not d.find_elements("css selector", card), LIVE_SECONDS)
    assert not_reloaded(browser)


def register(server: Serve, name: str) -> tuple[dict[str, Any], str]:
    status, account = request(server.port, "POST", "/api/v1/players/", {"username": name, "password": PASSWORD})
    assert status == 201, account
    status, token = request(
        server.port, "POST", "/api/v1/tokens/", {"username": name, "password": PASSWORD, "name": "t"}
    )
    assert status == 201, token
    return account, str(token["token"])


def play_rated_match(server: Serve, tokens: dict[str, str], rng: random.Random) -> int:
    """A rated two-player, one-hand double-6 match, every move sent over the API."""
    names = list(tokens)
    status, created = request(
        server.port,
        "POST",
        "/api/v1/games/",
        {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}, "rated": True},
        token=tokens[names[0]],
    )
    assert status == 201, created
    game_id = created["game"]["id"]
    status, _ = request(server.port, "POST", f"/api/v1/games/{game_id}/join/", {}, token=tokens[names[1]])
    assert status == 200
    status, _ = request(server.port, "POST", f"/api/v1/games/{game_id}/start/", {}, token=tokens[names[0]])
    assert status == 200
    for _ in range(500):
        status, body = request(server.port, "GET", f"/api/v1/games/{game_id}/", token=tokens[names[0]])
        game = body["game"]
        if game["status"] != "running":
            break
        player = next(s["player"]["username"] for s in game["seats"] if s["number"] == game["turn_seat"])
        status, view = request(server.port, "GET", f"/api/v1/games/{game_id}/", token=tokens[player])
        move = rng.choice(view["you"]["legal_moves"])
        status, answer = request(
            server.port,
            "POST",
            f"/api/v1/games/{game_id}/moves/",
            {**move, "expected_seq": view["game"]["seq"]},
            token=tokens[player],
        )
        assert status == 201, answer
    assert game["status"] == "finished", game
    return int(game_id)


def close(text: str, rating: float) -> bool:
    """The page's rating (one decimal, maybe "(provisional)" after it) is the API's."""
    number = text.split()[0].replace("\u2212", "-").replace(",", "")
    return abs(float(number) - rating) <= 0.051


def click_to_drawn(driver: Any, click: str, drawn: str) -> float:
    """Milliseconds from a click on ``click`` until ``drawn`` is on the page (and painted: the next frame)."""
    return float(
        driver.execute_async_script(
            """
            const [click, drawn, done] = arguments;
            const start = performance.now();
            document.querySelector(click).click();
            const look = () => {
              if (document.querySelector(drawn)) requestAnimationFrame(() => done(performance.now() - start));
              else requestAnimationFrame(look);
            };
            look();
            """,
            click,
            drawn,
        )
    )


@browser_test
def test_a_rated_match_shows_on_both_profiles_and_the_leaderboard(finder: Serve, make_browser: Any) -> None:
    rng = random.Random(5)
    tokens = {}
    for name in ("rt-gus", "rt-hal"):
        tokens[name] = register(finder, name)[1]
    first = play_rated_match(finder, tokens, rng)
    ratings = {name: request(finder.port, "GET", f"/api/v1/players/{name}/ratings/")[1] for name in tokens}
    for body in ratings.values():
        assert [p["pool"] for p in body["pools"]] == ["2"], body

    browser = make_browser(1366, 768)
    browser.get(base_url(finder) + "/leaderboard/?pool=2&kind=humans")
    until(browser, "the leaderboard", lambda d: css(d, "#leaderboard").get_attribute("data-state") == "ready")
    for name in tokens:
        row = css(browser, f'[data-testid=board-row][data-player="{name}"]')
        shown_rating = row.find_element("css selector", "[data-testid=rating]").text
        assert close(shown_rating, ratings[name]["pools"][0]["rating"])
    save_shot(browser, "leaderboard")

    for name in tokens:
        css(browser, f'[data-testid=board-row][data-player="{name}"] [data-testid=player-link]').click()
        until(browser, "the profile", lambda d: css(d, "#profile").get_attribute("data-state") == "ready")
        pool = css(browser, '[data-testid=pool][data-pool="2"]')
        assert close(
            pool.find_element("css selector", "[data-testid=pool-rating]").text, ratings[name]["pools"][0]["rating"]
        )
        chart = pool.find_element("css selector", "[data-testid=rating-chart]")
        assert chart.get_attribute("data-points") == "1"
        assert chart.get_attribute("aria-label") == "Rating history, 2 players: 1 match"  # one, not "1 matches"
        recent = css(browser, f'[data-testid=recent-game][data-game="{first}"]')
        assert (
            recent.find_element("css selector", "[data-testid=replay-link]")
            .get_attribute("href")
            .endswith(f"/games/{first}/replay/")
        )
        browser.back()
        until(browser, "the leaderboard", lambda d: css(d, "#leaderboard").get_attribute("data-state") == "ready")

    # the next match: a second point on the chart, the new rating on the board
    play_rated_match(finder, tokens, rng)
    after = request(finder.port, "GET", "/api/v1/players/rt-gus/ratings/")[1]["pools"][0]
    browser.get(base_url(finder) + "/players/rt-gus/")
    until(browser, "the profile", lambda d: css(d, "#profile").get_attribute("data-state") == "ready")
    assert css(browser, "[data-testid=rating-chart]").get_attribute("data-points") == "2"
    assert (
        css(browser, "[data-testid=rating-chart]").get_attribute("aria-label") == "Rating history, 2 players: 2 matches"
    )
    assert close(css(browser, "[data-testid=pool-rating]").text, after["rating"])
    assert len(browser.find_elements("css selector", "[data-testid=recent-game]")) == 2
    save_shot(browser, "profile")

    # click-to-drawn, measured (not asserted): the profile from the leaderboard, the lobby from the header
    sign_in(browser, finder, "rt-ivy")
    timings: dict[str, list[float]] = {"profile": [], "lobby": []}
    shown(browser, "#quick-play")
    for _ in range(7):  # inside the page, as people click (the header's links)
        css(browser, "[data-testid=nav-leaderboard]").click()
        until(browser, "the leaderboard", lambda d: css(d, "#leaderboard").get_attribute("data-state") == "ready")
        fill(browser, {"board-pool": "2"})
        until(browser, "the 2-player board", lambda d: d.find_elements("css selector", '[data-player="rt-gus"]'))
        timings["profile"].append(
            click_to_drawn(browser, '[data-player="rt-gus"] [data-testid=player-link]', '#profile[data-state="ready"]')
        )
        timings["lobby"].append(
            click_to_drawn(
                browser, ".site-header .brand", "#game-list [data-testid=game-card], #game-list [data-testid=no-games]"
            )
        )
    figures = {
        page: {"median_ms": round(statistics.median(values), 1), "max_ms": round(max(values), 1), "runs": len(values)}
        for page, values in timings.items()
    }
    print(f"\nclick-to-drawn: {json.dumps(figures)}")
    ARTIFACTS.mkdir(exist_ok=True)
    Path(ARTIFACTS / "web-find-timings.json").write_text(json.dumps(figures, indent=2))
    made = check_requests_against_contract(browser)
    assert {
        ("GET", "/api/v1/leaderboard/"),
        ("GET", "/api/v1/players/{username}/"),
        ("GET", "/api/v1/players/{username}/ratings/"),
        ("GET", "/api/v1/games/"),
    } <= made


@browser_test
def test_a_table_link_lets_a_visitor_join_or_log_in_to_join(finder: Serve, make_browser: Any) -> None:
    status, created = finder.api("POST", "/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}})
    assert status == 201, created
    game_id = created["game"]["id"]
    link = f"{base_url(finder)}/games/{game_id}/"

    guest = make_browser()
    guest.get(link)
    login = shown(guest, '[data-testid=table-visitor][data-state="open"] [data-testid=visitor-login]')
    assert login.get_attribute("href").endswith(f"/login/?next=%2Fgames%2F{game_id}%2F")

    visitor = make_browser()
    sign_in(visitor, finder, "tv-joe")
    visitor.get(link)
    shown(visitor, '[data-testid=table-visitor][data-state="open"]')
    css(visitor, "[data-action=visitor-join]").click()
    until(visitor, "the bar gone", lambda d: not d.find_elements("css selector", "[data-testid=table-visitor]"))
    assert "tv-joe" in seat_names(finder, game_id)
    # started: a visitor is told they are watching
    status, _ = finder.api("POST", f"/games/{game_id}/start/")
    assert status == 200
    guest.get(link)
    shown(guest, '[data-testid=table-visitor][data-state="watching"]')
    check_requests_against_contract(visitor)


#: Rated accounts put straight into the server's database: 3 to an ordinal, so the ties
#: straddle the 50-row page's edge (rows 49-51 share a rank).
BOARD_SCRIPT = """
from django.utils import timezone
from players.models import User
from ratings.models import Rating
now = timezone.now()
for n in range(62):
    user = User.objects.create_user(username=f"lb-{n:02d}", password=None)
    Rating.objects.create(user=user, pool="5-8", mu=40.0 - n // 3, sigma=1.0, ordinal=37.0 - n // 3, games=12,
                          wins=3, is_bot=False, updated_at=now)
"""


@browser_test
def test_show_more_follows_the_next_link_down_the_board(finder: Serve, make_browser: Any) -> None:
    """ "Show more" asks for the page the first page's ``next`` link names (a cursor, not
    an offset), and the rows read on with the ranks the API gives them, ties included."""
    subprocess.run([sys.executable, "manage.py", "shell", "-c", BOARD_SCRIPT], cwd=ROOT, env=finder.env, check=True)
    everyone = request(finder.port, "GET", "/api/v1/leaderboard/?pool=5-8&limit=100")[1]["results"]
    assert len(everyone) == 62 and everyone[50]["rank"] == everyone[48]["rank"] == 49
    browser = make_browser(1366, 768)
    browser.get(base_url(finder) + "/leaderboard/?pool=5-8")
    until(browser, "the leaderboard", lambda d: css(d, "#leaderboard").get_attribute("data-state") == "ready")
    rows = lambda d: d.find_elements("css selector", "[data-testid=board-row]")  # noqa: E731
    assert len(rows(browser)) == 50
    shown(browser, "#board-more").click()
    until(browser, "the next page's rows", lambda d: len(rows(d)) == 62)
    seen = [(row.get_attribute("data-player"), row.find_element("css selector", "td").text) for row in rows(browser)]
    assert seen == [(e["username"], str(e["rank"])) for e in everyone]
    until(browser, "no more to show", lambda d: not css(d, "#board-more").is_displayed())
    asked = browser.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/leaderboard/'))"
    )
    assert any("cursor=" in url for url in asked) and not any("offset=" in url for url in asked), asked
