"""The table as people play it on a laptop (1366 x 768) and a phone (360 x 740), by
keyboard only, in headless Chromium against the embedded ``manage.py serve``:

* the hand is always on screen together with the board, without scrolling: asserted
  from element geometry at every turn (the hand inside the window, the board above it
  with room to see, nothing wider than the window, the board never scrolled sideways,
  no toast over the hand);
* after each move the keyboard focus is in the hand (or on "Next hand");
* the end of each hand is held on screen - the finished board and the hand's scores -
  while the next hand is dealt, until the player presses "Next hand".
Screenshots: artifacts/web-layout-<size>-turn.png, web-layout-<size>-hand-over.png.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import ARTIFACTS, base_url, check_requests_against_contract, sign_in, until

pytestmark = [pytest.mark.slow]

MATCH_SECONDS = 120
MOVE_SECONDS = 60  # a key's effect and a move's answer, on a machine under heavy load
SIZES = {"laptop": (1366, 768), "phone": (360, 740)}

GEOMETRY = """
const rect = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
const area = document.querySelector('[data-testid=board-area]');
const hand = document.querySelector('[data-testid=hand]');
const toasts = [...document.querySelectorAll('[data-testid=toast]')].map(rect);
const state = document.querySelector('[data-testid=table]').dataset;
const over = document.querySelector('[data-testid=hand-over]');
return {hand: rect(hand), board: rect(area), toasts, vw: window.innerWidth, vh: window.innerHeight,
        pageWidth: document.documentElement.scrollWidth, scrollY: window.scrollY,
        areaScroll: area.scrollWidth, areaWidth: area.clientWidth, tiles: hand.querySelectorAll('button').length,
        turn: state.yourTurn === "true" && state.busy === "false" && !(over && !over.hidden)};
"""


def table(driver: Any) -> dict[str, str]:
    return dict(
        driver.execute_script("return Object.assign({}, document.querySelector('[data-testid=table]')?.dataset || {});")
    )


def held(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "const h = document.querySelector('[data-testid=hand-over]'); return Boolean(h && !h.hidden);"
        )
    )


def focus_in_hand(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "return Boolean(document.activeElement && document.activeElement.closest('[data-testid=hand]'));"
        )
    )


def focus_testid(driver: Any) -> str:
    return str(
        driver.execute_script(
            "return document.activeElement?.dataset?.testid || document.activeElement?.dataset?.tile || document.activeElement?.tagName;"
        )
    )


def next_hand_dealt(number: str) -> Callable[[Any], bool]:
    return lambda driver: table(driver).get("round") != number or table(driver).get("status") == "finished"


def seq_after(seq: int) -> Callable[[Any], bool]:
    return lambda driver: int(table(driver)["seq"]) > seq


def assert_hand_and_board_in_view(driver: Any, size: str) -> bool:
    """On the player's turn, the hand and the board in view; False (nothing checked) when
    the turn was over by the time the page was measured - the hand's end came up, say,
    between the wait for the turn and this look (bots move at once; a loaded machine
    widens that gap). The page is measured and its state read in one script."""
    g = driver.execute_script(GEOMETRY)
    if not g["turn"]:
        return False
    where = f"{size}: {g}"
    assert g["scrollY"] == 0, where  # nothing was scrolled to get here
    assert g["pageWidth"] <= g["vw"], where  # nothing wider than the window
    assert g["areaScroll"] <= g["areaWidth"] + 1, where  # the board is not cut off sideways
    assert g["hand"]["top"] >= 0 and g["hand"]["bottom"] <= g["vh"], where  # the whole hand on screen
    seen = min(g["board"]["bottom"], g["hand"]["top"]) - max(g["board"]["top"], 0)
    assert seen >= 120, where  # the board above it, with room to see
    for toast in g["toasts"]:
        assert toast["bottom"] <= g["hand"]["top"] or toast["top"] >= g["hand"]["bottom"], where
    return True


#: Is the nearest element matching the selector (arguments[0]) the focused one, after it, or
#: before it (in the order Tab goes)?
TAB_WAY = """
const active = document.activeElement;
if (active && active.matches(arguments[0])) return "here";
const found = [...document.querySelectorAll(arguments[0])].filter((e) => e.getClientRects().length);
if (!active || active === document.body) return "after";
return found.some((e) => active.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING) || !found.length
  ? "after" : "before";
