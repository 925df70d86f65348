"""The game page in a real browser: headless Chromium (Selenium) against the embedded
server (``manage.py serve``: SQLite, the folder broker, bots in its own worker), driven
as people drive it - clicks on tiles, ends and buttons - and checked against the API.

1. A newcomer registers in the page, opens a 4-player double-6 table with three server
   bots from the lobby, and plays the whole match by clicking; the final scoreboard is
   the API's. The page's own speed figures (window.cfMetrics) are printed and written to
   artifacts/web-speed.json: the table's first paint and each move's click-to-drawn.
2. Two players in two browsers play a hand against each other while an anonymous third
   browser watches: every move appears in the spectator's log and on its board.
3. The stream drops mid-hand (the supervised web process is killed; ``serve`` starts it
   again on the same port and database) while the bots move: the page says
   "reconnecting...", resumes, and its move log is the API's, nothing missing or doubled.
4. A stale move from a second window (whose refreshes are blocked, so it still shows the
   position before the first window's move) is refused: the page shows the problem.
   The first window, a practice deal, shows an open chicken foot (screenshot) and the
   same table at 360 px wide.
5. A finished match replays, step by step, to the final layout the API shows.

Screenshots: artifacts/web-table-foot.png, web-final-scoreboard.png, web-phone-table.png.
Everything waits on conditions with deadlines; nothing sleeps to synchronise.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.integration.serve import Serve, open_bot_table
from tests.integration.web import logged_events, request
from tests.web.conftest import (
    ARTIFACTS,
    PASSWORD,
    base_url,
    browser_server,
    check_requests_against_contract,
    css,
    open_table,
    save_shot,
    sign_in,
    table,
    until,
)

pytestmark = [pytest.mark.slow]

MATCH_SECONDS = 120  # a whole match of double-6 against bots at full speed takes seconds
RECONNECT_SECONDS = 45  # a killed web process: serve restarts it (1 s), the page retries (2-8 s)

# A practice deal (4 seats, double-6, seat 0 holds the 6-6): the bots fill three arms,
# seat 0 the fourth with 6-5 (its only play), seat 1 must then play 5-5 on it (its only
# play), which opens a chicken foot; seats 2 and 3 hold no 5 and draw tiles without one,
# so the foot is still open when seat 0 is to play again, with 5-1 and 5-2 for the toes.
FOOT_SETUP = {
    "hands": [
        ["6-6", "6-5", "5-1", "5-2", "3-3"],
        ["6-4", "5-5", "0-0", "1-1", "0-1"],
        ["6-3", "0-2", "1-2", "2-2", "0-3"],
        ["6-2", "1-3", "2-3", "0-4", "1-4"],
    ],
    "boneyard": ["2-4", "3-4", "6-1", "6-0", "5-0", "5-3", "5-4", "4-4"],
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """One embedded server for the file (starting one takes seconds): each test has
    accounts and tables of its own on it."""
    yield from browser_server(tmp_path_factory, "web-play")


# -- reading and driving the page ------------------------------------------------------


def alert_text(driver: Any) -> str:
    return str(
        driver.execute_script(
            "const a = document.querySelector('[data-testid=table-alert]'); return a && !a.hidden ? a.textContent : '';"
        )
    )


def log_entries(driver: Any) -> list[tuple[int, str, str]]:
    """The page's move log: (seq, event type, text) of each entry, in page order."""
    rows = driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=move-log] li')]"
        ".map(li => [Number(li.dataset.seq), li.dataset.type, li.textContent]);"
    )
    return [(int(seq), str(kind), str(text)) for seq, kind, text in rows]


def board_tiles(driver: Any, container: str) -> list[str]:
    return sorted(
        driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' [data-tile]')].map(t => t.dataset.tile);",
            f"[data-testid={container}]",
        )
    )


def layout_tiles(layout: dict[str, Any] | None) -> list[str]:
    """Every tile of a layout tree (the API's state.layout)."""
    if not layout:
        return []
    found = [layout["tile"]]
    for slot in layout["next"]:
        if "tile" in slot:
            found += layout_tiles(slot)
    return sorted(found)


