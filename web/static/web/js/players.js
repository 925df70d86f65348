// How the pages name players and bots, and link them to their profiles (one naming
// everywhere: a player's username, a "Bot" badge for bot accounts; a server bot
// level is "Bot (hard)").
//
//   playerLink("alice")                     -> <a href="/players/alice/" data-link>alice</a>
//   playerLink("ladder-hard", {isBot: true}) -> the link and a "Bot" badge
//   botLevelName("hard")                    -> "Bot (hard)"
//   strongestLevel(bots)                    -> the name of the strongest level of GET /bots/

import { gettext, interpolate } from "./i18n.js";
import { h, levelWord } from "./ui.js";

export function profilePath(username) {
  return `/players/${encodeURIComponent(username)}/`;
}

export function botLevelName(level) {
  return interpolate(gettext("Bot (%(level)s)"), { level: levelWord(level) });
}

export function botBadge() {
  return h("span", { class: "badge bot-badge", "data-testid": "bot-badge" }, gettext("Bot"));
}

export function playerLink(username, { isBot = false } = {}) {
  return h(
    "span",
    { class: "player-name" },
    h("a", { href: profilePath(username), "data-link": "", "data-testid": "player-link" }, username),
    isBot ? [" ", botBadge()] : null,
  );
}

/** The strongest level by the arena's measure (GET /bots/ `strength`), or null. */
export function strongestLevel(bots) {
  let best = null;
  for (const bot of bots || []) {
    if (!bot.strength) continue;
    const key = [bot.strength.win_rate, bot.strength.win_rate_low];
    if (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] > best.key[1])) best = { name: bot.name, key };
  }
  return best ? best.name : null;
}
