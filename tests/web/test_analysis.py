"""The replay's analysis in Chromium, on ``manage.py serve`` (its analysis worker on
its own queue): a spectator of a finished bots' match asks for a seat's analysis, the
page follows it to the end, lists the seat's decisions with their marks (the same as
the API's; "better" only where a better move gains something), jumps to one, shows
its mark and the better move on the board - in English and in Estonian; on a phone
the scrolling move list cuts off no number and keeps its text clear of the scrollbar."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.integration.serve import Serve, open_bot_table
from tests.integration.web import request
from tests.web.conftest import (
    DESKTOP,
    base_url,
    browser_requests,
    browser_server,
    check_requests_against_contract,
    css,
    save_shot,
    sign_in,
    until,
)

pytestmark = [pytest.mark.slow]

MATCH_SECONDS = 120
PHONE = (390, 844)
ANALYSIS_SECONDS = 120


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    # Four times the deals a decision (160): an analysis takes seconds, as a long match's
    # would, and a page that polled for its progress would be seen asking.
    yield from browser_server(tmp_path_factory, "web-analysis", env={"ANALYSIS_DEALS": "640"})


def data(driver: Any, testid: str) -> dict[str, str]:
    found = driver.execute_script(
        "const e = document.querySelector(`[data-testid=${arguments[0]}]`);"
        "return e ? Object.assign({hidden: String(e.hidden)}, e.dataset) : null;",
        testid,
    )
    return found or {}


def marks(driver: Any) -> list[tuple[int, str]]:
    rows = driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=analysis-moves] li')]"
        ".map(li => [Number(li.dataset.moveNumber), li.dataset.verdict]);"
    )
    return [(int(n), str(v)) for n, v in rows]


def move_of(move: dict[str, Any]) -> tuple[str, str, str]:
    return move["type"], move.get("tile") or "", move.get("end") or ""


# The move list's fit: the widest list number ("12. ", in its item's font: a blunder's is
# bold) against the room the list leaves for the numbers (they are outside markers, and
# the scrolling list cuts off what lies outside it), and the rightmost text against the
# list's inner right edge.
LIST_FIT = """
const list = document.querySelector('[data-testid=analysis-moves]');
const style = getComputedStyle(list);
const box = list.getBoundingClientRect();
const probe = document.createElement('span');
probe.style.position = 'absolute';
probe.style.whiteSpace = 'pre';
document.body.append(probe);
let widest = 0;
[...list.children].forEach((li, i) => {
  probe.style.font = getComputedStyle(li).font;
  probe.textContent = `${i + 1}. `;
  widest = Math.max(widest, probe.getBoundingClientRect().width);
});
probe.remove();
const rights = [...list.querySelectorAll('button')].map((b) => b.getBoundingClientRect().right);
return {
  widest_number: widest,
  room_left: parseFloat(style.paddingLeft),
  text_right: Math.max(...rights),
  inner_right: box.left + list.clientLeft + list.clientWidth,
  scroll_width: list.scrollWidth,
  client_width: list.clientWidth,
};
"""


def analysis_requests(sent: list[dict[str, str]], game_id: int) -> list[str]:
    """The methods of the page's requests for the game's analysis, in order."""
    return [r["method"] for r in sent if urlsplit(r["url"]).path == f"/api/v1/games/{game_id}/analysis/"]


def stream_opens(sent: list[dict[str, str]]) -> int:
    """How many times the page (re)opened the account stream in these requests."""
    return sum(1 for r in sent if urlsplit(r["url"]).path == "/api/v1/me/stream/")


def test_a_spectator_analyses_a_seat_in_the_replay(server: Serve, make_browser: Callable[..., Any]) -> None:
    from selenium.webdriver.support.ui import Select

    game_id = open_bot_table(server, rounds=2, strategies=("greedy", "random", "greedy", "random"))
    driver = make_browser()
    token = sign_in(driver, server, "an-viewer")
    until(
        driver,
        "the bots' match to end",
        lambda _: request(server.port, "GET", f"/api/v1/games/{game_id}/")[1]["game"]["status"] == "finished",
        MATCH_SECONDS,
    )
    loaded = len(browser_requests(driver))
    driver.get(f"{base_url(server)}/games/{game_id}/replay/")
    until(driver, "the analysis panel", lambda d: css(d, "[data-testid=analysis-request]:not([hidden])"))
    assert "Nobody has analysed" in css(driver, "[data-testid=analysis-status]")[0].text

    # Another account's analysis first, on the one analysis worker: the page's waits in
    # the queue, then runs (a page that polled would ask many times meanwhile).
    status, body = server.api("POST", f"/games/{game_id}/analysis/", {"seat": 0})
    assert status == 202, body

    # Seat 1 plays at random: it errs. (Seat 3 too, should seat 1 have had no better play.)
    chosen = None
    for seat in (1, 3):
        Select(css(driver, "[data-testid=analysis-seat]")[0]).select_by_value(str(seat))
        until(driver, "the seat's state", lambda d: css(d, "[data-testid=analysis-request]:not([hidden])"))
        before = len(browser_requests(driver))
        css(driver, "[data-testid=analysis-request]")[0].click()
        until(
            driver,
            "the analysis to finish",
            lambda d: data(d, "analysis").get("status") == "done",
            ANALYSIS_SECONDS,
        )
        # Followed on the account stream, open all along: the request, then the one GET
        # of the result - no polling (each second, before the stream carried progress).
        sent = browser_requests(driver)
        assert stream_opens(sent[loaded:]) == 1, (
            "the account stream dropped: the test cannot tell polling from catching up"
        )
        assert analysis_requests(sent[before:], game_id) == ["POST", "GET"]
        status, analysis = request(server.port, "GET", f"/api/v1/games/{game_id}/analysis/?seat={seat}", token=token)
        assert status == 200, analysis
        decisions = analysis["result"]["decisions"]
        # The move list: every decision, with the API's verdict.
        assert marks(driver) == [(d["move_number"], d["verdict"]) for d in decisions]
        chosen = next(
            (d for d in decisions if d["best"]["type"] == "play" and d["loss"] > 0 and d["best"] != d["played"]), None
        )
        if chosen is not None:
            break
    assert chosen is not None, "neither random seat ever had a better play"
    # "better: ..." only where the better move gains something as the list writes it
    # (two decimals): a tie for best ("+0") is no better move.
    texts = driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=analysis-moves] li')].map(li => li.textContent);"
    )
    for decision, text in zip(decisions, texts, strict=True):
        gains = move_of(decision["best"]) != move_of(decision["played"]) and round(decision["loss"] * 100) > 0
        assert ("better:" in text) == gains, (decision, text)
        assert "(+0)" not in text, text

    # On a phone the list scrolls: no number is cut off at its left edge, no text runs
    # under its scrollbar.
    driver.set_window_size(*PHONE)
    until(driver, "the phone's width", lambda d: d.execute_script("return innerWidth") == PHONE[0])
    fit = driver.execute_script(LIST_FIT)
    assert fit["widest_number"] <= fit["room_left"], fit
    assert fit["text_right"] <= fit["inner_right"] - 8, fit  # clear of a scrollbar drawn over the text too
    assert fit["scroll_width"] <= fit["client_width"], fit
    save_shot(driver, "replay-analysis-phone")
    driver.set_window_size(*DESKTOP)
    summary = css(driver, "[data-testid=analysis-summary]")[0].text
    # The match's accuracy as the page's language writes a percentage (86%, 86.5%).
    shown = re.search(r"Accuracy ([0-9.]+)%", summary)
    assert shown is not None, summary
    assert float(shown.group(1)) == analysis["result"]["match"]["accuracy"]
    # Each count in the singular or the plural as it needs ("1 mistake", not "1 mistakes").
    counts = analysis["result"]["match"]["counts"]
    for kind, one, more in (
        ("blunder", "blunder", "blunders"),
        ("mistake", "mistake", "mistakes"),
        ("inaccuracy", "inaccuracy", "inaccuracies"),
    ):
        count = counts[kind]
        assert f" {count} {one if count == 1 else more}" in summary, summary

    # Jump to the decision: its mark beside the step, and the better move on the board.
    item = css(driver, f'[data-testid=analysis-moves] li[data-move-number="{chosen["move_number"]}"]')[0]
    step = item.get_attribute("data-step")
    item.find_element("css selector", "button").click()
    until(driver, "the decision's step", lambda d: data(d, "replay").get("step") == step)
    verdict = data(driver, "replay-verdict")
    assert verdict["hidden"] == "false" and verdict["verdict"] == chosen["verdict"]
    text = css(driver, "[data-testid=replay-verdict]")[0].text
    assert f"Better: {chosen['best']['tile']} on {chosen['best']['end']}" in text
    css(driver, "[data-testid=replay-better]")[0].click()
    until(
        driver,
        "the better move's end highlighted",
        lambda d: css(d, f'[data-testid=replay-board] .cf-end.is-highlight[data-end="{chosen["best"]["end"]}"]'),
    )
    save_shot(driver, "replay-analysis")

    # In Estonian.
    driver.execute_script("document.cookie = 'language=et; path=/';")
    driver.get(f"{base_url(server)}/games/{game_id}/replay/")
    until(driver, "the analysis in Estonian", lambda d: css(d, "#cf-analysis-title"))
    assert css(driver, "#cf-analysis-title")[0].text == "Analüüs"
    # The seat's summary as Estonian writes numbers: a decimal comma.
    Select(css(driver, "[data-testid=analysis-seat]")[0]).select_by_value(str(seat))
    until(
        driver,
        "the seat's summary in Estonian",
        lambda d: "Täpsus" in css(d, "[data-testid=analysis-summary]")[0].text,
    )
    summary = css(driver, "[data-testid=analysis-summary]")[0].text
    shown = re.search(r"Täpsus ([0-9,]+)\s?%", summary)
    assert shown is not None, summary
    assert float(shown.group(1).replace(",", ".")) == analysis["result"]["match"]["accuracy"]
    check_requests_against_contract(driver)