def logged(seq: int) -> Callable[[Any], tuple[int, str, str] | None]:
    """A wait condition: the log entry of event ``seq``, once the page shows it."""
    return lambda driver: next((entry for entry in log_entries(driver) if entry[0] == seq), None)


def on_board(tile: str, container: str) -> Callable[[Any], bool]:
    return lambda driver: tile in board_tiles(driver, container)


def seq_reached(seq: int) -> Callable[[Any], bool]:
    """A wait condition: the table drawn is at ``seq`` or later."""
    return lambda driver: int(table(driver).get("seq", -1)) >= seq


def metrics(driver: Any) -> dict[str, Any]:
    return dict(driver.execute_script("return JSON.parse(JSON.stringify(window.cfMetrics || {}));"))


def my_turn_or_end(driver: Any, seconds: float = MATCH_SECONDS) -> str:
    """Wait until the page offers a move ("turn") or shows the match over ("end")."""

    def ready(d: Any) -> str | None:
        data = table(d)
        if data.get("status") in ("finished", "aborted"):
            return "end"
        if data.get("yourTurn") == "true" and data.get("busy") == "false":
            return "turn"
        return None

    return str(until(driver, "my turn or the end of the match", ready, seconds))


def play_turn(driver: Any, rng: random.Random) -> dict[str, Any]:
    """One move, as a person makes it: a playable tile (then one of its ends if it fits
    several), else "Draw a tile", else "Pass". Waits for the answer to be drawn; answers
    {seq (the state decided on), kind, tile, seat}."""
    from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException

    controls = (
        "[data-testid=next-hand], [data-testid=end-choices] button[data-end], "
        "[data-testid=hand] button[data-legal=true], [data-testid=draw-button], [data-testid=pass-button]"
    )
    before = int(table(driver)["seq"])
    move: dict[str, Any] = {"seq": before}
    for _ in range(10):
        try:
            # The end of a hand stays on screen until the player moves on (js/table.js);
            # it may come up (hiding the hand and its buttons) after the turn was seen.
            for button in css(driver, "[data-testid=next-hand]"):
                if button.is_displayed():
                    button.click()
            ends = css(driver, "[data-testid=end-choices] button[data-end]")
            tiles = css(driver, "[data-testid=hand] button[data-legal=true]")
            if ends:
                rng.choice(ends).click()
            elif tiles:
                tile = rng.choice(tiles)
                move.update(kind="play", tile=tile.get_attribute("data-tile"))
                tile.click()
                ends = css(driver, "[data-testid=end-choices] button[data-end]")
                if ends:  # it fits several ends: the page asks where
                    choice = rng.choice(ends)
                    if not choice.is_displayed():  # a hand's end came up over them meanwhile
                        raise ElementNotInteractableException("the end choices are hidden")
                    assert choice.text.startswith(f"{move['tile']} on "), choice.text
                    choice.click()
            elif draw := css(driver, "[data-testid=draw-button]"):
                move["kind"] = "draw"
                draw[0].click()
            else:
                move["kind"] = "pass"
                css(driver, "[data-testid=pass-button]")[0].click()
            break
        except (StaleElementReferenceException, ElementNotInteractableException):
            # Redrawn, or hidden by a hand's end that came up meanwhile: wait until a
            # control can be pressed again, then choose anew.
            def pressable(d: Any) -> bool:
                shown = [element for element in css(d, controls) if element.is_displayed()]
                state = table(d)
                mine = state.get("yourTurn") == "true" and state.get("busy") == "false"
                return any(e.get_attribute("data-testid") == "next-hand" for e in shown) or (mine and bool(shown))

            until(driver, "a control to press on my turn", pressable, MATCH_SECONDS)
            continue
    until(driver, "the move's answer on the page", lambda d: int(table(d)["seq"]) > before or alert_text(d))
    assert not alert_text(driver), alert_text(driver)
    return move


def play_until_over(driver: Any, rng: random.Random) -> list[dict[str, Any]]:
    moves = []
    while my_turn_or_end(driver) == "turn":
        moves.append(play_turn(driver, rng))
    return moves


