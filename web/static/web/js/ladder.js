// The bot ladder's standings (/ladder/): the bots on the ladder (the server's levels
// and outside bots), ranked by their rating in each pool the ladder plays (2 and
// 3-4 players), the best of them marked as the strongest; and when rounds are played.
//
// Requests: GET /ladder/, GET /leaderboard/?kind=bots&pool=2|3-4.
// Test hooks: #ladder [data-testid=ladder] (data-state loading|ready); per pool
//   section[data-testid=ladder-pool][data-pool=<pool>] with rows
//   tr[data-testid=ladder-row][data-player=<username>] ([data-testid=strongest] on the best).

import * as api from "./api.js";
import { formatDateTime, formatNumber, gettext, interpolate } from "./i18n.js";
import { POOLS, ratingText } from "./leaderboard.js";
import { botLevelName, playerLink } from "./players.js";
import { h, replaceChildren, setTitle } from "./ui.js";

const LADDER_POOLS = ["2", "3-4"];

export async function renderLadder(root) {
  setTitle(gettext("Bot ladder"));
  const section = h("section", { id: "ladder", class: "panel", "data-testid": "ladder", "data-state": "loading", "aria-labelledby": "ladder-title" }, h("h1", { id: "ladder-title" }, gettext("Bot ladder")));
  replaceChildren(root, section);
  const ladder = await api.getLadder();
  const boards = await Promise.all(LADDER_POOLS.map((pool) => api.getLeaderboard({ pool, kind: "bots", limit: 100 })));
  const byName = new Map(ladder.participants.map((p) => [p.username.toLowerCase(), p]));

  const pools = LADDER_POOLS.map((pool, i) => {
    const rows = boards[i].results.filter((entry) => byName.has(entry.username.toLowerCase()));
    const best = rows.length ? rows[0].username : null;
    const label = (POOLS.find(([p]) => p === pool) || [pool, () => pool])[1]();
    return h(
      "section",
      { class: "ladder-pool", "data-testid": "ladder-pool", "data-pool": pool },
      h("h2", {}, label),
      rows.length
        ? h(
            "div",
            { class: "table-scroll" },
            h(
              "table",
              { class: "board-table" },
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  h("th", { scope: "col" }, gettext("Rank")),
                  h("th", { scope: "col" }, gettext("Bot")),
                  h("th", { scope: "col", class: "num" }, gettext("Rating")),
                  h("th", { scope: "col", class: "num" }, gettext("Games")),
                  h("th", { scope: "col", class: "num" }, gettext("Wins")),
                ),
              ),
              h(
                "tbody",
                {},
                rows.map((entry) => {
                  const who = byName.get(entry.username.toLowerCase());
                  return h(
                    "tr",
                    { "data-testid": "ladder-row", "data-player": entry.username },
                    h("td", {}, formatNumber(entry.rank)),
                    h(
                      "td",
                      {},
                      playerLink(entry.username, { isBot: true }),
                      " ",
                      h("span", { class: "muted" }, who.level ? botLevelName(who.level) : gettext("outside bot")),
                      entry.username === best ? [" ", h("span", { class: "badge strongest", "data-testid": "strongest" }, gettext("Strongest"))] : null,
                      entry.provisional ? h("span", { class: "tag muted" }, " ", gettext("(provisional)")) : null,
                    ),
                    h("td", { class: "num" }, ratingText(entry.rating)),
                    h("td", { class: "num" }, formatNumber(entry.games)),
                    h("td", { class: "num" }, formatNumber(entry.wins)),
                  );
                }),
              ),
            ),
          )
        : h("p", { class: "muted" }, gettext("No rated ladder match in this pool yet.")),
    );
  });

  const schedule = ladder.schedule;
  const when = schedule.next_round_at
    ? interpolate(gettext("Next round: %(time)s."), { time: formatDateTime(schedule.next_round_at) })
    : gettext("The ladder is off: no rounds are played.");
  const unrated = ladder.participants.filter((p) => !boards.some((b) => b.results.some((e) => e.username.toLowerCase() === p.username.toLowerCase())));
  replaceChildren(
    section,
    h("h1", { id: "ladder-title" }, gettext("Bot ladder")),
    h("p", {}, gettext("The server's bot levels and outside bots play rated matches among themselves in rounds; their ratings rank them."), " ", when),
    pools,
    unrated.length
      ? h("p", { class: "muted" }, gettext("Not rated yet:"), " ", unrated.map((p, n) => [n ? ", " : "", playerLink(p.username, { isBot: true })]))
      : null,
    h("p", {}, h("a", { href: "/leaderboard/?kind=bots", "data-link": "" }, gettext("Every bot on the leaderboard"))),
  );
  section.dataset.state = "ready";
}
