"""The board modules of the browser client (``web/static/web/js/layout.js`` and
``board.js``) in real headless Chromium, against real matches of the embedded server.

Whole matches are played over HTTP on ``manage.py serve`` (one account a seat, each
move the one its player's ``legal_moves`` rank first, highest pips first): 4 and 6
spinner arms, double-6 to double-15 sets, chicken feet in every one. The server's
state is recorded before every move (``GET /games/{id}/``, as the player to move) and
after it (the ``MoveResult``'s game). The page then imports ``/static/web/js/layout.js``
as the client does and, given the game's public event log, must rebuild at every one
of those points exactly the server's ``state.layout`` tree, ``state.open_ends`` and
round phase - also from ``state.history`` alone, and step by step in ``replaySteps``.

``drawBoard`` then draws a mid-round layout (double-9, 6 arms) with a chicken foot open: one element for
every tile and end of the tree, playable ends as buttons with accessible names that
Enter, Space and a click activate, no tile drawn over another on any board the
matches had; the screenshots are ``artifacts/web-board.png`` (desktop) and
``artifacts/web-board-360.png`` (a 360 px wide phone).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.integration.serve import Serve
from tests.integration.web import request, sign_up
from tests.web.conftest import base_url, save_shot, wait

pytestmark = [pytest.mark.slow]

# (ruleset, seed): every set size but double-18 (the longest), both spinner sizes.
MATCHES: list[tuple[dict[str, int], int]] = [
    ({"set_max": 6, "players": 4, "spinner_arms": 4}, 11),  # all 7 rounds
    ({"set_max": 9, "players": 3, "spinner_arms": 6, "rounds": 2}, 12),
    ({"set_max": 12, "players": 2, "spinner_arms": 4, "rounds": 1}, 13),
    ({"set_max": 15, "players": 5, "spinner_arms": 6, "rounds": 1}, 14),
]
SEATS = max(ruleset["players"] for ruleset, _ in MATCHES)
# One account a seat, many requests a second: the limits are not what is tested here.
LIMITS = {
    "THROTTLE_USER": "100000/minute",
    "THROTTLE_MOVES": "100000/minute",
    "THROTTLE_REGISTER": "1000/hour",
    "THROTTLE_ANON": "100000/minute",
}


@dataclass
class Played:
    """One finished match: its events, and the server's state at every point seen."""

    game_id: int
    ruleset: dict[str, Any]
    events: list[dict[str, Any]]
    # seq -> {"layout", "open_ends", "phase", "history"} as the server gave them at that seq
    states: dict[int, dict[str, Any]] = field(default_factory=dict)


def _api(server: Serve, token: str, method: str, path: str, body: Any = None) -> Any:
    status, answer = request(server.port, method, f"/api/v1{path}", body, token=token)
    assert 200 <= status < 300, (method, path, status, answer)
    return answer


def _record(played: Played, game: dict[str, Any]) -> None:
    state = game["state"]
    if state is None:
        return
    seen = {
        "layout": state["layout"],
        "open_ends": state["open_ends"],
        "phase": state["round"]["phase"],
        "history": state["history"],
    }
    seq = game["game"]["seq"]
    if seq in played.states:
        assert played.states[seq] == seen, f"two states at seq {seq}"
    played.states[seq] = seen


