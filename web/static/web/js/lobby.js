// The lobby (/): my games (live), creating a table, and the tables of the server
// (open, in play, finished) with filters.
//
// Requests: GET /games/ (?status=, ?mine=true, ?limit=, ?offset=), GET /bots/,
// POST /games/, POST /games/{id}/join|leave|start|abort|bots/, and the account
// stream GET /me/stream/ (signed in, js/accountstream.js): its snapshot and
// game_started / your_turn / game_over frames refresh "my games" at once, and its
// table_open / table_closed frames (the lobby's open tables: a new table, a seat
// taken or left, a start) the open tables. A guest has no account stream: the
// lists are re-read every GUEST_REFRESH_MS while the page is visible.
// Quick play (js/quickplay.js) and the challenge form (js/challenges.js) are panels
// of the lobby.
//
// Test hooks:
//   #my-games [data-testid=my-games] (signed in), its list [data-testid=my-games-list],
//     #account-stream-status [data-testid=account-stream] (data-state open|reconnecting|closed,
//     data-frames: how many frames the account stream brought)
//   #create-form: #create-set_max, #create-players, #create-hand_size, #create-spinner_arms,
//     #create-rounds, #create-double_blank_points, #create-turn_time_limit,
//     #create-bot_strategy, #create-bot_delay_ms, #create-rated, #create-sit, #create-bots
//     (bots to seat at once), #create-submit
//   #tables: tabs [data-testid=tab-open|tab-running|tab-finished] (role=tab, aria-selected),
//     filters #filter-mine, #filter-set, #filter-free; list #game-list [data-testid=game-list];
//     #more-games ("Show more")
//   a table: li[data-testid=game-card][data-game=<id>][data-status=<status>]
//     (data-mine="true" if I sit there or created it; data-your-turn="true"), with
//     [data-testid=game-link] (/games/<id>/), [data-testid=replay-link] (finished),
//     [data-testid=seat][data-seat=<n>], [data-testid=your-turn], [data-testid=rated]
//     ("Rated" / "Casual"), player names as [data-testid=player-link] (their profiles),
//     buttons [data-action=join|leave|start|abort|add-bot|abort-confirm|abort-cancel],
//     select [data-testid=bot-strategy], input [data-testid=abort-reason]

import * as api from "./api.js";
import { onAccountFrame, onAccountStatus } from "./accountstream.js";
import { challengePanel } from "./challenges.js";
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { botLevelName, playerLink, strongestLevel } from "./players.js";
import { quickPlayPanel } from "./quickplay.js";
import { busy, byStrength, h, LEVEL_ORDER, levelWord, notify, replaceChildren, setTitle, showError, timeElement } from "./ui.js";

const GUEST_REFRESH_MS = 15000;
const PAGE = 20;
const MY_GAMES = 12;
const SET_SIZES = [6, 9, 12, 15, 18];
const MAX_PLAYERS = { 6: 6, 9: 8, 12: 10, 15: 12, 18: 14 };
const TABS = [
  { key: "open", label: () => gettext("Open tables") },
  { key: "running", label: () => gettext("In play") },
  { key: "finished", label: () => gettext("Finished") },
];
const FALLBACK_BOTS = LEVEL_ORDER.map((name) => ({ name, description: "", strength: null }));

function tileCount(setMax) {
  return ((setMax + 1) * (setMax + 2)) / 2;
}

function statusWord(status) {
  const words = { open: gettext("Open"), running: gettext("In play"), finished: gettext("Finished"), aborted: gettext("Aborted") };
  return words[status] || status;
}

function setName(n) {
  return interpolate(gettext("Double-%(n)s"), { n: String(n) });
}

function rulesetWords(ruleset) {
  const hands = ruleset.rounds || ruleset.set_max + 1;
  const parts = [setName(ruleset.set_max), interpolate(ngettext("%(count)s player", "%(count)s players", ruleset.players), { count: ruleset.players })];
  parts.push(interpolate(ngettext("%(count)s hand", "%(count)s hands", hands), { count: hands }));
  if (ruleset.spinner_arms !== 4) parts.push(interpolate(gettext("%(count)s spinner arms"), { count: ruleset.spinner_arms }));
  if (ruleset.hand_size) parts.push(interpolate(gettext("%(count)s tiles dealt"), { count: ruleset.hand_size }));
  if (ruleset.double_blank_points !== 50) parts.push(interpolate(gettext("double-blank %(points)s"), { points: ruleset.double_blank_points }));
  return parts.join(" · ");
}

