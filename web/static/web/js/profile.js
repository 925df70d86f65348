// A player's profile (/players/<name>/): the ratings per pool (rank, games, wins,
// provisional), a rating-history chart per pool (inline SVG drawn here from the
// API's history), the recent finished games with replay links, and for a bot
// account its badge and who plays it (a server level, or its owner's program).
//
// Requests: GET /players/{name}/, GET /players/{name}/ratings/, GET /games/?player=,
// GET /ladder/ (bots only: the level that plays it).
// Test hooks: #profile [data-testid=profile] (data-state loading|ready),
//   [data-testid=bot-badge], [data-testid=bot-owner],
//   section[data-testid=pool][data-pool=<pool>] with [data-testid=pool-rating],
//   svg[data-testid=rating-chart] (data-points: how many points it draws),
//   [data-testid=no-ratings]; list [data-testid=recent-games] of
//   li[data-testid=recent-game][data-game=<id>] with [data-testid=replay-link].

import * as api from "./api.js";
import { formatDateTime, formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { POOLS, ratingText } from "./leaderboard.js";
import { botBadge, botLevelName, playerLink } from "./players.js";
import { h, replaceChildren, setTitle, timeElement } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
const RECENT = 10;

function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/** The rating history (oldest first) as a line chart: an <svg> that scales to its box. */
export function ratingChart(points, { label }) {
  const width = 600;
  const height = 200;
  const pad = { left: 44, right: 12, top: 12, bottom: 24 };
  const values = points.map((p) => p.rating);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 1) {
    low -= 1;
    high += 1;
  }
  const x = (i) => pad.left + (points.length === 1 ? (width - pad.left - pad.right) / 2 : (i * (width - pad.left - pad.right)) / (points.length - 1));
  const y = (v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / (high - low);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  const ticks = [high, (high + low) / 2, low];
  return svg(
    "svg",
    {
      class: "rating-chart",
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": label,
      "data-testid": "rating-chart",
      "data-points": points.length,
    },
    ...ticks.map((v) => svg("line", { class: "grid", x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v) })),
    ...ticks.map((v) => svg("text", { class: "axis", x: pad.left - 6, y: y(v) + 4, "text-anchor": "end" }, ratingText(v))),
    svg("path", { class: "line", d: path, fill: "none" }),
    ...points.map((p, i) =>
      svg(
        "circle",
        { class: "point", cx: x(i), cy: y(p.rating), r: 4, "data-game": p.game_id },
        svg("title", {}, interpolate(gettext("%(rating)s after game %(game)s, %(when)s"), { rating: ratingText(p.rating), game: String(p.game_id), when: formatDateTime(p.at) })),
      ),
    ),
  );
}

function poolLabel(pool) {
  const found = POOLS.find(([p]) => p === pool);
  return found ? found[1]() : pool;
}