def _choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Highest pips first (doubles soon, so feet open), sometimes another play."""
    plays = [m for m in legal if m["type"] == "play"]
    if not plays:
        return legal[0]
    if rng.random() < 0.25:
        return rng.choice(plays)
    return max(plays, key=lambda m: (sum(int(p) for p in m["tile"].split("-")), m["tile"], m["end"]))


def _play(server: Serve, tokens: list[str], ruleset: dict[str, int], seed: int) -> Played:
    players = ruleset["players"]
    created = _api(server, tokens[0], "POST", "/games/", {"ruleset": ruleset, "seed": seed})
    game_id = created["game"]["id"]
    for seat in range(1, players):
        _api(server, tokens[seat], "POST", f"/games/{game_id}/join/", {"seat": seat})
    game = _api(server, tokens[0], "POST", f"/games/{game_id}/start/")
    played = Played(game_id, game["state"]["ruleset"], [])
    rng = random.Random(seed)
    while game["game"]["status"] == "running":
        turn = game["state"]["turn"]
        game = _api(server, tokens[turn], "GET", f"/games/{game_id}/")
        _record(played, game)
        move = _choose(game["you"]["legal_moves"], rng)
        body = {**move, "expected_seq": game["game"]["seq"]}
        result = _api(server, tokens[turn], "POST", f"/games/{game_id}/moves/", body)
        game = result["game"]
        _record(played, game)
    assert game["game"]["status"] == "finished", game["game"]
    after = 0
    while True:
        page = _api(server, tokens[0], "GET", f"/games/{game_id}/events/?after={after}")
        played.events += page["events"]
        if not page["has_more"] or not page["events"]:
            break
        after = page["events"][-1]["seq"]
    assert [e["seq"] for e in played.events] == list(range(1, len(played.events) + 1))
    return played


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    serve = Serve(tmp_path_factory.mktemp("board") / "serve", env=LIMITS, account=False)
    try:
        yield serve
    finally:
        serve.stop()


@pytest.fixture(scope="module")
def played(server: Serve) -> list[Played]:
    tokens = [sign_up(server.port, f"seat{n}") for n in range(SEATS)]
    return [_play(server, tokens, ruleset, seed) for ruleset, seed in MATCHES]


def _open_page(driver: Any, server: Serve) -> None:
    """The client's page (its modules are served from its origin, as the client loads them)."""
    driver.set_script_timeout(60)
    driver.get(base_url(server) + "/")
    wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")


REBUILD = """
const [events, seqs, histories, done] = arguments;
import("/static/web/js/layout.js").then((L) => {
  const at = seqs.map((seq) => {
    const r = L.layoutFromEvents(events.filter((e) => e.seq <= seq));
    return {layout: r.layout, open_ends: r.openEnds, phase: r.phase};
  });
  const fromHistory = histories.map((h) => L.layoutFromEvents(h).layout);
  const steps = L.replaySteps(events).map((s) => ({
    seq: s.seq, type: s.type, round: s.round, seat: s.seat, layout: s.layout, open_ends: s.openEnds,
    description: s.description,
  }));
  // Frames of the stream, shuffled and repeated, come to the same thing.
  const shuffled = events.concat(events.slice(0, 7)).reverse();
  const last = L.layoutFromEvents(shuffled);
  const framed = L.layoutFromEvents(events.map((e) => ({event: e.type, id: String(e.seq), data: e})));
  const labels = [...L.describeEnds(L.layoutFromEvents(events).layout)].map(([id, d]) => [id, d.label]);
  done({
    at, fromHistory, steps, labels,
    last: {layout: last.layout, open_ends: last.openEnds},
    framed: {layout: framed.layout, open_ends: framed.openEnds},
  });
}).catch((e) => done({error: String(e && e.stack || e)}));
"""

MOVE_EVENTS = {"round_started", "spinner_placed", "tile_played", "drew", "passed", "round_ended", "match_ended"}


def test_layout_js_rebuilds_the_servers_layout_at_every_move(
    make_browser: Callable[..., Any], server: Serve, played: list[Played]
) -> None:
    types = [e["type"] for p in played for e in p.events]
    assert types.count("foot_opened") >= 10 and types.count("foot_completed") >= 3, "chicken feet are played"
    assert {p.ruleset["spinner_arms"] for p in played} == {4, 6}
    phases = {s["phase"] for p in played for s in p.states.values()}
    assert phases == {"spinner", "foot", "free"}, phases

    driver = make_browser()
    _open_page(driver, server)
    checked = 0
    for match in played:
        seqs = sorted(match.states)
        histories = [match.states[s]["history"] for s in seqs]
        result = driver.execute_async_script(REBUILD, match.events, seqs, histories)
        assert "error" not in result, result.get("error")
        for seq, rebuilt, from_history in zip(seqs, result["at"], result["fromHistory"], strict=True):
            server_state = match.states[seq]
            expected = {key: server_state[key] for key in ("layout", "open_ends", "phase")}
            assert rebuilt == expected, f"game {match.game_id} ({match.ruleset}) at seq {seq}"
            assert from_history == server_state["layout"], f"game {match.game_id}: from state.history at seq {seq}"
            checked += 1

        # The replay: one step per move-ish event, each with the layout as it stood then.
        steps = result["steps"]
        assert [s["seq"] for s in steps] == [e["seq"] for e in match.events if e["type"] in MOVE_EVENTS]
        for step in steps:
            if step["seq"] in match.states and step["type"] not in ("round_ended", "match_ended"):
                state = match.states[step["seq"]]
                assert (step["layout"], step["open_ends"]) == (state["layout"], state["open_ends"]), step["seq"]
        by_seq = {e["seq"]: e for e in match.events}
        for step in steps:
            data = by_seq[step["seq"]]["data"]
            if step["type"] == "tile_played":
                assert step["description"].startswith(f"seat {data['seat']} played {data['tile']} on "), step
                assert step["seat"] == data["seat"] and step["round"] == data["round"]
        assert steps[-1]["type"] == "match_ended"

        final = match.states[max(seqs)]
        assert result["last"] == {"layout": final["layout"], "open_ends": final["open_ends"]}
        assert result["framed"] == result["last"]
        labels = dict(result["labels"])
        assert sorted(labels) == sorted(end["id"] for end in final["open_ends"])
        assert len(set(labels.values())) == len(labels), "every open end reads differently"
    assert checked >= 400, checked


