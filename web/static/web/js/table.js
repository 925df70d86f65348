// The game page: /games/<id>/ (play or spectate).
//
// renderTable(root, {gameId}) draws one table and keeps it live over the game's
// stream (GET /api/v1/games/{id}/stream/ through sse.js); it returns a cleanup
// function (closes the stream, stops the timers).
//
// How it stays right:
// - The stream is opened with Last-Event-ID 0: its `snapshot` frame (the Game as this
//   viewer may see it) paints the table, then every event of the log follows once, in
//   order (the move log is built from them); after a drop, sse.js resumes from the
//   last id it got, so nothing is missed or doubled (entries are also keyed by seq).
// - Events carry no hand and no legal moves: an event newer than the drawn state
//   schedules GET /games/{id}/ (debounced; spectators at most every 0.7 s, under the
//   anonymous rate limit). A move's own answer (MoveResult.game) is drawn at once.
//   A state older than the one drawn is never drawn. A play seen on the stream is put on
//   the board at once (layout.js rebuilds the round's layout from its events), before the
//   GET it triggers answers.
// - A move is sent with expected_seq = the seq of the state it was decided on; a
//   refusal shows the problem's detail (role=alert); stale_seq draws the problem's game.
//
// Selectors for tests (data-testid unless said):
//   table (the <section>; data-seq, data-status, data-your-turn, data-busy, data-role
//     "player"|"spectator", data-phase, data-round, data-repeats: events the stream sent
//     twice, 0 unless a resumption went wrong), table-connection (role=status:
//     "live" / "reconnecting..." / "closed"; data-state), table-alert (role=alert),
//   seats > [data-seat] (data-turn="true" on the seat to play, data-bot), turn-clock,
//   board-area (drawBoard's container; inside, board.js's svg [data-testid=board] with
//     [data-tile] and [data-end]),
//   hand > button[data-tile] (data-legal="true"|"false", aria-pressed when picked),
//   end-choices > button[data-end] (after picking a tile with two or more ends),
//   draw-button, pass-button, resign-button, resign-confirm, resign-cancel,
//   scoreboard (<table>; tfoot [data-seat] totals), result (data-winners, data-tie-break),
//   move-log > li[data-seq] (one entry per event, data-type; moves have data-move="true"),
//   replay-link.
// window.cfMetrics = {tablePaint, tableRender, moves: [ms]}: tablePaint is
// performance.now() when the first table was on screen (ms since navigation start),
// tableRender the same from renderTable's call, moves each of my moves from the click
// to the frame after its answer was drawn.

import * as api from "./api.js";
import { describeEnds, drawBoard, drawTile } from "./board.js";
import { mountChat } from "./chat.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { layoutFromEvents } from "./layout.js";
import { reportButton } from "./report.js";
import { openStream } from "./sse.js";
import { levelWord, setTitle } from "./ui.js";

const PLAYER_REFRESH_MS = 30;
const SPECTATOR_REFRESH_MS = 700;
const CLOCK_TICK_MS = 500;

const TIE_BREAKS = () => ({
  lowest_total: gettext("the lowest total"),
  most_zero_rounds: gettext("the most zero-point hands (the totals were tied)"),
  lowest_nonzero_round: gettext("the lowest non-zero hand score (totals and zero-point hands were tied)"),
  shared: gettext("a tie on every tie-break: the win is shared"),
});

const PASS_REASONS = () => ({
  no_play: gettext("passed (nothing to play, the boneyard is empty)"),
  drawn_tile_unplayable: gettext("passed (the drawn tile did not fit)"),
  declined_drawn_tile: gettext("passed (kept the drawn tile)"),
});

// -- small DOM helpers ------------------------------------------------------------

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A seat's name for people: the player's username, or "<strategy> bot". */
export function seatLabel(game, number) {
  const seat = game?.game?.seats?.[number];
  if (!seat) return interpolate(gettext("seat %(number)s"), { number: number + 1 });
  if (seat.player) return seat.player.username;
  if (seat.is_bot) return interpolate(gettext("%(level)s bot %(number)s"), { level: seat.bot_strategy ? levelWord(seat.bot_strategy) : gettext("server"), number: number + 1 });
  return interpolate(gettext("seat %(number)s (empty)"), { number: number + 1 });
}

/** A small flat tile (the hands shown at the end of a hand), its text for screen readers. */
function smallTile(tile) {
  try {
    const drawn = drawTile(tile, { label: tile, vertical: false });
    if (drawn instanceof Node) return el("span", { class: "cf-small-tile", title: tile }, drawn);
  } catch (err) {
    // fall through to text
  }
  return el("span", { class: "cf-small-tile" }, tile);
}

/** A tile drawn by board.js when it can, else as text. */
export function tileFace(tile) {
  try {
    const drawn = drawTile(tile, { label: tile, vertical: true });
    if (drawn instanceof Node) {
      if (drawn.setAttribute) drawn.setAttribute("aria-hidden", "true");
      return el("span", { class: "cf-tile-face" }, drawn, el("span", { class: "cf-tile-text" }, tile));
    }
  } catch (err) {
    // fall through to text
  }
  return el("span", { class: "cf-tile-face cf-tile-face-text" }, tile);
}