export async function renderProfile(root, { username }) {
  setTitle(username);
  const section = h("section", { id: "profile", class: "panel profile", "data-testid": "profile", "data-state": "loading", "aria-labelledby": "profile-title" }, h("h1", { id: "profile-title" }, username));
  replaceChildren(root, section);
  let player;
  try {
    player = await api.getPlayer(username);
  } catch (error) {
    if (error.status === 404) {
      replaceChildren(section, h("h1", { id: "profile-title" }, gettext("No such player")), h("p", {}, interpolate(gettext("There is no player called %(name)s."), { name: username })));
      section.dataset.state = "ready";
      return;
    }
    throw error;
  }
  setTitle(player.username);
  const [ratings, games, ladder] = await Promise.all([
    api.getPlayerRatings(player.username),
    api.listPlayerGames(player.username, { limit: RECENT }),
    player.is_bot ? api.getLadder().catch(() => null) : Promise.resolve(null),
  ]);

  const head = [h("h1", { id: "profile-title" }, player.username, player.is_bot ? [" ", botBadge()] : null)];
  if (player.is_bot) {
    const entry = ladder ? ladder.participants.find((p) => p.username.toLowerCase() === player.username.toLowerCase()) : null;
    const owner = entry && entry.level
      ? interpolate(gettext("%(name)s: a level the server itself plays, on the bot ladder."), { name: botLevelName(entry.level) })
      : entry
        ? gettext("A bot on the ladder, played by its owner's program over the API.")
        : gettext("A bot account: its moves are made by a program.");
    head.push(h("p", { class: "muted", "data-testid": "bot-owner" }, owner));
  }

  const pools = ratings.pools.length
    ? ratings.pools.map((pool) =>
        h(
          "section",
          { class: "pool", "data-testid": "pool", "data-pool": pool.pool, "aria-label": poolLabel(pool.pool) },
          h("h2", {}, poolLabel(pool.pool)),
          h(
            "dl",
            { class: "stats" },
            h("div", {}, h("dt", {}, gettext("Rating")), h("dd", { "data-testid": "pool-rating" }, ratingText(pool.rating), pool.provisional ? h("span", { class: "tag muted" }, " ", gettext("(provisional)")) : null)),
            h("div", {}, h("dt", {}, gettext("Rank")), h("dd", {}, h("a", { href: `/leaderboard/?pool=${encodeURIComponent(pool.pool)}`, "data-link": "" }, interpolate(gettext("#%(rank)s"), { rank: pool.rank })))),
            h("div", {}, h("dt", {}, gettext("Games")), h("dd", {}, formatNumber(pool.games))),
            h("div", {}, h("dt", {}, gettext("Wins")), h("dd", {}, formatNumber(pool.wins))),
          ),
          pool.history.length
            ? ratingChart(pool.history, {
                label: interpolate(ngettext("Rating history, %(pool)s: %(count)s match", "Rating history, %(pool)s: %(count)s matches", pool.history.length), {
                  pool: poolLabel(pool.pool),
                  count: pool.history.length,
                }),
              })
            : null,
        ),
      )
    : h("p", { class: "muted", "data-testid": "no-ratings" }, gettext("No rated match yet."));

  const recent = h(
    "ul",
    { class: "game-list", "data-testid": "recent-games" },
    games.results.length
      ? games.results.map((game) => {
          const others = game.seats.filter((s) => s.player).map((s) => s.player);
          const seat = game.seats.find((s) => s.player && s.player.username.toLowerCase() === player.username.toLowerCase());
          const won = seat && game.result && game.result.winners.includes(seat.number);
          return h(
            "li",
            { class: "game-card", "data-testid": "recent-game", "data-game": String(game.id) },
            h(
              "div",
              { class: "card-head" },
              h("h3", { class: "card-title" }, interpolate(gettext("Game %(id)s"), { id: String(game.id) })),
              h(
                "div",
                { class: "badges" },
                h("span", { class: "badge", "data-testid": "rated" }, game.rated ? gettext("Rated") : gettext("Casual")),
                won ? h("span", { class: "badge win" }, gettext("Won")) : null,
              ),
            ),
            h(
              "p",
              { class: "card-meta" },
              others.map((p, i) => [i ? ", " : "", playerLink(p.username, { isBot: p.is_bot })]),
              h("br"),
              h("span", { class: "muted" }, timeElement(game.finished_at)),
            ),
            h("div", { class: "actions" }, h("a", { class: "button ghost", href: `/games/${game.id}/replay/`, "data-link": "", "data-testid": "replay-link" }, gettext("Replay"))),
          );
        })
      : h("li", { class: "empty" }, gettext("No finished game yet.")),
  );

  replaceChildren(
    section,
    h("div", { class: "profile-head" }, head),
    h("div", { class: "pools" }, pools),
    h("h2", {}, gettext("Recent games")),
    recent,
  );
  section.dataset.state = "ready";
  return undefined;
}