"""

HELD_GEOMETRY = """
const rect = (e) => e.getBoundingClientRect();
const board = rect(document.querySelector('[data-testid=board-area]'));
const panel = rect(document.querySelector('[data-testid=hand-over]'));
const next = rect(document.querySelector('[data-testid=next-hand]'));
return {board: [board.top, board.bottom], panel: [panel.top, panel.bottom], next: [next.top, next.bottom],
        vh: window.innerHeight, scrollY: window.scrollY};
"""


def assert_finished_board_and_scores_in_view(driver: Any, size: str) -> None:
    """The held end of a hand: the finished board on screen above its scores, and "Next hand" reachable."""
    g = driver.execute_script(HELD_GEOMETRY)
    where = f"{size}: {g}"
    assert g["board"][0] >= 0 and g["board"][1] <= g["panel"][0] + 1, where  # the board is not covered
    assert g["board"][1] - g["board"][0] >= 120, where
    assert g["next"][0] >= 0 and g["next"][1] <= g["vh"], where


def press(driver: Any, key: str) -> None:
    """A key pressed where the keyboard focus is (as a person does: no element picked)."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def move_by_keyboard(driver: Any) -> bool:
    """One move with the keyboard: Tab to a playable tile and Enter (then Enter on the
    first place it may go), else Tab to "Draw a tile" / "Pass" and Enter. False (no move
    made) when the last hand's end comes up meanwhile (it is held first, and takes the
    keys), or when the focus left the end offered before Enter reached it (let go, to be
    tried again)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    def wanted() -> str:
        # asked again at each press: the table may redraw meanwhile (a notice, the hand's legal tiles)
        legal = driver.execute_script(
            "return document.querySelectorAll('[data-testid=hand] button[data-legal=true]').length"
        )
        return (
            "[data-testid=hand] button[data-legal=true]"
            if legal
            else "[data-testid=draw-button], [data-testid=pass-button]"
        )

    for _ in range(
        200
    ):  # twice round the whole page at most (header, notices, board, hand, chat): a redraw may drop focus
        if held(driver):
            return False
        want = wanted()
        # Where the nearest one is: on, after, or before the focus (Shift+Tab then). Going
        # round the page the long way would tab through the chat below, scrolling the
        # table off the top - the page's geometry is asserted unscrolled.
        where = driver.execute_script(TAB_WAY, want)
        if where == "here":
            break
        if where == "after":
            press(driver, Keys.TAB)
        else:
            ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        if held(driver):
            # The hand's end came up between the look above and the key: the key was meant
            # for the hand, not the end, and may have tabbed past "Next hand" to below the
            # table (scrolling the page). Undone - back where the end put the page - so the
            # end is checked as the table showed it.
            driver.execute_script(
                "window.scrollTo(0, 0); document.querySelector('[data-testid=next-hand]')?.focus({preventScroll: true});"
            )
            return False
    else:
        pytest.fail(f"Tab never reached {want}; the page: {page_state(driver)}")
    before = int(table(driver)["seq"])
    press(driver, Keys.ENTER)
    # What the key did, waited for (never assumed at once): the move sent (busy), or made,
    # or the tile's ends offered (Enter on the first), or the hand's end came up. An
    # alert (a refused move) fails at once, with its words.
    try:
        outcome = until(driver, "the key's effect", key_effect(before, want=want), seconds=MOVE_SECONDS)
    except TimeoutException:
        pytest.fail(f"Enter on {want} did nothing in {MOVE_SECONDS} s; the page: {page_state(driver)}")
    if outcome == "lost":
        return False  # the focus went elsewhere before the key landed (below): again, from where it is
    if outcome == "choices":
        press(driver, Keys.ENTER)
        try:
            chosen = until(driver, "the end chosen", key_effect(before, choosing=True), seconds=MOVE_SECONDS)
        except TimeoutException:
            pytest.fail(f"Enter on the end chose nothing in {MOVE_SECONDS} s; the page: {page_state(driver)}")
        if chosen == "lost":
            # The focus went back to the picked tile before the key reached the end. Seen
            # about once in ten runs on a loaded machine, as was the focus leaving "Draw a
            # tile" for a tile of the hand before Enter landed (above); the cause is not
            # found. A person lets go of the tile (Escape) and picks again: so does the test.
            press(driver, Keys.ESCAPE)
            until(driver, "the tile let go", lambda d: not d.execute_script(KEY_EFFECT, "")["picked"])
            return False
    return True


#: What a key did, read in one script: the alert, the table's state, where the focus is.
KEY_EFFECT = """
const q = (s) => document.querySelector(s), a = document.activeElement, t = q('[data-testid=table]').dataset;
const alert = q('[data-testid=table-alert]'), over = q('[data-testid=hand-over]');
return {alert: alert && !alert.hidden ? alert.textContent : '', busy: t.busy === 'true', seq: t.seq,
        held: Boolean(over && !over.hidden),
        onChoice: Boolean(a?.matches('[data-testid=end-choices] button[data-end]')),
        picked: Boolean(a?.matches('[data-testid=hand] button[aria-pressed=true]')),
        onWant: Boolean(arguments[0] && a?.matches(arguments[0]))};