def _walk(node: dict[str, Any], tiles: list[dict[str, Any]], ends: list[dict[str, Any]]) -> None:
    tiles.append(node)
    for slot in node["next"]:
        if "end" in slot:
            ends.append(slot)
        else:
            _walk(slot, tiles, ends)


def _foot_layout(played: list[Played]) -> dict[str, Any]:
    """The fullest board seen with a chicken foot open and some of its toes still free."""
    best: dict[str, Any] | None = None
    best_size = 0
    for match in played:
        for state in match.states.values():
            if state["phase"] != "foot" or state["layout"] is None:
                continue
            tiles: list[dict[str, Any]] = []
            ends: list[dict[str, Any]] = []
            _walk(state["layout"], tiles, ends)
            if any(not e["playable"] for e in ends) and len(tiles) > best_size:
                best, best_size = state["layout"], len(tiles)
    assert best is not None
    return best


DRAW = """
const [layout, lastTile, done] = arguments;
Promise.all([import("/static/web/js/board.js"), import("/static/web/js/layout.js")]).then(([B, L]) => {
  document.getElementById("board-test")?.remove();
  const box = document.createElement("div");
  box.id = "board-test";
  box.style.cssText = "position:absolute;left:0;top:0;width:100%;min-height:100%;z-index:1000;background:#fff;" +
    "padding:8px;box-sizing:border-box";
  const title = document.createElement("h1");
  title.textContent = "drawBoard: a chicken foot open";
  const holder = document.createElement("div");
  const hand = document.createElement("p");
  for (const t of ["6-4", "12-3", "0-0"]) hand.appendChild(B.drawTile(t, {title: t}));
  box.append(title, holder, hand);
  document.body.appendChild(box);
  window.scrollTo(0, 0);
  const ends = L.describeEnds(layout);
  const playable = new Set([...ends].filter(([, d]) => d.playable).map(([id]) => id));
  window.__activated = [];
  const svg = B.drawBoard(holder, layout, {
    playableEnds: playable,
    highlightEnds: new Set([...playable].slice(0, 1)),
    onEnd: (id) => window.__activated.push(id),
    endLabel: (id) => `play 6-4 on ${ends.get(id).label}`,
    lastTile,
  });
  done({labels: [...ends].map(([id, d]) => [id, d.label, d.playable]), viewBox: svg.getAttribute("viewBox")});
}).catch((e) => done({error: String(e && e.stack || e)}));
"""

OVERLAPS = """
const [layouts, done] = arguments;
import("/static/web/js/board.js").then((B) => done(layouts.map((l) => B.boardGeometry(l).overlaps)))
  .catch((e) => done({error: String(e && e.stack || e)}));
"""


