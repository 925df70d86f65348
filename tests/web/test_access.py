"""The game page for keyboard and screen-reader users, its turn clock, resigning, and a
phone: headless Chromium (Selenium) against the embedded server (``manage.py serve``),
checked against the API.

1. Keyboard only: Tab / Shift+Tab / Enter / Space (sent to the focused element) pick a
   tile that fits several ends and play it on one of them, then play on an end of the
   board (an SVG button); every tile of
   the hand and every end target (board and buttons) has an accessible name (Chrome's
   computed name), an end's name says the tile and where ("6-4 on the 6 end of arm 2"),
   and the move the API records is the one the focused button named.
2. Resign asks first (cancel leaves the seat as it is); confirmed, the API shows the seat
   resigned and played by the table's bot, and the page says so.
3. With a 30 s turn clock, the seat to move shows a countdown that goes down, matching
   the API's ``turn_deadline`` within 2 s.
4. At 360 px wide nothing of the page sticks out sideways (the board scrolls in its own
   box), and every tile of a big hand can be seen and tapped.

Screenshot: artifacts/web-phone-hand.png. Waits are on conditions with deadlines.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import base_url, check_requests_against_contract, save_shot, sign_in, until

pytestmark = [pytest.mark.slow]


# Two seats, double-6: I hold the 6-6 (the spinner, placed for me); the bot holds no 6 and
# draws none, so after its draw-and-pass I am to play with 6-4 and 6-3, each fitting the
# four arms of the spinner.
SPINNER_SETUP = {
    "hands": [
        ["6-6", "6-4", "6-3", "1-1", "0-0"],
        ["2-2", "0-1", "0-2", "1-2", "3-3"],
    ],
    "boneyard": None,  # the rest of the set, tiles without a 6 drawn first (below)
}

# A big hand for the phone: fourteen tiles, the 6-6 the spinner.
BIG_HAND_SETUP = {
    "hands": [
        ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
        ["0-0", "1-1", "2-2", "3-3", "0-1", "0-2", "1-2"],
    ],
    "boneyard": None,
}


def with_boneyard(setup: dict[str, Any]) -> dict[str, Any]:
    """``setup`` with the rest of the double-6 set as its boneyard (the set-up must hold the
    whole set), tiles without a 6 drawn first: nobody draws a 6 early."""
    held = {tuple(sorted(map(int, tile.split("-")))) for hand in setup["hands"] for tile in hand}
    rest = [f"{high}-{low}" for high in range(7) for low in range(high + 1) if (low, high) not in held]
    return {**setup, "boneyard": sorted(rest, key=lambda tile: "6" in tile)}


SPINNER_SETUP = with_boneyard(SPINNER_SETUP)
BIG_HAND_SETUP = with_boneyard(BIG_HAND_SETUP)

CLOCK = re.compile(r"^(\d+):(\d\d) left$")


# -- reading and driving the page ------------------------------------------------------


def css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def table(driver: Any) -> dict[str, str]:
    found = driver.execute_script(
        "const t = document.querySelector('[data-testid=table]'); return t ? Object.assign({}, t.dataset) : null;"
    )
    return found or {}


def my_turn(driver: Any) -> bool:
    data = table(driver)
    return data.get("yourTurn") == "true" and data.get("busy") == "false"


def focused(driver: Any) -> dict[str, Any]:
    """What has the keyboard focus: its tag, data-* and computed accessible name."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(10):
        try:
            element = driver.switch_to.active_element
            return {
                "tag": element.tag_name,
                "tile": element.get_attribute("data-tile"),
                "end": element.get_attribute("data-end"),
                "testid": element.get_attribute("data-testid"),
                "in_hand": driver.execute_script("return !!document.activeElement.closest('[data-testid=hand]');"),
                "in_choices": driver.execute_script(
                    "return !!document.activeElement.closest('[data-testid=end-choices]');"
                ),
                "name": element.accessible_name,
            }
        except StaleElementReferenceException:  # redrawn meanwhile (the focus is put back)
            continue
    raise AssertionError("the focused element was redrawn under every reading")