function mySeat(game, account) {
  if (!account) return null;
  return game.seats.find((s) => s.player && s.player.username === account.username) || null;
}

export function renderLobby(root) {
  setTitle(gettext("Lobby"));
  const account = api.currentUser();
  const state = {
    tab: "open",
    mine: false,
    setMax: "",
    free: false,
    offset: 0,
    games: [],
    count: 0,
    myGames: [],
    live: new Map(), // game id -> AccountGame, from the account stream
    bots: FALLBACK_BOTS,
    abortOpen: null, // the game whose abort form is open
    drawn: { list: "", mine: "" },
  };
  const timers = [];
  const unsubscribe = [];
  let stopped = false;

  // --- the parts of the page ---------------------------------------------------------

  const streamStatus = h(
    "span",
    { id: "account-stream-status", class: "live-status", role: "status", "data-testid": "account-stream", "data-state": "connecting" },
    gettext("Connecting…"),
  );
  const myList = h("ul", { class: "game-list", "data-testid": "my-games-list", "aria-live": "polite" });
  const mySection = account
    ? h(
        "section",
        { id: "my-games", class: "panel", "data-testid": "my-games", "aria-labelledby": "my-games-title" },
        h("div", { class: "panel-head" }, h("h2", { id: "my-games-title" }, gettext("My games")), streamStatus),
        myList,
      )
    : h(
        "section",
        { id: "welcome", class: "panel welcome" },
        h("h2", {}, gettext("Play Chicken Foot")),
        h("p", {}, gettext("Watch any table as a guest. Log in or create an account to open a table, take a seat and play against people or the server's bots.")),
        h(
          "p",
          { class: "actions" },
          h("a", { class: "button primary", href: "/login/", "data-link": "" }, gettext("Log in")),
          h("a", { class: "button ghost", href: "/register/", "data-link": "" }, gettext("Create an account")),
        ),
      );

  const createSection = account ? createForm() : null;
  const quick = account ? quickPlayPanel() : null;
  const challengeSlot = h("div", { id: "challenge-slot" });

  const list = h("ul", { id: "game-list", class: "game-list", "data-testid": "game-list", "aria-live": "polite" });
  const countLine = h("p", { class: "muted count", "data-testid": "game-count" });
  const more = h("button", { type: "button", id: "more-games", class: "ghost", hidden: true, onclick: () => loadList({ more: true }) }, gettext("Show more"));
  const tabButtons = TABS.map((tab) =>
    h(
      "button",
      {
        type: "button",
        role: "tab",
        id: `tab-${tab.key}`,
        "data-testid": `tab-${tab.key}`,
        "aria-controls": "game-list",
        "aria-selected": String(tab.key === state.tab),
        tabindex: tab.key === state.tab ? "0" : "-1",
        onclick: () => selectTab(tab.key),
        onkeydown: (event) => {
          const index = TABS.findIndex((t) => t.key === tab.key);
          const step = { ArrowRight: 1, ArrowLeft: -1, Home: -index, End: TABS.length - 1 - index }[event.key];
          if (step === undefined) return;
          event.preventDefault();
          const next = TABS[(index + step + TABS.length) % TABS.length];
          selectTab(next.key);
          document.getElementById(`tab-${next.key}`).focus();
        },
      },
      tab.label(),
    ),
  );
  const filters = h(
    "form",
    { id: "filters", class: "filters", "aria-label": gettext("Filter the tables"), onsubmit: (e) => e.preventDefault() },
    account
      ? h(
          "div",
          { class: "field-check inline" },
          h("input", { type: "checkbox", id: "filter-mine", onchange: (e) => setFilter({ mine: e.target.checked }) }),
          h("label", { for: "filter-mine" }, gettext("Only mine")),
        )
      : null,
    h(
      "div",
      { class: "inline" },
      h("label", { for: "filter-set" }, gettext("Set")),
      h(
        "select",
        { id: "filter-set", onchange: (e) => setFilter({ setMax: e.target.value }) },
        h("option", { value: "" }, gettext("Any")),
        SET_SIZES.map((n) => h("option", { value: String(n) }, setName(n))),
      ),
    ),
    h(
      "div",
      { class: "field-check inline", id: "filter-free-wrap" },
      h("input", { type: "checkbox", id: "filter-free", onchange: (e) => setFilter({ free: e.target.checked }) }),
      h("label", { for: "filter-free" }, gettext("With a free seat")),
    ),
  );
  const tablesSection = h(
    "section",
    { id: "tables", class: "panel", "aria-labelledby": "tables-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "tables-title" }, gettext("Tables")), countLine),
    h("div", { class: "tabs", role: "tablist", "aria-label": gettext("Which tables") }, tabButtons),
    filters,
    list,
    h("div", { class: "actions center" }, more),
  );

  replaceChildren(
    root,
    h("h1", { class: "visually-hidden" }, gettext("Lobby")),
    h(
      "div",
      { class: "lobby" },
      h("div", { class: "lobby-side" }, quick ? quick.element : null, mySection, account ? challengeSlot : null, createSection),
      h("div", { class: "lobby-main" }, tablesSection),
    ),
  );

  // --- create a table ----------------------------------------------------------------

  function numberField(name, label, attrs, hint) {
    const id = `create-${name}`;
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      h("input", { id, name, type: "number", inputmode: "numeric", "aria-describedby": hint ? `${id}-hint` : null, ...attrs }),
      hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
    );
  }

  function selectField(name, label, options, value, hint, attrs = {}) {
    const id = `create-${name}`;
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      h("select", { id, name, value: String(value), "aria-describedby": hint ? `${id}-hint` : null, ...attrs }, options.map(([v, text]) => h("option", { value: String(v) }, text))),
      hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
    );
  }

  function createForm() {
    const form = h(
      "form",
      { id: "create-form", class: "form", novalidate: true },
      h(
        "div",
        { class: "grid-2" },
        selectField("set_max", gettext("Set"), SET_SIZES.map((n) => [n, setName(n)]), 9, null, { title: gettext("Double-6: 28 tiles; double-9: 55; double-12: 91; double-15: 136; double-18: 190") }),
        numberField("players", gettext("Players"), { min: 2, max: 8, value: 4, required: true }),
        numberField("rounds", gettext("Hands"), { min: 1, max: 10, placeholder: gettext("all") }, gettext("Empty: one per double (all).")),
        numberField("hand_size", gettext("Tiles dealt"), { min: 1, placeholder: gettext("standard") }, gettext("Empty: the rules' table.")),
        selectField("spinner_arms", gettext("Spinner arms"), [[4, "4"], [6, "6"]], 4),
        numberField("double_blank_points", gettext("Double-blank points"), { min: 0, max: 100, value: 50 }),
        numberField("turn_time_limit", gettext("Seconds per turn"), { min: 5, max: 86400, value: 60, placeholder: gettext("no limit") }, gettext("A bot moves for a player who runs out. Empty: no clock (for friends who wait for each other).")),
        numberField("bot_delay_ms", gettext("Bot pause (ms)"), { min: 0, max: 10000, value: 500 }, gettext("So people can follow the bots.")),
      ),
      selectField(
        "bot_strategy",
        gettext("Bot level"),
        byStrength(state.bots).map((b) => [b.name, botLabel(b)]),
        "greedy",
        gettext("Plays for a player whose clock runs out, and the bots you add."),
      ),
      numberField("bots", gettext("Bots to seat now"), { min: 0, max: 7, value: 3 }, gettext("Server bots at this level: all seats but yours, so the table can start at once. 0 to wait for people; more can be added later.")),
      h(
        "div",
        { class: "field field-check" },
        h("input", { type: "checkbox", id: "create-rated", name: "rated", "aria-describedby": "create-rated-hint" }),
        h("label", { for: "create-rated" }, gettext("Rated")),
        h("p", { class: "hint", id: "create-rated-hint" }, gettext("The final standings change the players' ratings. Unticked: casual.")),
      ),
      h(
        "div",
        { class: "field field-check" },
        h("input", { type: "checkbox", id: "create-sit", name: "sit", checked: true }),
        h("label", { for: "create-sit" }, gettext("Take the first seat myself")),
      ),
      h("div", { class: "actions" }, h("button", { type: "submit", id: "create-submit", class: "primary" }, gettext("Create table"))),
    );
    // Bots to seat: every seat but one until the player sets a number (a newcomer's table
    // of 4 with no bots would wait for three people who may never come).
    let botsChosen = false;
    for (const type of ["input", "change"]) {
      form.elements.bots.addEventListener(type, () => {
        botsChosen = true;
      });
    }
    const limits = () => {
      const setMax = Number(form.elements.set_max.value);
      const players = form.elements.players;
      const seats = Number(players.value) || 2;
      players.max = String(MAX_PLAYERS[setMax]);
      form.elements.rounds.max = String(setMax + 1);
      form.elements.hand_size.max = String(Math.floor(tileCount(setMax) / Math.max(2, seats)));
      form.elements.bots.max = String(Math.max(0, seats - (form.elements.sit.checked ? 1 : 0)));
      if (!botsChosen) form.elements.bots.value = String(Math.max(0, seats - 1));
    };
    form.addEventListener("input", limits);
    form.addEventListener("change", limits);
    limits();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(form, () => createTable(form));
    });
    return h(
      "section",
      { id: "create-table", class: "panel", "aria-labelledby": "create-title" },
      // open at once on a wide screen; on a phone the tables come first, the form a tap away
      h("details", { open: !window.matchMedia("(max-width: 899px)").matches, class: "create" }, h("summary", {}, h("h2", { id: "create-title" }, gettext("Create a table"))), form),
    );
  }

  // GET /bots/ `against`: the line-up a level was measured against, "3 greedy" (a count
  // and a level), in words; anything else as the server wrote it.
  function lineUp(against) {
    const match = /^(\d+) (\S+)$/.exec(against || "");
    if (!match) return against;
    const count = Number(match[1]);
    return interpolate(ngettext("%(count)s %(level)s bot", "%(count)s %(level)s bots", count), { count: formatNumber(count), level: levelWord(match[2]) });
  }

  function botLabel(bot) {
    const strongest = strongestLevel(state.bots);
    const name = bot.name === strongest ? interpolate(gettext("%(name)s, the strongest"), { name: levelWord(bot.name) }) : levelWord(bot.name);
    if (!bot.strength) return name;
    return interpolate(gettext("%(name)s: wins %(percent)s against %(against)s"), {
      name,
      percent: formatNumber(bot.strength.win_rate, { style: "percent", maximumFractionDigits: 1 }),
      against: lineUp(bot.strength.against),
    });
  }

  async function createTable(form) {
    const value = (name) => form.elements[name].value.trim();
    const number = (name) => (value(name) === "" ? null : Number(value(name)));
    const ruleset = { set_max: number("set_max"), players: number("players"), spinner_arms: number("spinner_arms") };
    for (const name of ["rounds", "hand_size", "double_blank_points"]) {
      if (number(name) !== null) ruleset[name] = number(name);
    }
    const body = {
      ruleset,
      sit: form.elements.sit.checked,
      bot_strategy: value("bot_strategy"),
      bot_delay_ms: number("bot_delay_ms") ?? 0,
      turn_time_limit: number("turn_time_limit"),
      rated: form.elements.rated.checked,
    };
    const created = await api.createGame(body);
    const id = created.game.id;
    const bots = Math.min(number("bots") || 0, created.game.seats.filter((s) => !s.player && !s.bot_strategy).length);
    for (let i = 0; i < bots; i += 1) {
      await api.addBot(id, { strategy: body.bot_strategy });
    }
    notify(interpolate(gettext("Table %(id)s created."), { id: String(id) }));
    if (state.tab !== "open") selectTab("open");
    await refreshAll();
    const card = document.querySelector(`#my-games [data-game="${id}"]`);
    if (card) card.scrollIntoView({ block: "nearest" });
  }

  // --- the lists ---------------------------------------------------------------------

  function focusKey() {
    const active = document.activeElement;
    if (!active || !root.contains(active)) return null;
    const card = active.closest("[data-game]");
    if (!card) return null;
    return { list: active.closest("ul") ? active.closest("ul").dataset.testid : null, game: card.dataset.game, key: active.dataset.focus || active.dataset.action || active.dataset.testid };
  }

  function restoreFocus(saved) {
    if (!saved || !saved.key) return;
    const target = root.querySelector(
      `[data-testid="${saved.list}"] [data-game="${saved.game}"] [data-focus="${saved.key}"], [data-testid="${saved.list}"] [data-game="${saved.game}"] [data-action="${saved.key}"], [data-testid="${saved.list}"] [data-game="${saved.game}"] [data-testid="${saved.key}"]`,
    );
    if (target) target.focus();
  }

  function visible(games) {
    return games.filter((game) => {
      if (state.setMax && String(game.ruleset.set_max) !== state.setMax) return false;
      if (state.free && state.tab === "open" && !game.seats.some((s) => !s.player && !s.bot_strategy)) return false;
      return true;
    });
  }

  function drawList() {
    const shown = visible(state.games);
    const signature = JSON.stringify([shown, state.abortOpen, [...state.live.entries()], state.bots.length]);
    const n = state.count;
    const counted = {
      open: ngettext("%(count)s open table", "%(count)s open tables", n),
      running: ngettext("%(count)s table in play", "%(count)s tables in play", n),
      finished: ngettext("%(count)s finished game", "%(count)s finished games", n),
    }[state.tab];
    countLine.textContent =
      shown.length !== state.games.length
        ? interpolate(gettext("%(counted)s, %(shown)s shown"), { counted: interpolate(counted, { count: n }), shown: shown.length })
        : interpolate(counted, { count: n });
    more.hidden = state.games.length >= state.count;
    if (signature === state.drawn.list) return;
    state.drawn.list = signature;
    const saved = focusKey();
    replaceChildren(
      list,
      shown.length
        ? shown.map((game) => card(game))
        : h("li", { class: "empty", "data-testid": "no-games" }, state.tab === "open" ? gettext("No open table right now: create one!") : gettext("No table here.")),
    );
    restoreFocus(saved);
  }

  function drawMine() {
    if (!account) return;
    const signature = JSON.stringify([state.myGames, state.abortOpen, [...state.live.entries()], state.bots.length]);
    if (signature === state.drawn.mine) return;
    state.drawn.mine = signature;
    const saved = focusKey();
    replaceChildren(
      myList,
      state.myGames.length
        ? state.myGames.map((game) => card(game))
        : h("li", { class: "empty", "data-testid": "no-my-games" }, gettext("No game yet: create a table or join one.")),
    );
    restoreFocus(saved);
  }

  async function loadList({ more: appending = false } = {}) {
    const params = { status: state.tab, limit: PAGE, offset: appending ? state.games.length : 0 };
    if (state.mine) params.mine = "true";
    try {
      const page = await api.listGames(params);
      if (stopped) return;
      state.games = appending ? [...state.games, ...page.results] : page.results;
      state.count = page.count;
      drawList();
    } catch (error) {
      if (!stopped) showError(error);
    }
  }

  async function loadMine() {
    if (!account || !api.currentUser()) return;
    try {
      const page = await api.listGames({ mine: "true", limit: MY_GAMES });
      if (stopped) return;
      // open and running first (newest first), then the finished and aborted ones
      const rank = { running: 0, open: 1, finished: 2, aborted: 3 };
      state.myGames = page.results.slice().sort((a, b) => rank[a.status] - rank[b.status] || b.id - a.id);
      drawMine();
    } catch (error) {
      if (!stopped) showError(error);
    }
  }

  function refreshAll() {
    // the list shown, in as many requests as it had pages (at most a few)
    return Promise.all([loadList(), loadMine()]);
  }

  let debounce = null;
  function refreshSoon() {
    clearTimeout(debounce);
    debounce = setTimeout(refreshAll, 250);
  }

  function selectTab(key) {
    state.tab = key;
    state.offset = 0;
    state.games = [];
    state.drawn.list = "";
    for (const button of tabButtons) {
      const selected = button.id === `tab-${key}`;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
    }
    document.getElementById("filter-free-wrap").hidden = key !== "open";
    replaceChildren(list, h("li", { class: "empty" }, gettext("Loading…")));
    loadList();
  }

  function setFilter(change) {
    const reload = "mine" in change && change.mine !== state.mine;
    Object.assign(state, change);
    if (reload) loadList();
    else drawList();
  }

  // --- one table -----------------------------------------------------------------------

  function seatLabel(game, seat) {
    if (seat.player && !seat.bot_strategy) return playerLink(seat.player.username, { isBot: seat.player.is_bot });
    if (seat.bot_strategy && (!seat.player || seat.player.is_bot)) return botLevelName(seat.bot_strategy);
    if (seat.bot_strategy && seat.player) {
      return h("span", {}, playerLink(seat.player.username), " ", interpolate(gettext("(played by %(bot)s)"), { bot: botLevelName(seat.bot_strategy) }));
    }
    return interpolate(gettext("Seat %(n)s (free)"), { n: String(seat.number + 1) });
  }

  function card(game) {
    const me = api.currentUser();
    const seat = mySeat(game, me);
    const creator = me && game.creator === me.username;
    // the account stream's word if it is newer than the list's, else the list's
    const live = state.live.get(game.id);
    const yourTurn =
      game.status === "running" &&
      (live && live.seq > game.seq ? live.your_turn : Boolean(seat && game.turn_seat === seat.number && !seat.resigned));
    const free = game.seats.filter((s) => !s.player && !s.bot_strategy);
    const title =
      game.status === "finished" || game.status === "aborted"
        ? interpolate(gettext("Game %(id)s"), { id: String(game.id) })
        : interpolate(gettext("Table %(id)s"), { id: String(game.id) });
    const linkText = {
      open: seat ? gettext("Open table") : gettext("Look"),
      running: seat ? gettext("Play") : gettext("Watch"),
      finished: gettext("Final position"),
      aborted: gettext("Open"),
    }[game.status];
    const badges = [
      h("span", { class: `badge status-${game.status}`, "data-testid": "status" }, h("span", { class: "dot", "aria-hidden": "true" }), statusWord(game.status)),
      h(
        "span",
        { class: ["badge", game.rated ? "rated" : "casual"], "data-testid": "rated", title: game.rated ? gettext("The final standings change the players' ratings.") : gettext("Ratings do not change.") },
        game.rated ? gettext("Rated") : gettext("Casual"),
      ),
      yourTurn ? h("span", { class: "badge your-turn", "data-testid": "your-turn" }, gettext("▶ Your turn")) : null,
      game.practice ? h("span", { class: "badge" }, gettext("Practice")) : null,
      game.moderated ? h("span", { class: "badge" }, gettext("Moderated")) : null,
    ];
    const seats = h(
      "ol",
      { class: "seats", "aria-label": gettext("Seats") },
      game.seats.map((s) => {
        const you = seat && s.number === seat.number;
        const turn = game.status === "running" && game.turn_seat === s.number;
        return h(
          "li",
          {
            class: ["seat", you && "you", turn && "turn", !s.player && !s.bot_strategy && "free", s.bot_strategy && "bot"],
            "data-testid": "seat",
            "data-seat": String(s.number),
          },
          s.bot_strategy ? h("span", { class: "seat-icon", "aria-hidden": "true" }, "⚙") : null,
          seatLabel(game, s),
          you ? h("span", { class: "tag" }, " ", gettext("(you)")) : null,
          turn ? h("span", { class: "tag" }, " — ", gettext("to play")) : null,
          game.result && game.result.winners.includes(s.number) ? h("span", { class: "tag win" }, " — ", gettext("winner")) : null,
          game.result ? h("span", { class: "score" }, " ", interpolate(ngettext("%(count)s point", "%(count)s points", game.result.totals[s.number]), { count: game.result.totals[s.number] })) : null,
        );
      }),
    );
    const actions = [];
    actions.push(
      h("a", { class: ["button", seat && game.status !== "finished" ? "primary" : "ghost"], href: `/games/${game.id}/`, "data-link": "", "data-testid": "game-link" }, linkText),
    );
    if (game.status === "finished") {
      actions.push(h("a", { class: "button ghost", href: `/games/${game.id}/replay/`, "data-link": "", "data-testid": "replay-link" }, gettext("Replay")));
    }
    if (game.status === "open" && me) {
      const id = { id: String(game.id) };
      if (!seat && free.length) actions.push(actionButton(game, "join", gettext("Join"), () => api.joinGame(game.id, {}), interpolate(gettext("Joined table %(id)s."), id)));
      if (seat) actions.push(actionButton(game, "leave", gettext("Leave"), () => api.leaveGame(game.id), interpolate(gettext("Left table %(id)s."), id), "ghost"));
      if (creator) {
        if (free.length) {
          const select = h(
            "select",
            { "data-testid": "bot-strategy", "data-focus": "bot-strategy", id: `bot-strategy-${game.id}`, value: game.bot_strategy },
            byStrength(state.bots).map((b) => h("option", { value: b.name }, levelWord(b.name))),
          );
          actions.push(
            h(
              "span",
              { class: "add-bot" },
              h("label", { for: `bot-strategy-${game.id}`, class: "visually-hidden" }, interpolate(gettext("Bot level for a seat at table %(id)s"), id)),
              select,
              actionButton(game, "add-bot", gettext("Add bot"), () => api.addBot(game.id, { strategy: select.value }), interpolate(gettext("Bot seated at table %(id)s."), id), "ghost"),
            ),
          );
        }
        const start = actionButton(game, "start", gettext("Start"), () => api.startGame(game.id), interpolate(gettext("Table %(id)s started."), id), "primary");
        if (free.length) {
          start.setAttribute("aria-describedby", `start-hint-${game.id}`);
        }
        actions.push(start);
        if (free.length) {
          actions.push(
            h("span", { class: "hint", id: `start-hint-${game.id}` }, interpolate(ngettext("%(count)s seat to fill before starting.", "%(count)s seats to fill before starting.", free.length), { count: free.length })),
          );
        }
        actions.push(
          h(
            "button",
            {
              type: "button",
              class: "ghost danger",
              "data-action": "abort",
              "aria-expanded": String(state.abortOpen === game.id),
              onclick: () => {
                state.abortOpen = state.abortOpen === game.id ? null : game.id;
                redraw();
                const input = root.querySelector(`[data-game="${game.id}"] [data-testid="abort-reason"]`);
                if (input) input.focus();
              },
            },
            gettext("Abort…"),
          ),
        );
      }
    }
    const abortForm =
      creator && game.status === "open" && state.abortOpen === game.id
        ? (() => {
            const reason = h("input", { id: `abort-reason-${game.id}`, "data-testid": "abort-reason", "data-focus": "abort-reason", maxlength: 500, placeholder: gettext("optional") });
            const form = h(
              "form",
              { class: "abort-form", onsubmit: (e) => e.preventDefault() },
              h("label", { for: `abort-reason-${game.id}` }, gettext("Why abort? (shown to the table)")),
              reason,
              h(
                "div",
                { class: "actions" },
                h(
                  "button",
                  {
                    type: "submit",
                    class: "danger",
                    "data-action": "abort-confirm",
                    onclick: async (e) => {
                      e.preventDefault();
                      const done = await busy(e.currentTarget, () => api.abortGame(game.id, { reason: reason.value.trim() }));
                      if (done) {
                        state.abortOpen = null;
                        notify(interpolate(gettext("Table %(id)s aborted."), { id: String(game.id) }));
                        refreshAll();
                      }
                    },
                  },
                  gettext("Abort table"),
                ),
                h("button", { type: "button", class: "ghost", "data-action": "abort-cancel", onclick: () => ((state.abortOpen = null), redraw()) }, gettext("Keep it")),
              ),
            );
            return form;
          })()
        : null;
    const when =
      game.status === "finished" || game.status === "aborted"
        ? h("span", {}, gettext("ended"), " ", timeElement(game.finished_at))
        : game.status === "running"
          ? h("span", {}, gettext("started"), " ", timeElement(game.started_at))
          : h("span", {}, gettext("opened"), " ", timeElement(game.created_at));
    const extra = [];
    if (game.turn_time_limit) extra.push(interpolate(gettext("%(seconds)s s a turn"), { seconds: game.turn_time_limit }));
    extra.push(interpolate(gettext("bot level %(level)s"), { level: levelWord(game.bot_strategy) }));
    return h(
      "li",
      {
        class: ["game-card", `is-${game.status}`, yourTurn && "is-your-turn"],
        "data-testid": "game-card",
        "data-game": String(game.id),
        "data-status": game.status,
        "data-mine": String(Boolean(seat || creator)),
        "data-your-turn": String(yourTurn),
      },
      h(
        "div",
        { class: "card-head" },
        h("h3", { class: "card-title" }, h("a", { href: `/games/${game.id}/`, "data-link": "" }, title)),
        h("div", { class: "badges" }, badges),
      ),
      h("p", { class: "card-meta" }, rulesetWords(game.ruleset), h("br"), h("span", { class: "muted" }, gettext("by"), " ", playerLink(game.creator), " · ", when, " · ", extra.join(" · "))),
      game.status === "aborted" && game.abort_reason ? h("p", { class: "muted" }, interpolate(gettext("Reason: %(reason)s"), { reason: game.abort_reason })) : null,
      seats,
      h("div", { class: "actions card-actions" }, actions),
      abortForm,
    );
  }

  function actionButton(game, action, label, run, done, style = "") {
    const button = h(
      "button",
      {
        type: "button",
        class: style,
        "data-action": action,
        "aria-label": interpolate(gettext("%(action)s (table %(id)s)"), { action: label, id: String(game.id) }),
        onclick: async () => {
          const result = await busy(button, run);
          if (result !== undefined) {
            notify(done);
            await refreshAll();
          }
        },
      },
      label,
    );
    return button;
  }

  function redraw() {
    state.drawn = { list: "", mine: "" };
    drawList();
    drawMine();
  }

  // --- live ----------------------------------------------------------------------------

  function onFrame(type, data) {
    streamStatus.dataset.frames = String(Number(streamStatus.dataset.frames || 0) + 1);
    if (type === "snapshot") {
      state.live = new Map(data.games.map((g) => [g.game, g]));
      const shown = new Map(state.myGames.map((g) => [g.id, g.status]));
      const stale = data.games.some((g) => shown.get(g.game) !== g.status);
      if (stale || state.tab === "open") refreshSoon();
      else redraw();
    } else if (type === "game_started" || type === "your_turn" || type === "game_over") {
      state.live.set(data.game, data);
      const known = state.myGames.find((g) => g.id === data.game);
      if (type === "your_turn" && known && known.status === data.status) {
        redraw(); // nothing moved between the lists: no request
      } else {
        refreshSoon(); // a game started or ended: it changes lists
      }
    } else if (type === "table_open" || type === "table_closed") {
      tableChanged(type, data);
    }
  }

  // The lobby's open tables, from the account stream: a change of a table shown is
  // drawn at once; a new or closed table re-reads the lists (its place, the counts).
  function tableChanged(type, game) {
    const mine = state.myGames.findIndex((g) => g.id === game.id);
    if (type === "table_open" && mine >= 0) state.myGames[mine] = game;
    const index = state.games.findIndex((g) => g.id === game.id);
    if (type === "table_open" && index >= 0 && state.tab === "open") {
      state.games[index] = game;
      redraw();
      if (mine < 0) return;
    }
    if (state.tab === "open" || mine >= 0) refreshSoon();
  }

  function startLive() {
    if (!account) return;
    unsubscribe.push(
      onAccountStatus((status) => {
        streamStatus.dataset.state = status;
        streamStatus.textContent = { open: gettext("● Live"), reconnecting: gettext("Reconnecting…"), closed: gettext("Not live"), connecting: gettext("Connecting…") }[status] || status;
      }),
    );
    unsubscribe.push(onAccountFrame(onFrame));
    api
      .getLadder()
      .then((ladder) => {
        if (stopped) return;
        const levels = ladder.participants.filter((p) => p.level && p.active).map((p) => ({ username: p.username, level: p.level }));
        replaceChildren(challengeSlot, challengePanel({ levels, strongest: strongestLevel(state.bots) }));
      })
      .catch(() => {
        if (!stopped) replaceChildren(challengeSlot, challengePanel({}));
      });
  }

  function tick() {
    if (document.visibilityState === "visible") refreshAll();
  }

  const onVisible = () => {
    if (document.visibilityState === "visible") refreshAll();
  };
  const onSession = () => {
    // signed out elsewhere (or the token refused): draw the lobby as a guest
    if (!api.currentUser() && account) window.dispatchEvent(new CustomEvent("cf:navigate"));
  };
  document.addEventListener("visibilitychange", onVisible);
  window.addEventListener("cf:session", onSession);
  if (!account) timers.push(setInterval(tick, GUEST_REFRESH_MS)); // a guest has no account stream

  api
    .listBots()
    .then((bots) => {
      if (stopped || !bots.length) return;
      state.bots = bots;
      const select = document.getElementById("create-bot_strategy");
      if (select) {
        const chosen = select.value;
        replaceChildren(select, byStrength(bots).map((b) => h("option", { value: b.name }, botLabel(b))));
        select.value = bots.some((b) => b.name === chosen) ? chosen : "greedy";
      }
      redraw();
    })
    .catch(() => {});
  selectTab("open");
  loadMine();
  startLive();

  return () => {
    stopped = true;
    timers.forEach(clearInterval);
    clearTimeout(debounce);
    document.removeEventListener("visibilitychange", onVisible);
    window.removeEventListener("cf:session", onSession);
    unsubscribe.forEach((stop) => stop());
    if (quick) quick.stop();
  };
}