"""


def page_state(driver: Any) -> dict[str, Any]:
    """What a failed key leaves to read: the focus, the end choices, the alert, the table's state."""
    return cast(
        dict[str, Any],
        driver.execute_script(
            "const a = document.activeElement, q = (s) => document.querySelector(s);"
            " return {focus: a && a.outerHTML.slice(0, 160),"
            " choices: q('[data-testid=end-choices]')?.outerHTML.slice(0, 600),"
            " alert: q('[data-testid=table-alert]')?.textContent,"
            " drawOrPass: document.querySelectorAll('[data-testid=draw-button], [data-testid=pass-button]').length,"
            " table: Object.assign({}, q('[data-testid=table]')?.dataset)};"
        ),
    )


def key_effect(before: int, *, want: str | None = None, choosing: bool = False) -> Callable[[Any], str | None]:
    """What a key did: "sent" (the move, or the hand's end), "choices" (a tile's ends
    offered), "lost" (nothing, and the focus is no longer where the key was meant to
    land: on ``want``, or, ``choosing``, on an end offered), else None (not yet)."""

    def effect(driver: Any) -> str | None:
        # One look at the whole page: a move that ends between two looks must not read as lost.
        look = driver.execute_script(KEY_EFFECT, want or "")
        if look["alert"]:
            pytest.fail(f"the move was refused: {look['alert']}")
        if look["busy"] or int(look["seq"]) > before or look["held"]:
            return "sent"
        if not choosing and look["onChoice"]:
            return "choices"
        if choosing and look["picked"]:  # a picked tile with the focus on it
            return "lost"
        if want and not look["onWant"]:
            return "lost"
        return None

    return effect