def press(driver: Any, *keys: str) -> None:
    """Keys as a keyboard sends them: to whatever has the focus."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def shift_tab(driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()


def tab_to(driver: Any, what: str, wanted: Callable[[dict[str, Any]], bool], limit: int = 60) -> dict[str, Any]:
    """Tab forward until the focused element is ``wanted`` (at most ``limit`` presses)."""
    from selenium.webdriver.common.keys import Keys

    for _ in range(limit):
        press(driver, Keys.TAB)
        if wanted(now := focused(driver)):
            return now
    raise AssertionError(f"{limit} presses of Tab never reached {what}")


def game_view(server: Serve, game_id: int) -> dict[str, Any]:
    status, body = server.api("GET", f"/games/{game_id}/")
    assert status == 200, body
    return dict(body)


def api_moves(server: Serve, game_id: int) -> list[dict[str, Any]]:
    status, page = server.api("GET", f"/games/{game_id}/moves/?after=0")
    assert status == 200, page
    return list(page["moves"])


def open_table(server: Serve, token: str, **options: Any) -> int:
    """A started table of two seats: the account of ``token`` (seat 0) and a greedy server bot."""
    body = {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}, "bot_delay_ms": 0, **options}
    status, game = request(server.port, "POST", "/api/v1/games/", body, token=token)
    assert status == 201, game
    game_id = int(game["game"]["id"])
    status, answer = request(server.port, "POST", f"/api/v1/games/{game_id}/bots/", {"strategy": "greedy"}, token=token)
    assert status == 200, answer
    status, answer = request(server.port, "POST", f"/api/v1/games/{game_id}/start/", token=token)
    assert status == 200, answer
    return game_id


def open_page(driver: Any, server: Serve, game_id: int) -> None:
    driver.get(f"{base_url(server)}/games/{game_id}/")
    until(driver, "my turn on the table", my_turn)


def names_of(driver: Any, selector: str) -> dict[str, str]:
    """Each element's identifying attribute (data-tile or data-end) -> its computed accessible
    name (read again if the page redraws them meanwhile)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(10):
        try:
            found = {}
            for element in css(driver, selector):
                key = element.get_attribute("data-end") or element.get_attribute("data-tile")
                found[key] = element.accessible_name.strip()
            return found
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{selector}: redrawn under every reading")


# -- 1. keyboard only ------------------------------------------------------------------------


