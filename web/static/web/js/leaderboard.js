// The leaderboard (/leaderboard/?pool=2&kind=humans): a pool's rated accounts, best
// rating first, for everyone, humans only or bots only.
//
// Requests: GET /leaderboard/ (?pool, ?kind, ?limit); "Show more" follows the page's `next` link
// (its ?cursor: every page as fast as the first, however deep).
// Test hooks: #leaderboard [data-testid=leaderboard] (data-state loading|ready); selects #board-pool, #board-kind;
//   rows tr[data-testid=board-row][data-player=<username>] with td[data-testid=rating];
//   #board-more ("Show more"); [data-testid=board-empty].

import * as api from "./api.js";
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { playerLink } from "./players.js";
import { busy, h, replaceChildren, setTitle, showError } from "./ui.js";

const PAGE = 50;

export const POOLS = [
  ["2", () => gettext("2 players")],
  ["3-4", () => gettext("3-4 players")],
  ["5-8", () => gettext("5-8 players")],
];
const KINDS = [
  ["all", () => gettext("Everyone")],
  ["humans", () => gettext("Humans")],
  ["bots", () => gettext("Bots")],
];

export function ratingText(value) {
  return formatNumber(value, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export function renderLeaderboard(root, { search } = {}) {
  setTitle(gettext("Leaderboard"));
  const params = search || new URLSearchParams();
  const state = {
    pool: POOLS.some(([p]) => p === params.get("pool")) ? params.get("pool") : "3-4",
    kind: KINDS.some(([k]) => k === params.get("kind")) ? params.get("kind") : "all",
    rows: [],
    count: 0,
    next: null, // the query of the page's `next` link (null: the last page)
  };
  let stopped = false;
  const choose = (id, label, options, value, key) =>
    h(
      "div",
      { class: "inline" },
      h("label", { for: id }, label),
      h(
        "select",
        {
          id,
          value,
          onchange: (event) => {
            state[key] = event.target.value;
            const url = `/leaderboard/?pool=${encodeURIComponent(state.pool)}&kind=${encodeURIComponent(state.kind)}`;
            window.history.replaceState({}, "", url);
            load(false);
          },
        },
        options.map(([v, text]) => h("option", { value: v }, text())),
      ),
    );
  const body = h("tbody");
  const countLine = h("p", { class: "muted count", "data-testid": "board-count" });
  const more = h("button", { type: "button", id: "board-more", class: "ghost", hidden: true, onclick: (e) => busy(e.currentTarget, () => load(true)) }, gettext("Show more"));
  const table = h(
    "table",
    { class: "board-table", "data-testid": "board-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, gettext("Rank")),
        h("th", { scope: "col" }, gettext("Player")),
        h("th", { scope: "col", class: "num" }, gettext("Rating")),
        h("th", { scope: "col", class: "num" }, gettext("Games")),
        h("th", { scope: "col", class: "num" }, gettext("Wins")),
      ),
    ),
    body,
  );
  const section = h(
      "section",
      { id: "leaderboard", class: "panel", "data-testid": "leaderboard", "data-state": "loading", "aria-labelledby": "board-title" },
      h("div", { class: "panel-head" }, h("h1", { id: "board-title" }, gettext("Leaderboard")), countLine),
      h(
        "form",
        { class: "filters", onsubmit: (e) => e.preventDefault() },
        choose("board-pool", gettext("Table size"), POOLS, state.pool, "pool"),
        choose("board-kind", gettext("Who"), KINDS, state.kind, "kind"),
      ),
      h("p", { class: "hint" }, gettext("The rating is mu - 3 sigma: it rises as a player wins and as the server grows sure of them. Provisional: fewer than 10 rated matches.")),
      h("div", { class: "table-scroll" }, table),
      h("div", { class: "actions center" }, more),
      h("p", {}, h("a", { href: "/ladder/", "data-link": "" }, gettext("The bot ladder's standings"))),
  );
  replaceChildren(root, section);

  function row(entry) {
    return h(
      "tr",
      { "data-testid": "board-row", "data-player": entry.username },
      h("td", {}, formatNumber(entry.rank)),
      h("td", {}, playerLink(entry.username, { isBot: entry.is_bot }), entry.provisional ? h("span", { class: "tag muted" }, " ", gettext("(provisional)")) : null),
      h("td", { class: "num", "data-testid": "rating" }, ratingText(entry.rating)),
      h("td", { class: "num" }, formatNumber(entry.games)),
      h("td", { class: "num" }, formatNumber(entry.wins)),
    );
  }

  async function load(appending) {
    try {
      const page = await api.getLeaderboard(appending && state.next ? state.next : { pool: state.pool, kind: state.kind, limit: PAGE });
      if (stopped) return;
      state.rows = appending ? [...state.rows, ...page.results] : page.results;
      state.count = page.count;
      state.next = page.next ? Object.fromEntries(new URL(page.next, window.location.href).searchParams) : null;
      countLine.textContent = interpolate(ngettext("%(count)s rated player", "%(count)s rated players", page.count), { count: page.count });
      replaceChildren(
        body,
        state.rows.length
          ? state.rows.map(row)
          : h("tr", {}, h("td", { colspan: "5", class: "empty", "data-testid": "board-empty" }, gettext("No rated player in this pool yet."))),
      );
      more.hidden = !state.next;
      section.dataset.state = "ready";
    } catch (error) {
      if (!stopped) showError(error);
    }
  }

  load(false);
  return () => {
    stopped = true;
  };
}