def test_draw_board_draws_every_tile_and_end_and_plays_by_keyboard(
    make_browser: Callable[..., Any], server: Serve, played: list[Played]
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    # The double-9 table with 6 arms: a board as players mostly see it.
    layout = _foot_layout([match for match in played if match.ruleset["set_max"] == 9])
    tiles: list[dict[str, Any]] = []
    ends: list[dict[str, Any]] = []
    _walk(layout, tiles, ends)
    last = tiles[-1]["tile"]

    driver = make_browser()
    _open_page(driver, server)
    drawn = driver.execute_async_script(DRAW, layout, last)
    assert "error" not in drawn, drawn.get("error")
    board = driver.find_element(By.CSS_SELECTOR, "#board-test svg.cf-board-svg")

    # One element per tile and per open end, named as the tree names them.
    drawn_tiles = board.find_elements(By.CSS_SELECTOR, "[data-tile]")
    assert sorted((t.get_attribute("data-tile"), t.get_attribute("data-seat")) for t in drawn_tiles) == sorted(
        (t["tile"], str(t["seat"])) for t in tiles
    )
    drawn_ends = board.find_elements(By.CSS_SELECTOR, "[data-end]")
    assert sorted(e.get_attribute("data-end") for e in drawn_ends) == sorted(e["end"] for e in ends)
    assert [t.get_attribute("data-tile") for t in board.find_elements(By.CSS_SELECTOR, ".cf-tile.is-last")] == [last]
    assert board.find_element(By.CSS_SELECTOR, '[data-kind="spinner"]').get_attribute("data-tile") == layout["tile"]
    open_foot = board.find_elements(By.CSS_SELECTOR, ".cf-tile.is-open-foot")
    assert [f.get_attribute("data-kind") for f in open_foot] == ["double"]
    foot_tile = open_foot[0].get_attribute("data-tile")

    # The open foot's toes: playable buttons, each named; every other end is not a button.
    labels = {end: (label, playable) for end, label, playable in drawn["labels"]}
    playable = [e["end"] for e in ends if e["playable"]]
    assert 1 <= len(playable) <= 3, labels
    assert all(
        labels[e][0].startswith("toe ") and f" of the {foot_tile} foot on arm " in labels[e][0] for e in playable
    )
    buttons = board.find_elements(By.CSS_SELECTOR, '[data-end][role="button"]')
    assert sorted(b.get_attribute("data-end") for b in buttons) == sorted(playable)
    for button in buttons:
        assert button.get_attribute("tabindex") == "0"
        assert button.get_attribute("aria-label") == f"play 6-4 on {labels[button.get_attribute('data-end')][0]}"
        assert "is-playable" in button.get_attribute("class")
    for element in drawn_ends:
        if element.get_attribute("data-end") not in playable:
            assert element.get_attribute("role") is None and element.get_attribute("tabindex") is None
            assert "is-closed" in element.get_attribute("class")

    # Enter, Space and a click each activate the end they are on.
    driver.execute_script("arguments[0].focus()", buttons[0])
    assert driver.execute_script("return document.activeElement.getAttribute('data-end')") == buttons[0].get_attribute(
        "data-end"
    )
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    driver.switch_to.active_element.send_keys(Keys.SPACE)
    buttons[-1].click()
    activated = driver.execute_script("return window.__activated")
    first, final = buttons[0].get_attribute("data-end"), buttons[-1].get_attribute("data-end")
    assert activated == [first, first, final], activated

    # A single domino for the hand.
    dominoes = driver.find_elements(By.CSS_SELECTOR, "#board-test svg.cf-domino")
    assert [d.get_attribute("data-tile") for d in dominoes] == ["6-4", "12-3", "0-0"]
    assert all(d.get_attribute("role") == "img" for d in dominoes)
    save_shot(driver, "board")

    # Nothing drawn over anything else, on every board the matches had.
    layouts = [s["layout"] for match in played for s in match.states.values() if s["layout"] is not None]
    overlaps = driver.execute_async_script(OVERLAPS, layouts)
    assert overlaps == [0] * len(layouts)

    phone = make_browser(width=360, height=800)
    _open_page(phone, server)
    assert "error" not in phone.execute_async_script(DRAW, layout, last)
    shown = phone.find_element(By.CSS_SELECTOR, "#board-test svg.cf-board-svg")
    # Readable on a phone: a tile at least ~26 px long (a bigger board scrolls instead).
    width = float(drawn["viewBox"].split()[2])
    assert shown.size["width"] / width * 40 >= 26
    save_shot(phone, "board-360")