def test_a_player_picks_tiles_and_ends_and_plays_them_with_the_keyboard_only(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    from selenium.webdriver.common.keys import Keys

    driver = make_browser()
    token = sign_in(driver, embedded, "keyboard")
    game_id = open_table(embedded, token, setup=SPINNER_SETUP)
    open_page(driver, embedded, game_id)

    # The spinner is placed for me, the bot (no 6) drew a tile that does not fit: every
    # end on the board is a named button saying which of my tiles fit it.
    assert [m["move"]["type"] for m in api_moves(embedded, game_id) if m["seat"] == 1] == ["draw"]
    board_ends = names_of(driver, "[data-testid=board-area] [data-end][role=button]")
    assert len(board_ends) == 4, board_ends
    for end, name in board_ends.items():
        assert re.fullmatch(r"the 6 end of arm [1-4]: 6-4 or 6-3 fit", name), (end, name)

    # Every tile of the hand has a name saying the tile and whether (and where) it plays.
    hand = names_of(driver, "[data-testid=hand] button[data-tile]")
    assert sorted(hand) == ["0-0", "1-1", "6-3", "6-4"]
    for tile, name in hand.items():
        assert name.startswith(f"{tile}: "), (tile, name)
    assert "cannot be played" in hand["1-1"] and hand["6-4"] == "6-4: playable on 4 ends"

    # 6-4 fits four ends: Enter on it asks where, the focus on the first choice.
    tab_to(driver, "the 6-4 in my hand", lambda f: f["in_hand"] and f["tile"] == "6-4")
    assert not css(driver, "[data-testid=end-choices] button")
    press(driver, Keys.ENTER)
    first = until(driver, "the focus on the first end choice", lambda d: focused(d)["in_choices"] and focused(d))
    choices = names_of(driver, "[data-testid=end-choices] button[data-end]")
    assert len(choices) == 4, choices
    arms = set()
    for end, name in choices.items():
        match = re.fullmatch(r"6-4 on the 6 end of arm ([1-4])", name)
        assert match, (end, name)
        arms.add(match[1])
    assert arms == {"1", "2", "3", "4"}
    assert first["end"] == next(iter(choices))
    # ... and the board's targets are now 6-4's, named the same way.
    targets = names_of(driver, "[data-testid=board-area] [data-end][role=button]")
    assert set(targets) == set(choices)
    assert all(targets[end] == f"play {choices[end]}" for end in choices), targets

    # Tab twice, Shift+Tab once: the second choice; Space plays there.
    press(driver, Keys.TAB)
    press(driver, Keys.TAB)
    shift_tab(driver)
    chosen = focused(driver)
    assert chosen["in_choices"] and chosen["end"] == list(choices)[1], chosen
    seq = int(table(driver)["seq"])
    press(driver, Keys.SPACE)
    until(driver, "the move drawn", lambda d: int(table(d)["seq"]) > seq)

    last = [m for m in api_moves(embedded, game_id) if m["seat"] == 0][-1]
    assert last["move"] == {"type": "play", "tile": "6-4", "end": chosen["end"]}, last
    assert "6-4" not in names_of(driver, "[data-testid=hand] button[data-tile]")

    # My turn again (the bot drew and passed): the focus is still on the table (in my hand
    # or on an action below it, not lost to the page), and Shift+Tab goes back to the
    # board, where 6-3 alone fits each arm left: Enter plays it.
    until(driver, "my third turn", my_turn)
    assert driver.execute_script(
        "return !!document.activeElement.closest('[data-testid=hand], [data-testid=actions]');"
    ), focused(driver)
    board_ends = names_of(driver, "[data-testid=board-area] [data-end][role=button]")
    assert len(board_ends) == 3 and chosen["end"] not in board_ends, board_ends
    for end, name in board_ends.items():
        assert re.fullmatch(r"play 6-3 on the 6 end of arm [1-4]", name), (end, name)
    for _ in range(20):
        shift_tab(driver)
        target = focused(driver)
        if target["end"] and not target["in_choices"]:
            break
    else:
        raise AssertionError("Shift+Tab never reached an end on the board")
    assert target["name"] == board_ends[target["end"]]
    seq = int(table(driver)["seq"])
    press(driver, Keys.ENTER)
    until(driver, "the move drawn", lambda d: int(table(d)["seq"]) > seq)
    last = [m for m in api_moves(embedded, game_id) if m["seat"] == 0][-1]
    assert last["move"] == {"type": "play", "tile": "6-3", "end": target["end"]}, last
    check_requests_against_contract(driver)


# -- 2. resigning -------------------------------------------------------------------------------


def test_resigning_asks_first_then_a_bot_keeps_the_seat(embedded: Serve, make_browser: Callable[..., Any]) -> None:
    driver = make_browser()
    token = sign_in(driver, embedded, "quitter")
    # the bots pause: the hand is still on when the page shows the resignation
    game_id = open_table(embedded, token, setup=SPINNER_SETUP, bot_delay_ms=1500)
    open_page(driver, embedded, game_id)

    css(driver, "[data-testid=resign-button]")[0].click()
    cancel = until(driver, "the confirmation", lambda d: css(d, "[data-testid=resign-cancel]"))[0]
    confirm = css(driver, "[data-testid=resign-confirm]")[0]
    assert confirm.is_displayed() and confirm.accessible_name == "Yes, resign"
    assert "A server bot plays your seat" in css(driver, "[data-testid=actions]")[0].text
    assert driver.switch_to.active_element == cancel  # the safe choice has the focus
    assert not css(driver, "[data-testid=resign-button]")
    cancel.click()
    until(driver, "the resign button back", lambda d: css(d, "[data-testid=resign-button]"))
    seat = game_view(embedded, game_id)["game"]["seats"][0]
    assert seat["resigned"] is False and seat["player"]["username"] == "quitter"

    css(driver, "[data-testid=resign-button]")[0].click()
    until(driver, "the confirmation again", lambda d: css(d, "[data-testid=resign-confirm]"))[0].click()
    until(
        driver,
        "the API to show the seat resigned",
        lambda _: game_view(embedded, game_id)["game"]["seats"][0]["resigned"],
    )
    view = game_view(embedded, game_id)
    seat = view["game"]["seats"][0]
    assert seat["player"]["username"] == "quitter" and seat["bot_strategy"] == view["game"]["bot_strategy"]

    until(driver, "the resigned badge", lambda d: "resigned" in css(d, "[data-testid=seats] [data-seat='0']")[0].text)
    mine = css(driver, "[data-testid=seats] [data-seat='0']")[0]
    assert f"a {seat['bot_strategy']} bot plays" in mine.text
    banner = css(driver, "[data-testid=turn-banner]")[0].text
    assert "You resigned" in banner or table(driver)["status"] == "finished", banner
    assert not css(driver, "[data-testid=resign-button]")
    until(driver, "the resignation in the log", lambda d: css(d, "[data-testid=move-log] li[data-type=seat_resigned]"))
    check_requests_against_contract(driver)


# -- 3. the turn clock ------------------------------------------------------------------------


def clock_seconds(driver: Any, testid: str) -> int | None:
    found = css(driver, f"[data-testid={testid}]")
    if not found:
        return None
    match = CLOCK.match(found[0].text.strip())
    assert match, f"the clock reads {found[0].text!r}"
    return int(match[1]) * 60 + int(match[2])


def test_the_seat_to_move_shows_its_turn_clock_counting_down_to_the_apis_deadline(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser()
    token = sign_in(driver, embedded, "clocked")
    game_id = open_table(embedded, token, setup=SPINNER_SETUP, turn_time_limit=30)
    open_page(driver, embedded, game_id)

    game = game_view(embedded, game_id)["game"]
    assert game["turn_seat"] == 0 and game["turn_deadline"]
    deadline = datetime.fromisoformat(game["turn_deadline"].replace("Z", "+00:00")).timestamp()

    clocks = css(driver, "[data-testid=seats] [data-turn=true] [data-testid=turn-clock]")
    assert len(clocks) == 1 and clocks[0].find_element("xpath", "./ancestor::li").get_attribute("data-seat") == "0"
    assert len(css(driver, "[data-testid=turn-clock]")) == 1  # on the seat to move only
    shown_deadline = datetime.fromisoformat(clocks[0].get_attribute("data-deadline").replace("Z", "+00:00"))
    assert shown_deadline.timestamp() == deadline

    first = until(driver, "a countdown", lambda d: clock_seconds(d, "turn-clock"))
    expected = deadline - time.time()
    assert 0 < first <= 30 and abs(first - expected) <= 2, (first, expected)
    second = until(
        driver,
        "the countdown to go down",
        lambda d: (s := clock_seconds(d, "turn-clock")) is not None and s < first and s,
        seconds=5,
    )
    expected = deadline - time.time()
    assert abs(second - expected) <= 2, (second, expected)
    # The banner above my hand counts down the same deadline.
    mine = clock_seconds(driver, "my-clock")
    assert mine is not None and abs(mine - (deadline - time.time())) <= 2, mine
    check_requests_against_contract(driver)


# -- 4. a phone -----------------------------------------------------------------------------------

STICKING_OUT = """
const width = document.documentElement.clientWidth;
const board = document.querySelector('[data-testid=board-area]');
const out = [];
for (const node of document.body.querySelectorAll('*')) {
  if (board && board.contains(node) && node !== board) continue;
  const box = node.getBoundingClientRect();
  if (box.width <= 1 || box.height <= 1) continue;  // nothing, or visually hidden
  if (box.right > width + 0.5 || box.left < -0.5) {
    out.push(`${node.tagName.toLowerCase()}.${node.className.baseVal ?? node.className}`
      + `[${node.dataset.testid || ''}] ${Math.round(box.left)}..${Math.round(box.right)}`);
  }
}
return out;
"""

REACHABLE = """
const button = arguments[0];
button.scrollIntoView({block: 'center', inline: 'center'});
const box = button.getBoundingClientRect();
const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
return {left: box.left, right: box.right, width: document.documentElement.clientWidth,
        hit: !!hit && button.contains(hit), scrollX: window.scrollX};
"""


def test_at_phone_width_the_page_stays_inside_the_screen_and_every_tile_can_be_tapped(
    embedded: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser(360, 780)
    token = sign_in(driver, embedded, "phone")
    game_id = open_table(embedded, token, setup=BIG_HAND_SETUP)
    open_page(driver, embedded, game_id)
    until(driver, "the narrow window", lambda d: d.execute_script("return window.innerWidth") <= 360)

    def inside(d: Any) -> None:
        page = d.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth];")
        assert page[0] <= page[1] <= 360, f"the page is {page[0]} px wide on a {page[1]} px screen"
        assert not d.execute_script(STICKING_OUT), "sticking out sideways: " + ", ".join(d.execute_script(STICKING_OUT))

    inside(driver)
    hand = css(driver, "[data-testid=hand] button[data-tile]")
    assert len(hand) == 13  # the 6-6 is the spinner
    for button in hand:
        spot = driver.execute_script(REACHABLE, button)
        assert spot["left"] >= 0 and spot["right"] <= spot["width"], (button.get_attribute("data-tile"), spot)
        assert spot["hit"], f"{button.get_attribute('data-tile')} is covered by something else"
        assert spot["scrollX"] == 0

    # Taps play 6-5 on an arm; the page is still no wider.
    seq = int(table(driver)["seq"])
    css(driver, "[data-testid=hand] button[data-tile='6-5']")[0].click()
    choice = until(driver, "where 6-5 goes", lambda d: css(d, "[data-testid=end-choices] button[data-end]"))[0]
    inside(driver)
    assert driver.execute_script(REACHABLE, choice)["hit"]
    choice.click()
    until(driver, "6-5 on the board", lambda d: int(table(d)["seq"]) > seq)
    until(driver, "6-5 drawn", lambda d: css(d, "[data-testid=board-area] [data-tile='6-5']"))
    assert css(driver, "[data-testid=board-area] [data-tile='6-6']")
    inside(driver)
    board = driver.execute_script(
        "const b = document.querySelector('[data-testid=board-area]'); const s = getComputedStyle(b);"
        "return [b.scrollWidth, b.clientWidth, s.overflowX];"
    )
    assert board[0] <= board[1] or board[2] in ("auto", "scroll"), f"the board overflows its box: {board}"
    save_shot(driver, "phone-hand")
    check_requests_against_contract(driver)