def api_moves(port: int, game_id: int) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = []
    while True:
        status, page = request(port, "GET", f"/api/v1/games/{game_id}/moves/?after={len(moves)}")
        assert status == 200, page
        moves += page["moves"]
        if not page["has_more"]:
            return moves


def assert_log_is_the_apis(driver: Any, port: int, game_id: int) -> None:
    """The page's log has every event of the game once, in order, and each move of the
    API's move log where it began, saying who moved and what."""
    events = logged_events(port, game_id)
    until(driver, "the page's log to catch up", lambda d: len(log_entries(d)) >= len(events))
    entries = log_entries(driver)
    assert [seq for seq, _, _ in entries] == [e["seq"] for e in events]
    assert [kind for _, kind, _ in entries] == [e["type"] for e in events]
    by_seq = {seq: text for seq, _, text in entries}
    for move in api_moves(port, game_id):
        text = by_seq[move["seq"]]
        if move["move"]["type"] == "play":
            assert f"played {move['move']['tile']} on " in text, text
        else:
            assert ("drew" if move["move"]["type"] == "draw" else "passed") in text, text


def game_view(server: Serve, game_id: int) -> dict[str, Any]:
    status, body = server.api("GET", f"/games/{game_id}/")
    assert status == 200, body
    return dict(body)


# -- 1. a whole match by clicking ---------------------------------------------------------


def test_a_newcomer_registers_opens_a_table_with_three_bots_and_plays_the_whole_match(
    server: Serve, make_browser: Callable[..., Any]
) -> None:
    from selenium.webdriver.support.ui import Select

    driver = make_browser()
    base = base_url(server)
    driver.get(f"{base}/register/")
    until(driver, "the register form", lambda d: css(d, "#register-form"))
    css(driver, "#register-username")[0].send_keys("newcomer")
    css(driver, "#register-password")[0].send_keys(PASSWORD)
    css(driver, "#register-password2")[0].send_keys(PASSWORD)
    css(driver, "#register-remember")[0].click()
    css(driver, "#register-submit")[0].click()
    until(driver, "the lobby, signed in", lambda d: d.find_element("css selector", "[data-testid=account-name]").text)
    until(driver, "the create form", lambda d: css(d, "#create-form"))

    Select(css(driver, "#create-set_max")[0]).select_by_value("6")
    for name, value in {"players": "4", "rounds": "2", "bot_delay_ms": "0", "bots": "3"}.items():
        field = css(driver, f"#create-{name}")[0]
        field.clear()
        field.send_keys(value)
    css(driver, "#create-submit")[0].click()
    # Read in the page: the live lobby may redraw the card between a find and a read.
    game_id = int(
        until(
            driver,
            "the new table in my games",
            lambda d: d.execute_script(
                "return document.querySelector('#my-games [data-testid=game-card]')?.dataset.game || null"
            ),
        )
    )
    until(driver, "the start button", lambda d: css(d, f"#my-games [data-game='{game_id}'] [data-action=start]"))[
        0
    ].click()
    until(
        driver,
        "the table to start",
        lambda d: css(d, f"#my-games [data-game='{game_id}'][data-status=running] [data-testid=game-link]"),
    )

    # The table page as it opens from its address (its first paint counts from navigation start).
    driver.get(f"{base}/games/{game_id}/")
    until(driver, "the table drawn", lambda d: metrics(d).get("tablePaint"))
    first_paint = float(metrics(driver)["tablePaint"])
    data = table(driver)
    assert (data["role"], data["status"]) == ("player", "running")
    seats = css(driver, "[data-testid=seats] [data-seat]")
    assert [s.get_attribute("data-bot") for s in seats] == ["false", "true", "true", "true"]
    assert "newcomer" in seats[0].text and all("bot" in s.text for s in seats[1:])

    moves = play_until_over(driver, random.Random(1))
    assert moves, "the newcomer never had a move to make"

    # The final scoreboard is the API's.
    view = game_view(server, game_id)
    state, result = view["state"], view["game"]["result"]
    until(driver, "the result", lambda d: css(d, "[data-testid=result]")[0].is_displayed())
    totals = [int(cell.text.split()[0]) for cell in css(driver, "[data-testid=scoreboard] tfoot td[data-seat]")]
    assert totals == state["totals"] == result["totals"]
    rows = css(driver, "[data-testid=scoreboard] tbody tr[data-round]")
    assert len(rows) == len(state["rounds"]) == 2
    for row, summary in zip(rows, state["rounds"], strict=True):
        scores = [int(cell.text.split()[0]) for cell in row.find_elements("css selector", "td[data-seat]")]
        assert scores == summary["scores"]
    shown = css(driver, "[data-testid=result]")[0]
    assert shown.get_attribute("data-winners") == ",".join(map(str, result["winners"]))
    assert shown.get_attribute("data-tie-break") == result["tie_break"]
    assert "Decided by" in shown.text
    assert_log_is_the_apis(driver, server.port, game_id)
    save_shot(driver, "final-scoreboard")

    # Speed, as the page measured it.
    timings = [float(ms) for ms in metrics(driver)["moves"]]
    assert len(timings) == len(moves)
    paint, median, slowest = round(first_paint, 1), round(statistics.median(timings), 1), round(max(timings), 1)
    speed = {
        "table_first_paint_ms": paint,
        "moves": len(timings),
        "click_to_drawn_ms": {"median": median, "max": slowest, "all": [round(ms, 1) for ms in timings]},
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "web-speed.json").write_text(json.dumps(speed, indent=2) + "\n")
    print(
        f"\nweb speed: table first paint {paint} ms from navigation start; "
        f"click-to-drawn over {len(timings)} moves: median {median} ms, max {slowest} ms"
    )
    check_requests_against_contract(driver)


