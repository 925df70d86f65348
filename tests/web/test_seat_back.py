"""A player who closed the page, and came back: headless Chromium against the embedded
``manage.py serve`` with a short default turn clock (``DEFAULT_TURN_SECONDS``).

1. A table opened without a clock gets the default one; its player closes the page;
   the clock runs out three times in a row and the table's bot takes the seat (the
   Celery worker of ``manage.py serve``): the game goes on, nobody waits for ever.
2. The player opens the table again: the page says a bot plays the seat while they
   are away, with "Take your seat back"; pressed, the API gives the seat back (no bot
   on it), the notice goes, and the player's next move is their own (source
   ``player``), played from the page.
Screenshot: artifacts/web-seat-back.png. Waits are on conditions with deadlines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request
from tests.web.conftest import (
    RELAXED_LIMITS,
    base_url,
    check_requests_against_contract,
    css,
    open_table,
    save_shot,
    sign_in,
    table,
    until,
)

pytestmark = [pytest.mark.slow]

CLOCK_SECONDS = 10  # the server's default turn clock here (60 s in a deployment)
AWAY_SECONDS = 3 * CLOCK_SECONDS + 60  # three timeouts in a row, on a busy machine


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    server = Serve(
        tmp_path_factory.mktemp("clocked") / "serve",
        env={**RELAXED_LIMITS, "DEFAULT_TURN_SECONDS": str(CLOCK_SECONDS)},
    )
    try:
        yield server
    finally:
        server.stop()


def seat_of(server: Serve, game: int, token: str) -> dict[str, Any]:
    status, view = request(server.port, "GET", f"/api/v1/games/{game}/", token=token)
    assert status == 200, view
    return dict(view["game"]["seats"][view["you"]["seat"]])


def moves(server: Serve, game: int, token: str) -> list[dict[str, Any]]:
    """The game's whole public move log (page after page)."""
    found: list[dict[str, Any]] = []
    while True:
        after = found[-1]["number"] if found else 0
        status, page = request(server.port, "GET", f"/api/v1/games/{game}/moves/?after={after}", token=token)
        assert status == 200, page
        if not page["moves"]:
            return found
        found += page["moves"]


def click_a_move(driver: Any) -> bool:
    """One click towards a move (a playable tile, one of its ends, else Draw or Pass); True once it is sent."""
    from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException

    if table(driver).get("busy") == "true" or table(driver).get("yourTurn") != "true":
        return True
    found = (
        css(driver, "[data-testid=end-choices] button[data-end]")
        or css(driver, "[data-testid=hand] button[data-legal=true]")
        or css(driver, "[data-testid=draw-button], [data-testid=pass-button]")
    )
    try:
        if found:
            found[0].click()
    except (ElementNotInteractableException, StaleElementReferenceException):
        return False
    return table(driver).get("busy") == "true" or table(driver).get("yourTurn") != "true"


def test_a_closed_page_hands_the_seat_to_a_bot_and_the_player_takes_it_back(
    clocked: Serve, make_browser: Callable[..., Any]
) -> None:
    driver = make_browser()
    token = sign_in(driver, clocked, "comeback")
    # Many hands and a slow bot: the match is still on when the player comes back.
    game = open_table(
        clocked, token, players=2, set_max=9, rounds=10, bots=["random"], bot_strategy="greedy", bot_delay_ms=1500
    )
    status, view = request(clocked.port, "GET", f"/api/v1/games/{game}/", token=token)
    assert status == 200, view
    assert view["game"]["turn_time_limit"] == CLOCK_SECONDS  # nobody asked for a clock: the default
    driver.get(f"{base_url(clocked)}/games/{game}/")
    until(driver, "the table in play", lambda d: table(d).get("status") == "running")
    assert not css(driver, "[data-testid=return-button]")

    driver.get("about:blank")  # the page is closed: nobody plays the seat
    until(
        driver,
        "the table's bot to take the seat after three timeouts",
        lambda _: seat_of(clocked, game, token)["bot_strategy"] == "greedy",
        seconds=AWAY_SECONDS,
    )
    status, page = request(clocked.port, "GET", f"/api/v1/games/{game}/events/?after=0", token=token)
    assert status == 200, page
    handed = [e for e in page["events"] if e["type"] == "seat_handed_to_bot"]
    assert handed and handed[0]["data"]["reason"] == "timeouts", handed

    driver.get(f"{base_url(clocked)}/games/{game}/")
    notice = until(
        driver,
        "the take-back notice",
        lambda d: d.execute_script(
            "const b = document.querySelector('[data-testid=return-button]');"
            "return b && [b.textContent, b.parentElement.textContent];"
        ),
    )
    assert notice[0] == "Take your seat back"
    assert "A greedy bot plays your seat while you are away." in notice[1]
    save_shot(driver, "seat-back")
    # (the table may redraw the notice between a find and a click: find and click again)
    until(driver, "the take-back button pressed", lambda d: css(d, "[data-testid=return-button]")[0].click() or True)
    until(driver, "the notice to go", lambda d: not css(d, "[data-testid=return-button]"))
    seat = seat_of(clocked, game, token)
    assert seat["bot_strategy"] == "" and seat["player"]["username"] == "comeback", seat

    # The next move of the seat is the player's own, from the page.
    played = moves(clocked, game, token)  # read first: the turn's clock runs from the moment it is the player's
    until(
        driver, "my turn", lambda d: table(d).get("yourTurn") == "true" and table(d).get("busy") == "false", seconds=30
    )
    # The table redraws at each clock tick: a button found a moment ago may be gone when
    # clicked - find and click again, until the move is sent (a tile with two ends first
    # offers them: one of them is clicked next).
    until(driver, "a move clicked", click_a_move)

    def my_new_move(_: Any) -> dict[str, Any] | None:
        return next((m for m in moves(clocked, game, token)[len(played) :] if m["seat"] == seat["number"]), None)

    move = until(driver, "my move in the API's log", my_new_move, seconds=CLOCK_SECONDS * 2)
    assert move["source"] == "player", move
    check_requests_against_contract(driver)