function secondsLeft(deadline) {
  if (!deadline) return null;
  const at = Date.parse(deadline);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function clockText(deadline) {
  const left = secondsLeft(deadline);
  if (left === null) return "";
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return interpolate(gettext("%(minutes)s:%(seconds)s left"), { minutes, seconds });
}

/** A turn clock counting down to `deadline` (the table's ticker rewrites every [data-deadline]). */
function clockElement(deadline, testid) {
  return el("span", { class: "cf-clock", "data-testid": testid, "data-deadline": deadline }, clockText(deadline));
}

// -- the move log: one readable line per public event -----------------------------

/** Tracks, within a round, where each open end is (arm, toe of which foot), to describe plays. */
export class EventDescriber {
  constructor(nameOf) {
    this.nameOf = nameOf;
    this.ends = new Map();
  }

  where(end) {
    const info = this.ends.get(end);
    if (!info) return interpolate(gettext("on end %(end)s"), { end });
    if (info.toe) return interpolate(gettext("on toe %(toe)s of the %(foot)s foot (arm %(arm)s)"), { toe: info.toe, foot: info.foot, arm: info.arm });
    return interpolate(gettext("on arm %(arm)s"), { arm: info.arm });
  }

  /** The line for one Event ({seq, type, data}); also updates what it knows of the ends. */
  describe(event) {
    const d = event.data || {};
    const who = d.seat !== undefined ? this.nameOf(d.seat) : "";
    switch (event.type) {
      case "game_created":
        return d.practice ? interpolate(gettext("%(name)s opened the table (practice)"), { name: d.creator }) : interpolate(gettext("%(name)s opened the table"), { name: d.creator });
      case "seat_taken":
        return interpolate(gettext("%(name)s took seat %(seat)s"), { name: d.player, seat: d.seat + 1 });
      case "seat_left":
        return d.moderator ? interpolate(gettext("%(name)s left seat %(seat)s (moderator)"), { name: d.player, seat: d.seat + 1 }) : interpolate(gettext("%(name)s left seat %(seat)s"), { name: d.player, seat: d.seat + 1 });
      case "bot_added":
        return interpolate(gettext("a %(level)s bot took seat %(seat)s"), { level: levelWord(d.strategy), seat: d.seat + 1 });
      case "game_started":
        return gettext("the game started");
      case "game_aborted":
        if (d.moderator) return d.reason ? interpolate(gettext("the game was aborted by a moderator: %(reason)s"), { reason: d.reason }) : gettext("the game was aborted by a moderator");
        return d.reason ? interpolate(gettext("the game was aborted by %(name)s: %(reason)s"), { name: d.by, reason: d.reason }) : interpolate(gettext("the game was aborted by %(name)s"), { name: d.by });
      case "seat_resigned":
        return interpolate(gettext("%(name)s resigned; a %(level)s bot plays the seat"), { name: d.player, level: levelWord(d.bot_strategy) });
      case "turn_timed_out":
        return interpolate(gettext("%(name)s's turn clock ran out (%(count)s in a row)"), { name: who, count: d.timeouts_in_row });
      case "seat_handed_to_bot":
        return d.reason === "timeouts" ? interpolate(gettext("a %(level)s bot plays %(name)s's seat after timeouts"), { level: levelWord(d.bot_strategy), name: who }) : interpolate(gettext("a %(level)s bot plays %(name)s's seat"), { level: levelWord(d.bot_strategy), name: who });
      case "seat_returned":
        return interpolate(gettext("%(name)s took the seat back"), { name: d.player });
      case "round_started":
        this.ends = new Map();
        return interpolate(gettext("hand %(round)s dealt: the %(double)s starts, %(count)s tiles in the boneyard"), { round: d.round, double: d.starting_double, count: d.boneyard_size });
      case "spinner_placed":
        (d.arms || []).forEach((end, i) => this.ends.set(end, { arm: i + 1 }));
        return interpolate(gettext("%(name)s placed the spinner %(tile)s"), { name: who, tile: d.tile });
      case "tile_played": {
        const line = interpolate(gettext("%(name)s played %(tile)s %(where)s"), { name: who, tile: d.tile, where: this.where(d.end) });
        const from = this.ends.get(d.end) || {};
        this.ends.delete(d.end);
        for (const end of d.new_ends || []) this.ends.set(end, { arm: from.arm ?? "?" });
        return line;
      }
      case "foot_opened": {
        const arm = this.ends.get((d.toes || [])[0])?.arm ?? "?";
        (d.toes || []).forEach((end, i) => this.ends.set(end, { arm, toe: i + 1, foot: d.double }));
        return interpolate(gettext("the %(double)s opened a chicken foot: three toes first"), { double: d.double });
      }
      case "foot_completed":
        return gettext("the chicken foot is complete: play is free");
      case "spinner_completed":
        return gettext("every arm of the spinner is filled: play is free");
      case "drew":
        return d.for_starting_double ? interpolate(gettext("%(name)s drew a tile, looking for the starting double"), { name: who }) : interpolate(gettext("%(name)s drew a tile"), { name: who });
      case "passed":
        return `${who} ${PASS_REASONS()[d.reason] || gettext("passed")}`; // a name, then the reason (its own message)
      case "round_ended": {
        const how = d.reason === "domino" && d.went_out !== null ? interpolate(gettext("%(name)s went out"), { name: this.nameOf(d.went_out) }) : gettext("blocked");
        const scores = (d.scores || []).map((s, i) => `${this.nameOf(i)} ${s}`).join(", ");
        return interpolate(gettext("hand %(number)s over (%(how)s): %(scores)s"), { number: d.number, how, scores });
      }
      case "match_ended": {
        const names = (d.winners || []).map((s) => this.nameOf(s)).join(gettext(" and "));
        return d.winners?.length > 1 ? interpolate(gettext("the match is over: %(names)s share the win"), { names }) : interpolate(gettext("the match is over: %(names)s wins"), { names });
      }
      default:
        return event.type.replaceAll("_", " ");
    }
  }
}

const MOVE_TYPES = new Set(["tile_played", "drew", "passed", "spinner_placed"]);
const LAYOUT_TYPES = new Set(["round_started", "spinner_placed", "tile_played"]);
const MAJOR_TYPES = new Set(["round_started", "round_ended", "match_ended", "game_started", "seat_resigned"]);

// -- the table ----------------------------------------------------------------------

export function renderTable(root, { gameId }) {
  const id = Number(gameId);
  const called = performance.now();
  const metrics = { tablePaint: null, tableRender: null, moves: [] };
  window.cfMetrics = metrics;

  let game = null; // the Game drawn
  let selected = null; // the picked tile
  let busy = false;
  let confirmingResign = false;
  let closed = false;
  let stream = null;
  let refreshTimer = null;
  let refreshing = false;
  let refreshAgain = false;
  let lastRefreshAt = -Infinity;
  const logged = new Set();
  const roundEvents = []; // this round's layout events, for the board ahead of the next GET
  const fromStream = new Set();
  let repeats = 0; // events the stream sent twice (ignored)
  let eventBoardSeq = 0; // the seq of the board drawn from events (0: drawn from the state)
  const describer = new EventDescriber((n) => seatLabel(game, n));
  let openedSeq = null; // the seq of the first state drawn: events up to it are history
  let held = null; // a hand just over, held on screen until "Next hand": {event, layout, lastTile}
  const heldRounds = new Set(); // the hands whose end was held once (never held again)
  let roundsAtOpen = null; // how many hands had ended when the page opened (those are history)
  let fitBoard = true; // the compact board (small screens): the whole board fits its box

  // -- skeleton
  const connection = el("p", { class: "cf-connection", "data-testid": "table-connection", role: "status", "data-state": "connecting" }, gettext("connecting..."));
  const alertBox = el("div", { class: "cf-alert", "data-testid": "table-alert", role: "alert" });
  const title = el("h1", { class: "cf-table-title" }, interpolate(gettext("Game %(id)s"), { id }));
  const info = el("p", { class: "cf-table-info", "data-testid": "table-info" });
  const seatsList = el("ol", { class: "cf-seats", "data-testid": "seats", "aria-label": gettext("Players") });
  const boardBox = el("div", { class: "cf-board-area", "data-testid": "board-area" });
  const banner = el("p", { class: "cf-turn-banner", "data-testid": "turn-banner", "aria-live": "polite" });
  const handBox = el("div", { class: "cf-hand", "data-testid": "hand", role: "group", "aria-label": gettext("Your hand"), tabindex: "-1" });
  const choices = el("div", { class: "cf-end-choices", "data-testid": "end-choices", role: "group", "aria-label": gettext("Where to play") });
  const actions = el("div", { class: "cf-actions", "data-testid": "actions" });
  const returnBox = el("div", { class: "cf-return", "data-testid": "return-box", hidden: true });
  const mine = el("section", { class: "cf-mine", "aria-label": gettext("Your move"), hidden: true }, banner, returnBox, handBox, choices, actions);
  const handOver = el("section", { class: "cf-hand-over", "data-testid": "hand-over", "aria-labelledby": "cf-hand-over-title", hidden: true });
  const chat = mountChat({ gameId: id });
  const zoomButton = el("button", { type: "button", class: "cf-board-zoom cf-subtle", "data-testid": "board-zoom", "aria-pressed": "false" }, gettext("Zoom in"));
  zoomButton.addEventListener("click", () => {
    fitBoard = !fitBoard;
    zoomButton.setAttribute("aria-pressed", String(!fitBoard));
    zoomButton.textContent = fitBoard ? gettext("Zoom in") : gettext("Fit the board");
    if (game) draw();
  });
  const scoreboard = el("table", { class: "cf-scoreboard", "data-testid": "scoreboard" });
  const result = el("div", { class: "cf-result", "data-testid": "result", hidden: true });
  const logList = el("ol", { class: "cf-log", "data-testid": "move-log", "aria-label": gettext("Move log") });
  const logBox = el("div", { class: "cf-log-box", tabindex: "0", "aria-label": gettext("Move log, oldest first") }, logList);
  const links = el("p", { class: "cf-table-links" }, el("a", { href: "/", "data-link": "" }, gettext("Lobby")), " · ", el("a", { href: "/rules/", "data-link": "" }, gettext("How to play")), " · ", reportButton({ game: id }, { label: gettext("Report this game"), compact: true }));

  const section = el(
    "section",
    { class: "cf-table", id: "table", "data-testid": "table", "data-game": id, "data-status": "loading", "data-repeats": "0", "aria-labelledby": "cf-table-title" },
    el("header", { class: "cf-table-head" }, title, info, connection),
    alertBox,
    el("div", { class: "cf-table-main" },
      el("div", { class: "cf-table-play" }, el("h2", { class: "cf-visually-hidden" }, gettext("Board")), zoomButton, boardBox, handOver, mine),
      el("aside", { class: "cf-table-side" },
        el("h2", {}, gettext("Players")), seatsList,
        el("h2", {}, gettext("Scores")), el("div", { class: "cf-scoreboard-box" }, scoreboard), result,
        el("h2", {}, gettext("Moves")), logBox, chat.element, links)),
  );
  title.id = "cf-table-title";
  root.replaceChildren(section);

  // -- drawing
  function legalMoves() {
    const you = game?.you;
    if (!you || !you.your_turn || game.game.status !== "running") return [];
    return you.legal_moves || [];
  }

  function endsForTile(tile) {
    return legalMoves().filter((m) => m.type === "play" && m.tile === tile).map((m) => m.end);
  }

  function endLabels() {
    const layout = game?.state?.layout;
    if (!layout) return new Map();
    try {
      return describeEnds(layout);
    } catch (err) {
      return new Map();
    }
  }

  function labelOf(labels, end) {
    return labels.get(end)?.label || interpolate(gettext("end %(end)s"), { end });
  }

  function draw() {
    const g = game;
    const summary = g.game;
    const state = g.state;
    const you = g.you;
    const focusKey = rememberFocus();
    section.dataset.seq = summary.seq;
    section.dataset.status = summary.status;
    section.dataset.role = you ? "player" : "spectator";
    section.dataset.yourTurn = String(Boolean(you?.your_turn) && summary.status === "running");
    section.dataset.busy = String(busy);
    section.dataset.phase = state?.round?.phase || "";
    section.dataset.round = state?.round?.number ?? "";
    if (connection.dataset.state === "closed" && summary.status === "finished") connection.textContent = gettext("match over");
    const myTurn = Boolean(you?.your_turn) && summary.status === "running";
    const heading = summary.status === "finished" ? interpolate(gettext("Game %(id)s (over)"), { id }) : interpolate(gettext("Game %(id)s"), { id });
    setTitle(myTurn ? interpolate(gettext("▶ Your turn · %(title)s"), { title: heading }) : heading);

    drawInfo(g);
    drawSeats(g);
    const labels = endLabels();
    drawBoardArea(g, labels);
    drawHandOver(g);
    drawMine(g, labels);
    drawScores(g);
    restoreFocus(focusKey);
  }

  function drawInfo(g) {
    const s = g.state;
    const r = g.game.ruleset;
    const parts = [interpolate(gettext("double-%(max)s"), { max: r.set_max }), interpolate(gettext("%(count)s players"), { count: r.players })];
    if (g.game.practice) parts.push(gettext("practice"));
    if (g.game.status === "open") parts.push(gettext("waiting for the start"));
    if (g.game.status === "aborted") parts.push(g.game.abort_reason ? interpolate(gettext("aborted: %(reason)s"), { reason: g.game.abort_reason }) : gettext("aborted"));
    if (s?.round) {
      parts.push(interpolate(gettext("hand %(number)s of %(of)s (%(double)s)"), { number: s.round.number, of: s.round.of, double: s.round.starting_double }));
      if (g.game.status === "running") {
        if (s.round.phase === "spinner") parts.push(gettext("fill the spinner's arms first"));
        if (s.round.phase === "foot") parts.push(gettext("chicken foot open: toes first"));
      }
      parts.push(interpolate(gettext("boneyard %(count)s"), { count: s.boneyard_size }));
    }
    if (g.game.status === "finished") parts.push(gettext("finished"));
    info.textContent = parts.join(" · ");
  }

  function drawSeats(g) {
    const s = g.state;
    const items = g.game.seats.map((seat) => {
      const n = seat.number;
      const turn = g.game.status === "running" && g.game.turn_seat === n;
      const badges = [];
      if (seat.player && seat.bot_strategy) badges.push(el("span", { class: "cf-badge cf-badge-bot" }, interpolate(gettext("a %(level)s bot plays"), { level: levelWord(seat.bot_strategy) })));
      else if (seat.is_bot) badges.push(el("span", { class: "cf-badge cf-badge-bot", title: interpolate(gettext("server bot: %(level)s"), { level: levelWord(seat.bot_strategy) }) }, interpolate(gettext("bot · %(level)s"), { level: levelWord(seat.bot_strategy) })));
      if (seat.resigned) badges.push(el("span", { class: "cf-badge" }, gettext("resigned")));
      if (g.you && g.you.seat === n) badges.push(el("span", { class: "cf-badge cf-badge-you" }, gettext("you")));
      if (g.game.result?.winners?.includes(n)) badges.push(el("span", { class: "cf-badge cf-badge-winner" }, gettext("★ winner")));
      const size = s?.hand_sizes?.[n];
      const clock = turn && g.game.turn_deadline ? clockElement(g.game.turn_deadline, "turn-clock") : null;
      return el(
        "li",
        { class: `cf-seat${turn ? " cf-seat-turn" : ""}`, "data-seat": n, "data-turn": String(turn), "data-bot": String(Boolean(seat.is_bot)), "aria-current": turn ? "true" : null },
        el("span", { class: "cf-seat-turn-mark", "aria-hidden": "true" }, turn ? "▶" : ""),
        el("span", { class: "cf-seat-name" }, seatLabel(g, n)),
        ...badges,
        size !== undefined ? el("span", { class: "cf-seat-tiles", "data-testid": "hand-size" }, interpolate(ngettext("%(count)s tile", "%(count)s tiles", size), { count: size })) : null,
        s ? el("span", { class: "cf-seat-total" }, interpolate(gettext("%(points)s pts"), { points: s.totals[n] })) : null,
        turn ? el("span", { class: "cf-seat-to-play" }, gettext("to play")) : null,
        seat.player && !seat.player.is_bot && !(g.you && g.you.seat === n) && api.currentUser()
          ? reportButton({ account: seat.player.username }, { compact: true, label: gettext("Report") })
          : null,
        clock,
      );
    });
    seatsList.replaceChildren(...items);
  }

  /** Small screens draw the board to fit its box (no sideways scrolling), unless zoomed in. */
  function boardScale() {
    const small = window.matchMedia("(max-width: 899px), (max-height: 820px)").matches;
    section.dataset.compact = String(small && fitBoard);
    return small && fitBoard ? { minScale: 0 } : {};
  }

  function drawBoardArea(g, labels) {
    if (held) {
      drawBoard(boardBox, held.layout, { lastTile: held.lastTile, playableEnds: new Set(), ...boardScale() });
      return;
    }
    if (eventBoardSeq > g.game.seq) {
      drawBoardFromEvents();
      return;
    }
    eventBoardSeq = 0;
    const layout = g.state?.layout;
    if (!layout) {
      boardBox.replaceChildren(el("p", { class: "cf-board-empty" }, g.game.status === "open" ? gettext("The game has not started yet.") : gettext("No tiles on the table.")));
      return;
    }
    const plays = legalMoves().filter((m) => m.type === "play");
    const options = { arms: g.state.ruleset.spinner_arms, lastTile: lastTilePlayed(g.state), ...boardScale() };
    if (selected) {
      // the picked tile's ends: targets and buttons ("play 6-4 on the 4 end of arm 2")
      const forTile = new Set(endsForTile(selected));
      Object.assign(options, {
        playableEnds: forTile,
        highlightEnds: forTile,
        onEnd: (end) => {
          if (selected && forTile.has(end)) play(selected, end, performance.now());
        },
        endLabel: (end) => interpolate(gettext("play %(tile)s on %(where)s"), { tile: selected, where: labelOf(labels, end) }),
      });
    } else if (plays.length) {
      // my turn: every end one of my tiles fits is a target; activating one plays
      // there if a single tile fits, else picks the first that does
      const fits = new Map();
      for (const m of plays) fits.set(m.end, [...(fits.get(m.end) || []), m.tile]);
      Object.assign(options, {
        playableEnds: new Set(fits.keys()),
        onEnd: (end) => {
          const tiles = [...new Set(fits.get(end) || [])];
          if (tiles.length === 1) play(tiles[0], end, performance.now());
          else if (tiles.length > 1) {
            showAlert(interpolate(gettext("%(tiles)s fit %(where)s: pick the tile first."), { tiles: tiles.join(", "), where: labelOf(labels, end) }));
            handBox.querySelector(`button[data-tile="${tiles[0]}"]`)?.focus();
          }
        },
        endLabel: (end) => {
          const tiles = [...new Set(fits.get(end) || [])];
          return tiles.length === 1 ? interpolate(gettext("play %(tile)s on %(where)s"), { tile: tiles[0], where: labelOf(labels, end) }) : interpolate(gettext("%(where)s: %(tiles)s fit"), { where: labelOf(labels, end), tiles: tiles.join(gettext(" or ")) });
        },
      });
    }
    drawBoard(boardBox, layout, options);
  }

  /** The board as the events say it is now (a move seen on the stream before the GET that
   * follows it answers): no targets, since my legal moves there are not known yet. */
  function drawBoardFromEvents() {
    if (held) return;
    const built = layoutFromEvents(roundEvents);
    if (!built.layout) return;
    drawBoard(boardBox, built.layout, { arms: game?.state?.ruleset?.spinner_arms, lastTile: built.lastTile?.tile, playableEnds: new Set(), ...boardScale() });
  }

  function lastTilePlayed(state) {
    const history = state?.history || [];
    for (let i = history.length - 1; i >= 0; i -= 1) {
      if (history[i].type === "tile_played" || history[i].type === "spinner_placed") return history[i].tile;
    }
    return null;
  }

  function drawMine(g, labels) {
    const you = g.you;
    if (!you || held) {
      mine.hidden = true;
      return;
    }
    mine.hidden = false;
    const running = g.game.status === "running";
    drawReturn(g);
    const legal = legalMoves();
    const playable = new Set(legal.filter((m) => m.type === "play").map((m) => m.tile));
    if (selected && !playable.has(selected)) selected = null;

    // banner
    let text;
    if (!running) text = g.game.status === "finished" ? gettext("The match is over.") : g.game.status === "open" ? gettext("Waiting for the start.") : gettext("The game was aborted.");
    else if (you.resigned) text = gettext("You resigned: a server bot plays your seat.");
    else if (you.your_turn) {
      if (you.drawn_tile) text = interpolate(gettext("Your turn: you drew %(tile)s — play it or pass."), { tile: you.drawn_tile });
      else if (playable.size) text = selected ? interpolate(gettext("Your turn: where does %(tile)s go?"), { tile: selected }) : gettext("Your turn: pick a playable tile.");
      else if (legal.some((m) => m.type === "draw")) text = gettext("Your turn: nothing fits — draw a tile.");
      else text = gettext("Your turn: nothing fits and the boneyard is empty — pass.");
    } else text = interpolate(gettext("Waiting for %(name)s."), { name: seatLabel(g, g.game.turn_seat) });
    const clock = running && you.your_turn && you.turn_deadline ? clockElement(you.turn_deadline, "my-clock") : null;
    banner.replaceChildren(text, clock ? " " : "", clock || "");
    banner.classList.toggle("cf-your-turn", Boolean(running && you.your_turn));

    // hand
    const hand = you.hand || [];
    handBox.replaceChildren(
      ...hand.map((tile) => {
        const ok = playable.has(tile);
        const ends = ok ? endsForTile(tile) : [];
        const label = ok
          ? ends.length === 1
            ? interpolate(gettext("%(tile)s: play on %(where)s"), { tile, where: labelOf(labels, ends[0]) })
            : interpolate(gettext("%(tile)s: playable on %(count)s ends"), { tile, count: ends.length })
          : interpolate(gettext("%(tile)s: cannot be played now"), { tile });
        return el(
          "button",
          {
            type: "button",
            class: `cf-hand-tile${ok ? " cf-playable" : ""}${selected === tile ? " cf-selected" : ""}${you.drawn_tile === tile ? " cf-drawn" : ""}`,
            "data-tile": tile,
            "data-legal": String(ok),
            "aria-pressed": ok ? String(selected === tile) : null,
            "aria-disabled": ok && !busy ? null : "true",
            "aria-label": you.drawn_tile === tile ? interpolate(gettext("%(label)s (just drawn)"), { label }) : label,
            onclick: (event) => pickTile(tile, performance.now(), event),
          },
          tileFace(tile),
          ok ? el("span", { class: "cf-tile-mark", "aria-hidden": "true" }, ends.length === 1 ? "▲" : `▲${ends.length}`) : null,
        );
      }),
    );
    if (!hand.length) handBox.replaceChildren(el("p", { class: "cf-hand-empty" }, running ? gettext("No tiles in hand.") : ""));

    // end choices
    if (selected) {
      const ends = endsForTile(selected);
      choices.replaceChildren(
        el("p", { class: "cf-choices-title" }, interpolate(gettext("Play %(tile)s on:"), { tile: selected })),
        ...ends.map((end) =>
          el("button", { type: "button", class: "cf-end-choice", "data-end": end, "data-tile": selected, disabled: busy, onclick: () => play(selected, end, performance.now()) }, interpolate(gettext("%(tile)s on %(where)s"), { tile: selected, where: labelOf(labels, end) })),
        ),
        el("button", { type: "button", class: "cf-end-cancel", "data-testid": "end-cancel", onclick: () => unpick() }, gettext("Cancel")),
      );
      choices.hidden = false;
    } else {
      choices.replaceChildren();
      choices.hidden = true;
    }

    // actions
    const buttons = [];
    if (legal.some((m) => m.type === "draw")) {
      buttons.push(el("button", { type: "button", class: "cf-action cf-action-main", "data-testid": "draw-button", disabled: busy, onclick: () => submit({ type: "draw" }, performance.now()) }, gettext("Draw a tile")));
    }
    if (legal.some((m) => m.type === "pass")) {
      buttons.push(el("button", { type: "button", class: "cf-action cf-action-main", "data-testid": "pass-button", disabled: busy, onclick: () => submit({ type: "pass" }, performance.now()) }, you.drawn_tile ? interpolate(gettext("Pass (keep %(tile)s)"), { tile: you.drawn_tile }) : gettext("Pass")));
    }
    if (running && !you.resigned) {
      if (confirmingResign) {
        buttons.push(
          el("span", { class: "cf-resign-confirm", role: "group", "aria-label": gettext("Confirm resignation") },
            el("span", {}, gettext("Resign? A server bot plays your seat to the end. ")),
            el("button", { type: "button", class: "cf-action cf-danger", "data-testid": "resign-confirm", onclick: () => resign() }, gettext("Yes, resign")),
            el("button", { type: "button", class: "cf-action", "data-testid": "resign-cancel", onclick: () => { confirmingResign = false; draw(); } }, gettext("Cancel"))),
        );
      } else {
        buttons.push(el("button", { type: "button", class: "cf-action cf-subtle", "data-testid": "resign-button", onclick: () => { confirmingResign = true; draw(); focusTestId("resign-cancel"); } }, gettext("Resign…")));
      }
    }
    actions.replaceChildren(...buttons);
  }

  function drawScores(g) {
    const s = g.state;
    const seats = g.game.seats;
    const names = seats.map((seat) => seatLabel(g, seat.number));
    const head = el("thead", {}, el("tr", {}, el("th", { scope: "col" }, gettext("Hand")), ...names.map((name, n) => el("th", { scope: "col", "data-seat": n }, name))));
    const rows = (s?.rounds || []).map((r) =>
      el("tr", { "data-round": r.number },
        el("th", { scope: "row" }, `${r.number} (${r.starting_double})`, r.went_out === null || r.went_out === undefined ? el("span", { class: "cf-blocked" }, gettext(" blocked")) : null),
        ...r.scores.map((score, n) => el("td", { "data-seat": n, class: r.went_out === n ? "cf-went-out" : null }, r.went_out === n ? `${score} ✓` : String(score)))),
    );
    if (s?.round && s.status === "playing") {
      rows.push(el("tr", { class: "cf-round-current", "data-round": s.round.number }, el("th", { scope: "row" }, `${s.round.number} (${s.round.starting_double})`), ...names.map((_, n) => el("td", { "data-seat": n }, gettext("in play")))));
    }
    const winners = new Set(g.game.result?.winners || []);
    const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, gettext("Total")), ...names.map((_, n) => el("td", { "data-seat": n, class: winners.has(n) ? "cf-winner" : null }, s ? `${s.totals[n]}${winners.has(n) ? " ★" : ""}` : "–"))));
    scoreboard.replaceChildren(el("caption", { class: "cf-visually-hidden" }, gettext("Points per hand (fewest wins)")), head, el("tbody", {}, ...rows), foot);

    const res = g.game.result;
    if (res && g.game.status === "finished") {
      const winnerNames = res.winners.map((n) => names[n]);
      const shared = res.winners.length > 1;
      const lowest = Math.min(...res.totals);
      result.replaceChildren(
        el("p", { class: "cf-result-winners" }, interpolate(shared ? ngettext("%(names)s share the win with %(count)s point.", "%(names)s share the win with %(count)s points.", lowest) : ngettext("%(names)s wins with %(count)s point.", "%(names)s wins with %(count)s points.", lowest), { names: winnerNames.join(gettext(" and ")), count: lowest })),
        el("p", { class: "cf-result-tiebreak" }, interpolate(gettext("Decided by %(rule)s."), { rule: TIE_BREAKS()[res.tie_break] || res.tie_break })),
      );
      result.dataset.winners = res.winners.join(",");
      result.dataset.tieBreak = res.tie_break;
      result.hidden = false;
      if (!links.querySelector("[data-testid=replay-link]")) {
        links.append(" · ", el("a", { href: `/games/${id}/replay/`, "data-link": "", "data-testid": "replay-link" }, gettext("Replay the match")));
      }
    } else {
      result.hidden = true;
    }
  }

  // -- focus kept across redraws (keyboard play)
  function rememberFocus() {
    const active = document.activeElement;
    if (!active || !section.contains(active)) return null;
    if (active.dataset.end && active.closest("[data-testid=end-choices]")) return { end: active.dataset.end };
    if (active.dataset.tile && active.closest("[data-testid=hand]")) return { tile: active.dataset.tile };
    if (active.dataset.testid) return { testid: active.dataset.testid };
    if (active.closest("[data-testid=hand]")) return { hand: true };
    return null;
  }

  function restoreFocus(key) {
    if (!key || section.contains(document.activeElement)) return;
    let target = null;
    if (key.end) target = choices.querySelector(`button[data-end="${key.end}"]`);
    if (key.tile) target = handBox.querySelector(`button[data-tile="${key.tile}"]`);
    if (key.testid) target = section.querySelector(`[data-testid="${key.testid}"]`);
    if (!target && (key.tile || key.end || key.hand)) {
      target = handBox.querySelector("button[data-legal=true]") || handBox.querySelector("button") || handBox;
    }
    if (target) target.focus({ preventScroll: true });
  }

  /** After a move (or "Next hand"), the keyboard is back in the hand: a playable tile if any. */
  function focusHand() {
    if (mine.hidden) return;
    const target = handBox.querySelector("button[data-legal=true]") || handBox.querySelector("button") || handBox;
    target.focus({ preventScroll: true });
  }

  // -- the end of a hand, held on screen until the viewer moves on
  /** Hold the end of the hand `event` (a round_ended Event) with its finished board; false if it was held before. */
  function startHold(event, layout, lastTile) {
    const number = event.data?.number;
    if (heldRounds.has(number)) return false;
    heldRounds.add(number);
    held = { event, layout, lastTile };
    return true;
  }

  function focusNextHand() {
    if (section.contains(document.activeElement) || document.activeElement === document.body) {
      handOver.querySelector("[data-testid=next-hand]")?.focus({ preventScroll: true });
    }
  }

  function holdHand(event, events = roundEvents) {
    const built = layoutFromEvents(events);
    if (!startHold(event, built.layout, built.lastTile ? built.lastTile.tile : null)) return;
    const keyboard = section.contains(document.activeElement) || document.activeElement === document.body;
    if (game) draw();
    if (keyboard) handOver.querySelector("[data-testid=next-hand]")?.focus({ preventScroll: true });
  }

  /** The match's last hand ended in a state that came before its round_ended frame: hold it from the state. */
  function holdFromState(g) {
    const rounds = g.state?.rounds || [];
    if (g.game.status !== "finished" || roundsAtOpen === null || rounds.length <= roundsAtOpen) return false;
    const last = rounds[rounds.length - 1];
    const totals = (last.scores || []).map((_, n) => rounds.reduce((sum, r) => sum + (r.scores?.[n] || 0), 0));
    return startHold({ seq: null, type: "round_ended", data: { ...last, totals } }, g.state.layout, lastTilePlayed(g.state));
  }

  function releaseHand() {
    held = null;
    if (game) draw();
    focusHand();
  }

  function drawHandOver(g) {
    section.dataset.held = String(Boolean(held));
    if (!held) {
      handOver.hidden = true;
      handOver.replaceChildren();
      return;
    }
    const d = held.event.data || {};
    const names = g.game.seats.map((seat) => seatLabel(g, seat.number));
    const how =
      d.reason === "domino" && d.went_out !== null && d.went_out !== undefined
        ? interpolate(gettext("%(name)s went out."), { name: names[d.went_out] })
        : gettext("Blocked: nobody could play.");
    const rows = (d.scores || []).map((score, n) =>
      el(
        "tr",
        { "data-seat": n, class: d.went_out === n ? "cf-went-out" : null },
        el("th", { scope: "row" }, names[n] ?? String(n + 1)),
        el("td", { class: "cf-hand-over-tiles" }, ...((d.hands || [])[n] || []).map((tile) => smallTile(tile))),
        el("td", { "data-testid": "hand-score" }, String(score)),
        el("td", {}, String((d.totals || [])[n] ?? "")),
      ),
    );
    const last = g.game.status === "finished" && !(g.state?.round && g.state.round.number > d.number);
    const next = el(
      "button",
      { type: "button", class: "cf-action cf-action-main", "data-testid": "next-hand", onclick: () => releaseHand() },
      last ? gettext("See the result") : gettext("Next hand"),
    );
    // The next hand is dealt while this one's end is held: when it opens with the viewer's
    // turn, its clock already runs - said here, where the viewer is reading.
    const yourTurnNext = !last && g.game.status === "running" && Boolean(g.you?.your_turn) && Boolean(g.you?.turn_deadline) && (g.state?.round?.number ?? 0) > d.number;
    const turnLine = yourTurnNext
      ? el("p", { class: "cf-hand-over-turn", "data-testid": "hand-over-turn" }, gettext("Your turn in the next hand, its clock runs:"), " ", clockElement(g.you.turn_deadline, null))
      : null;
    handOver.replaceChildren(
      el("div", { class: "cf-hand-over-head" }, el("h2", { id: "cf-hand-over-title" }, interpolate(gettext("Hand %(number)s is over"), { number: d.number })), el("p", {}, how), next),
      ...(turnLine ? [turnLine] : []),
      el(
        "table",
        { class: "cf-hand-over-scores" },
        el("caption", { class: "cf-visually-hidden" }, gettext("Points of this hand (fewest wins)")),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, gettext("Player")), el("th", { scope: "col" }, gettext("Tiles left")), el("th", { scope: "col" }, gettext("Points")), el("th", { scope: "col" }, gettext("Total")))),
        el("tbody", {}, ...rows),
      ),
    );
    handOver.dataset.round = d.number;
    const shown = handOver.hidden;
    handOver.hidden = false;
    section.dataset.held = String(Boolean(held));
    if (shown) revealBoard();
  }

  /** A hand's end just came up: the finished board is brought into view if the page was
   *  scrolled past it (a keyboard player who tabbed on to the chat, a reader of the log). */
  function revealBoard() {
    const top = boardBox.getBoundingClientRect().top;
    if (top < 0) window.scrollBy({ top: top - 8, behavior: "instant" });
  }

  // -- a seat a bot keeps after timeouts: take it back
  function drawReturn(g) {
    const you = g.you;
    const seat = g.game.seats.find((s) => s.number === you.seat);
    const away = g.game.status === "running" && !you.resigned && seat && seat.player && seat.bot_strategy;
    if (!away) {
      returnBox.hidden = true;
      returnBox.replaceChildren();
      return;
    }
    // Drawn once while away (the table redraws at every event and clock tick: a button
    // replaced under the pointer would lose the press).
    if (!returnBox.hidden && returnBox.dataset.level === seat.bot_strategy) return;
    const button = el("button", { type: "button", class: "cf-action cf-action-main", "data-testid": "return-button", onclick: () => takeSeatBack(button) }, gettext("Take your seat back"));
    returnBox.replaceChildren(el("p", {}, interpolate(gettext("A %(level)s bot plays your seat while you are away."), { level: levelWord(seat.bot_strategy) })), button);
    returnBox.dataset.level = seat.bot_strategy;
    returnBox.hidden = false;
  }

  async function takeSeatBack(button) {
    if (busy) return;
    button.disabled = true;
    try {
      const answer = await api.returnToSeat(id);
      if (answer && answer.game) accept(answer);
      else scheduleRefresh();
      focusHand();
    } catch (err) {
      showAlert(err?.message || gettext("Could not take the seat back."));
      button.disabled = false;
    }
  }

  function focusTestId(testid) {
    section.querySelector(`[data-testid="${testid}"]`)?.focus();
  }

  // -- state in
  function accept(g) {
    if (closed || !g || !g.game) return false;
    if (game && g.game.seq < game.game.seq) return false;
    if (game && g.game.seq === game.game.seq && JSON.stringify(g) === JSON.stringify(game)) return false; // nothing new: the DOM stays
    if (game && g.game.seq !== game.game.seq) {
      selected = null;
      confirmingResign = false;
    }
    const first = game === null;
    if (first) {
      openedSeq = g.game.seq;
      roundsAtOpen = (g.state?.rounds || []).length;
    }
    game = g;
    chat.update(g);
    const holding = !first && holdFromState(g);
    draw();
    if (holding) focusNextHand();
    if (first) {
      requestAnimationFrame(() => {
        metrics.tablePaint = performance.now();
        metrics.tableRender = metrics.tablePaint - called;
      });
    }
    return true;
  }

  function scheduleRefresh() {
    if (closed) return;
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    if (refreshTimer !== null) return;
    const gap = game && !game.you ? SPECTATOR_REFRESH_MS : PLAYER_REFRESH_MS;
    const wait = Math.max(PLAYER_REFRESH_MS, lastRefreshAt + gap - performance.now());
    refreshTimer = setTimeout(refresh, wait);
  }

  async function refresh() {
    refreshTimer = null;
    refreshing = true;
    lastRefreshAt = performance.now();
    try {
      accept(await api.getGame(id));
    } catch (err) {
      if (closed) return;
      if (err?.code === "rate_limited") {
        const seconds = Number(err.problem?.retry_after) || 1;
        setTimeout(scheduleRefresh, seconds * 1000);
      } else if (err?.status === 404 && !game) {
        showAlert(err.message || gettext("There is no such game."));
      } // a network error: the stream's snapshot on reconnection brings the state
    } finally {
      refreshing = false;
      if (refreshAgain && !closed) {
        refreshAgain = false;
        scheduleRefresh();
      }
    }
  }

  function logEvent(event, { streamed = true } = {}) {
    const seq = Number(event.seq);
    if (!Number.isFinite(seq)) return;
    if (streamed) {
      if (fromStream.has(seq)) {
        repeats += 1; // a resumed stream sends none: counted for the tests
        section.dataset.repeats = String(repeats);
      }
      fromStream.add(seq);
    }
    if (logged.has(seq)) return;
    logged.add(seq);
    const line = describer.describe(event);
    const move = MOVE_TYPES.has(event.type);
    const item = el("li", { class: `cf-log-entry${move ? " cf-log-move" : MAJOR_TYPES.has(event.type) ? " cf-log-major" : " cf-log-minor"}`, "data-seq": seq, "data-type": event.type, "data-move": move ? "true" : null }, line);
    const atBottom = logBox.scrollHeight - logBox.scrollTop - logBox.clientHeight < 40;
    const last = logList.lastElementChild;
    if (!last || Number(last.dataset.seq) < seq) logList.append(item);
    else {
      // out of order (should not happen): keep the list sorted by seq
      const after = [...logList.children].find((li) => Number(li.dataset.seq) > seq);
      logList.insertBefore(item, after || null);
    }
    if (atBottom) logBox.scrollTop = logBox.scrollHeight;
  }

  function onFrame(type, data) {
    if (closed) return;
    let body = data;
    if (typeof data === "string") {
      try {
        body = JSON.parse(data);
      } catch (err) {
        return;
      }
    }
    if (type === "snapshot") {
      accept(body);
      return;
    }
    if (type === "chat_message" || type === "chat_message_removed") {
      chat.onFrame(type, body);
      return;
    }
    if (type === "end") {
      if (!game || game.game.status !== "finished" || (body && body.seq > game.game.seq)) scheduleRefresh();
      return;
    }
    if (body && body.seq !== undefined && body.type) {
      const fresh = !fromStream.has(Number(body.seq)); // first time on the stream (the log may have it from a move's answer)
      logEvent(body);
      if (body.type === "round_ended" && fresh && game && openedSeq !== null && body.seq > openedSeq) holdHand(body);
      if (fresh && LAYOUT_TYPES.has(body.type)) {
        if (body.type === "round_started") roundEvents.length = 0;
        roundEvents.push(body);
        if (game && body.seq > game.game.seq && body.type !== "round_started") {
          eventBoardSeq = body.seq;
          drawBoardFromEvents();
        }
      }
      if (!game || body.seq > game.game.seq) scheduleRefresh();
    }
  }

  function onStatus(status) {
    if (closed) return;
    const text = { open: gettext("live"), reconnecting: gettext("reconnecting..."), closed: game?.game?.status === "finished" ? gettext("match over") : gettext("closed"), connecting: gettext("connecting...") }[status] || status;
    connection.textContent = text;
    connection.dataset.state = status;
    section.dataset.connection = status;
  }

  // -- moves out
  function showAlert(message) {
    alertBox.replaceChildren(el("p", {}, message));
    alertBox.hidden = false;
  }

  function clearAlert() {
    alertBox.replaceChildren();
    alertBox.hidden = true;
  }

  function pickTile(tile, t0) {
    if (busy || !game) return;
    const ends = endsForTile(tile);
    if (!ends.length) {
      showAlert(interpolate(gettext("%(tile)s cannot be played now."), { tile }));
      return;
    }
    clearAlert();
    if (ends.length === 1) {
      play(tile, ends[0], t0);
      return;
    }
    selected = selected === tile ? null : tile;
    draw();
    if (selected) choices.querySelector("button[data-end]")?.focus();
  }

  function unpick() {
    selected = null;
    draw();
    handBox.querySelector("button[data-legal=true]")?.focus();
  }

  function play(tile, end, t0) {
    submit({ type: "play", tile, end }, t0);
  }

  async function submit(move, t0) {
    if (busy || !game || closed) return;
    busy = true;
    clearAlert();
    const expected = game.game.seq;
    section.dataset.busy = "true";
    for (const button of section.querySelectorAll("[data-testid=hand] button, [data-testid=end-choices] button, [data-testid=actions] button")) {
      button.setAttribute("aria-disabled", "true");
    }
    try {
      const answer = await api.submitMove(id, { ...move, expected_seq: expected });
      busy = false;
      selected = null;
      // The move's events go in the log at once when the log has all before them (its
      // lines follow the layout event by event); the stream's copies are then skipped.
      const events = answer.events || [];
      if (events.length && logged.has(Number(events[0].seq) - 1)) {
        for (const event of events) logEvent(event, { streamed: false });
      }
      const ended = events.find((e) => e.type === "round_ended");
      if (ended) {
        const played = events.filter((e) => LAYOUT_TYPES.has(e.type) && e.seq < ended.seq);
        holdHand(ended, [...roundEvents, ...played]);
      }
      if (!accept(answer.game)) draw();
      if (held) handOver.querySelector("[data-testid=next-hand]")?.focus({ preventScroll: true });
      else focusHand();
      requestAnimationFrame(() => metrics.moves.push(performance.now() - t0));
    } catch (err) {
      busy = false;
      if (closed) return;
      showAlert(err?.message || gettext("The move could not be sent."));
      if (err?.code === "stale_seq" && err.problem?.game) accept(err.problem.game);
      else scheduleRefresh();
      draw();
    }
  }

  async function resign() {
    if (busy || !game) return;
    busy = true;
    clearAlert();
    try {
      const answer = await api.resign(id);
      busy = false;
      confirmingResign = false;
      accept(answer);
    } catch (err) {
      busy = false;
      confirmingResign = false;
      showAlert(err?.message || gettext("Could not resign."));
      draw();
    }
  }

  function onKey(event) {
    if (event.key === "Escape" && (selected || confirmingResign)) {
      confirmingResign = false;
      unpick();
    }
  }
  section.addEventListener("keydown", onKey);

  // -- clocks
  const ticker = setInterval(() => {
    for (const node of section.querySelectorAll("[data-deadline]")) node.textContent = clockText(node.dataset.deadline);
  }, CLOCK_TICK_MS);

  // -- go
  clearAlert();
  stream = openStream(`/api/v1/games/${id}/stream/`, {
    onFrame,
    onStatus,
    onError: (err) => showAlert(err?.message || gettext("The game's live updates stopped.")),
    lastEventId: "0",
  });
  refresh(); // in parallel with the stream's snapshot: whichever comes first paints

  return function cleanup() {
    closed = true;
    chat.destroy();
    clearInterval(ticker);
    if (refreshTimer !== null) clearTimeout(refreshTimer);
    section.removeEventListener("keydown", onKey);
    try {
      stream?.close();
    } catch (err) {
      // already closed
    }
  };
}