# -- 2. two players and a spectator -------------------------------------------------------


def test_two_players_play_a_hand_while_an_anonymous_visitor_watches_every_move(
    server: Serve, make_browser: Callable[..., Any]
) -> None:
    alice, bob, watcher = make_browser(), make_browser(), make_browser(1000, 1000)
    token = sign_in(alice, server, "alice")
    bob_token = sign_in(bob, server, "bob")
    game_id = open_table(server, token, players=2, bots=())
    status, answer = request(server.port, "POST", f"/api/v1/games/{game_id}/join/", {}, token=bob_token)
    assert status == 200, answer
    status, answer = request(server.port, "POST", f"/api/v1/games/{game_id}/start/", token=token)
    assert status == 200, answer

    url = f"{base_url(server)}/games/{game_id}/"
    for driver in (alice, bob, watcher):
        driver.get(url)
    for driver in (alice, bob, watcher):
        until(driver, "the table drawn", lambda d: table(d).get("status") == "running")
    assert table(watcher)["role"] == "spectator"
    assert table(alice)["role"] == table(bob)["role"] == "player"
    assert not css(watcher, "[data-testid=hand] button") and not css(watcher, "[data-testid=resign-button]")
    assert not css(watcher, "[data-testid=draw-button]") and not css(watcher, "[data-testid=pass-button]")

    rng = random.Random(2)
    names = {alice: "alice", bob: "bob"}
    played = 0
    while True:
        # Whoever is to move moves; the other page and the spectator's follow.
        on_turn = until(
            alice,
            "one of the players to be asked for a move",
            lambda _: (
                next((d for d in (alice, bob) if table(d).get("yourTurn") == "true"), None)
                or table(alice).get("status") == "finished"
            ),
            MATCH_SECONDS,
        )
        if on_turn is True:
            break
        if table(on_turn).get("busy") != "false":
            continue
        move = play_turn(on_turn, rng)
        played += 1
        first_event = move["seq"] + 1  # a move's first event follows the state it was decided on
        entry = until(
            watcher,
            f"{names[on_turn]}'s move in the spectator's log",
            logged(first_event),
        )
        assert entry[2].startswith(names[on_turn]), entry
        if move["kind"] == "play":
            assert f"played {move['tile']}" in entry[2], entry
            until(
                watcher,
                f"{move['tile']} on the spectator's board",
                on_board(move["tile"], "board-area"),
            )
        now = int(table(on_turn)["seq"])
        until(watcher, "the spectator's table up to date", seq_reached(now))

    assert played >= 2
    for driver in (alice, bob, watcher):
        until(driver, "the end of the hand", lambda d: table(d).get("status") == "finished")
        assert_log_is_the_apis(driver, server.port, game_id)
    final = game_view(server, game_id)["state"]["layout"]
    assert board_tiles(watcher, "board-area") == layout_tiles(final)
    for driver in (alice, bob, watcher):
        check_requests_against_contract(driver)