@pytest.mark.parametrize("size", list(SIZES))
def test_keyboard_play_keeps_hand_and_board_in_view_and_holds_each_hands_end(
    embedded: Serve, make_browser: Callable[..., Any], size: str
) -> None:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.keys import Keys

    driver = make_browser(*SIZES[size])
    token = sign_in(driver, embedded, f"layout_{size}")
    port = embedded.port
    status, game = request(
        port,
        "POST",
        "/api/v1/games/",
        {"ruleset": {"set_max": 6, "players": 4, "rounds": 2}, "bot_delay_ms": 0},
        token=token,
    )
    assert status == 201, game
    game_id = game["game"]["id"]
    for _ in range(3):
        assert request(port, "POST", f"/api/v1/games/{game_id}/bots/", {"strategy": "greedy"}, token=token)[0] == 200
    assert request(port, "POST", f"/api/v1/games/{game_id}/start/", token=token)[0] == 200
    driver.get(f"{base_url(embedded)}/games/{game_id}/")
    until(driver, "the table", lambda d: table(d).get("seq"))
    driver.execute_script("document.querySelector('[data-testid=hand]').focus()")  # the one step not by keyboard

    hands_held: list[str] = []
    moves = 0
    shot = False
    while True:
        try:
            state = until(
                driver,
                "my turn, a hand's end or the match's",
                # The match is over only once its last hand's end has been held and let go: the
                # table's status may read "finished" a moment before that end is drawn.
                lambda d: "held" if held(d) else "end" if table(d).get("status") == "finished" and len(hands_held) == 2 else
                "turn" if table(d).get("yourTurn") == "true" and table(d).get("busy") == "false" else None,
                seconds=MATCH_SECONDS,
            )  # fmt: skip
        except TimeoutException:
            pytest.fail(
                f"no turn, hand's end or match's end in {MATCH_SECONDS} s after {moves} moves, hands held "
                f"{hands_held}; the page: {page_state(driver)}"
            )
        if state == "held":
            number = driver.execute_script("return document.querySelector('[data-testid=hand-over]').dataset.round")
            scores = driver.execute_script("return document.querySelectorAll('[data-testid=hand-score]').length")
            assert scores == 4
            assert (
                int(driver.execute_script("return document.querySelector('[data-testid=board-svg]').dataset.tiles")) > 1
            )
            # Held while the game goes on: the next hand is dealt (or the match over), the end stays.
            until(
                driver,
                "the next hand dealt under the held end",
                next_hand_dealt(number),
            )
            assert held(driver)
            # The next hand's clock runs while its end is held: when that hand opens with my
            # turn, the end says so with the clock (read with the table's state, in one look).
            my_turn, turn_line = driver.execute_script(
                "const line = document.querySelector('[data-testid=hand-over-turn]');"
                " return [document.querySelector('[data-testid=table]').dataset.yourTurn, line && line.textContent];"
            )
            if my_turn == "true" and table(driver).get("status") == "running":
                assert turn_line and re.search(r"Your turn in the next hand.*\d+:\d\d left", turn_line), turn_line
            else:
                assert turn_line is None, turn_line
            text = driver.execute_script("return document.querySelector('[data-testid=hand-over]').innerText")
            assert "null" not in text and "undefined" not in text, text
            driver.save_screenshot(str(ARTIFACTS / f"web-layout-{size}-hand-over.png"))
            assert_finished_board_and_scores_in_view(driver, size)
            assert focus_testid(driver) == "next-hand"
            press(driver, Keys.ENTER)
            until(driver, "the hand's end released", lambda d: not held(d))
            hands_held.append(number)
            if table(driver).get("status") != "finished":
                assert focus_in_hand(driver), focus_testid(driver)
            continue
        if state == "end":
            break
        if not shot:
            ARTIFACTS.mkdir(exist_ok=True)
            driver.save_screenshot(str(ARTIFACTS / f"web-layout-{size}-turn.png"))
            shot = True
        if not assert_hand_and_board_in_view(driver, size):
            continue  # the turn ended before the look: wait for the next state
        before = int(table(driver)["seq"])
        if not move_by_keyboard(driver):
            continue  # the hand's end came up first (held at the top of the loop), or the key was lost: again
        moved = seq_after(before)

        def moved_or_held(d: Any, moved: Callable[[Any], bool] = moved) -> bool:
            return moved(d) or held(d)

        if until(driver, "the move drawn (or the hand's end, which takes the keys)", moved_or_held, MOVE_SECONDS) and (
            held(driver) and not moved(driver)
        ):
            continue
        moves += 1
        assert focus_in_hand(driver) or focus_testid(driver) == "next-hand", focus_testid(driver)
    assert hands_held == ["1", "2"]
    assert moves >= 2
    check_requests_against_contract(driver)