# -- 3. the stream drops and resumes -------------------------------------------------------


def test_the_page_resumes_after_the_stream_drops_with_no_move_missing_or_doubled(
    server: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser()
    token = sign_in(driver, server, "carol")
    # The bots pause 0.4 s each: three of them move while the web process is down.
    game_id = open_table(server, token, bot_delay_ms=400, seed=3)
    driver.get(f"{base_url(server)}/games/{game_id}/")
    until(driver, "the table drawn", lambda d: table(d).get("status") == "running")
    rng = random.Random(3)

    dropped = False
    while my_turn_or_end(driver) == "turn":
        play_turn(driver, rng)
        hand = len(css(driver, "[data-testid=hand] button[data-tile]"))
        if not dropped and table(driver)["status"] == "running" and table(driver)["yourTurn"] == "false" and hand > 1:
            # Mid-hand, the bots to move: the web process dies (its streams with it).
            seq_at_drop = int(table(driver)["seq"])
            web = server.supervised("web")
            os.kill(web["pid"], signal.SIGKILL)
            until(
                driver,
                '"reconnecting..." on the page',
                lambda d: "reconnecting" in css(d, "[data-testid=table-connection]")[0].text,
                RECONNECT_SECONDS,
            )
            until(
                driver,
                "the stream back",
                lambda d: css(d, "[data-testid=table-connection]")[0].get_attribute("data-state") == "open",
                RECONNECT_SECONDS,
            )
            assert server.supervised("web")["restarts"] >= 1
            until(driver, "the moves made meanwhile", seq_reached(seq_at_drop + 2))
            dropped = True
    assert dropped, "the hand ended before the stream could be dropped mid-hand"
    assert table(driver)["repeats"] == "0"  # resumed after the last event it had (Last-Event-ID)
    assert_log_is_the_apis(driver, server.port, game_id)
    check_requests_against_contract(driver)


# -- 4. a refused move, an open chicken foot, a phone ----------------------------------------


def test_a_stale_move_from_a_second_window_is_refused_with_its_message(
    server: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser()
    token = sign_in(driver, server, "dave")
    game_id = open_table(server, token, setup=FOOT_SETUP)
    url = f"{base_url(server)}/games/{game_id}/"
    driver.get(url)
    first = driver.current_window_handle
    until(driver, "my first turn", lambda d: table(d).get("yourTurn") == "true")
    driver.switch_to.new_window("window")
    second = driver.current_window_handle
    driver.get(url)
    until(driver, "my first turn in the second window", lambda d: table(d).get("yourTurn") == "true")
    stale_seq = int(table(driver)["seq"])
    # The second window stops re-reading the game (its stream stays): it keeps the old position.
    driver.execute_cdp_cmd("Network.enable", {})
    only_the_game = {"urlPattern": f"{base_url(server)}/api/v1/games/{game_id}/", "block": True}  # URLPattern: exact
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urlPatterns": [only_the_game]})

    driver.switch_to.window(first)
    only = css(driver, "[data-testid=hand] button[data-legal=true]")
    assert [b.get_attribute("data-tile") for b in only] == ["6-5"]
    only[0].click()  # one end only: it is played at once
    until(
        driver,
        "the chicken foot open, and my turn again",
        lambda d: (
            table(d).get("phase") == "foot" and table(d).get("yourTurn") == "true" and table(d)["busy"] == "false"
        ),
    )
    # Pick 5-1: its three ends are the foot's toes, on the board and as buttons.
    css(driver, "[data-testid=hand] button[data-tile='5-1']")[0].click()
    choices = [b.text for b in css(driver, "[data-testid=end-choices] button[data-end]")]
    assert choices == [f"5-1 on toe {n} of the 5-5 foot on arm {choices[0].split('arm ')[1]}" for n in (1, 2, 3)]
    targets = css(driver, "[data-testid=board-area] [data-end][role=button]")
    assert len(targets) == 3 and all("5-1 on toe" in t.get_attribute("aria-label") for t in targets)
    save_shot(driver, "table-foot")
    current = int(table(driver)["seq"])

    driver.switch_to.window(second)
    until(driver, "the first window's move in the second's log", lambda d: log_entries(d)[-1][0] >= current)
    assert int(table(driver)["seq"]) == stale_seq  # still the old position
    stale = css(driver, "[data-testid=hand] button[data-tile='6-5']")
    assert stale and stale[0].get_attribute("data-legal") == "true"
    stale[0].click()
    message = until(driver, "the refusal", alert_text)
    assert f"The game is at seq {current}, not {stale_seq}" in message
    assert css(driver, "[data-testid=table-alert]")[0].get_attribute("role") == "alert"
    # stale_seq brings the game as it is now: the second window is up to date again.
    until(driver, "the current position", lambda d: int(table(d)["seq"]) == current)
    assert table(driver)["phase"] == "foot"
    check_requests_against_contract(driver)
    driver.close()

    # The same table on a phone: nothing wider than the screen.
    driver.switch_to.window(first)
    driver.set_window_size(360, 780)
    until(driver, "the narrow layout", lambda d: d.execute_script("return window.innerWidth") <= 360)
    overflow = driver.execute_script("return document.documentElement.scrollWidth")
    assert overflow <= 360, f"the page is {overflow} px wide at 360 px"
    save_shot(driver, "phone-table")
    check_requests_against_contract(driver)


# -- 5. the replay ------------------------------------------------------------------------


def test_a_finished_match_replays_to_its_final_layout(server: Serve, make_browser: Callable[..., Any]) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    game_id = open_bot_table(server, rounds=2)
    driver = make_browser()
    until(
        driver,
        "the bots' match to end",
        lambda _: game_view(server, game_id)["game"]["status"] == "finished",
        MATCH_SECONDS,
    )
    view = game_view(server, game_id)
    driver.get(f"{base_url(server)}/games/{game_id}/replay/")
    steps = int(
        until(driver, "the replay's steps", lambda d: css(d, "[data-testid=replay][data-steps]"))[0].get_attribute(
            "data-steps"
        )
    )
    replay = css(driver, "[data-testid=replay]")[0]
    assert replay.get_attribute("data-step") == "0"

    body = css(driver, "body")[0]
    body.send_keys(Keys.ARROW_RIGHT)
    until(driver, "step 2", lambda d: css(d, "[data-testid=replay]")[0].get_attribute("data-step") == "1")
    body.send_keys(Keys.ARROW_LEFT)
    until(driver, "step 1 again", lambda d: css(d, "[data-testid=replay]")[0].get_attribute("data-step") == "0")
    Select(css(driver, "[data-testid=replay-round]")[0]).select_by_value("2")
    until(driver, "hand 2", lambda d: css(d, "[data-testid=replay]")[0].get_attribute("data-round") == "2")
    css(driver, "[data-testid=replay-first]")[0].click()
    until(driver, "the first step", lambda d: css(d, "[data-testid=replay]")[0].get_attribute("data-step") == "0")
    css(driver, "[data-testid=replay-last]")[0].click()
    until(
        driver,
        "the last step",
        lambda d: css(d, "[data-testid=replay]")[0].get_attribute("data-step") == str(steps - 1),
    )

    # The last step is the final layout, tile for tile and end for end.
    layout = view["state"]["layout"]
    assert board_tiles(driver, "replay-board") == layout_tiles(layout)
    replayed = driver.execute_script("return window.cfReplay.layout;")
    assert replayed == layout
    totals = [int(c.text.split()[0]) for c in css(driver, "[data-testid=replay-scoreboard] tfoot td[data-seat]")]
    assert totals == view["game"]["result"]["totals"]
    assert "Match over" in css(driver, "[data-testid=replay-description]")[0].text

    # The table page shows the same final position.
    driver.get(f"{base_url(server)}/games/{game_id}/")
    until(driver, "the final table", lambda d: table(d).get("status") == "finished")
    assert board_tiles(driver, "board-area") == layout_tiles(layout)
    check_requests_against_contract(driver)
