// The client's entry point and router (history API; the server answers every
// client route with the same page).
//
//   /                    lobby            (js/lobby.js    renderLobby)
//   /login/              log in           (js/accounts.js renderLogin; ?next=/games/7/)
//   /register/           new account      (js/accounts.js renderRegister)
//   /games/<id>/         a table          (js/table.js    renderTable(root, {gameId}); for someone
//                                         not seated, js/tablejoin.js adds Join / watching above it)
//   /games/<id>/replay/  a finished game  (js/replay.js   renderReplay(root, {gameId}))
//   /leaderboard/        the leaderboards (js/leaderboard.js renderLeaderboard; ?pool=&kind=)
//   /players/<name>/     a profile        (js/profile.js renderProfile(root, {username}))
//   /ladder/             the bot ladder   (js/ladder.js  renderLadder)
//   /account/            your account     (js/account.js  renderAccount)
//   /rules/              how to play      (js/rules.js    renderRules)
//
// Signed in, one account stream per page (js/accountstream.js) feeds the lobby,
// quick play and the challenge notices (js/challenges.js) shown on every page.
//
// Each render function draws into `root` (#main) and answers a cleanup function
// (or nothing), called before the next route is drawn. Links carrying `data-link`,
// and any same-origin link to one of these routes, are followed without a reload.
// Once a route is drawn, <body data-route="lobby|login|register|table|replay|leaderboard|profile|ladder|account|rules"> says which.

import { renderLogin, renderRegister, renderAccountNav } from "./accounts.js";
import { startAccountStream } from "./accountstream.js";
import { startChallengeNotices } from "./challenges.js";
import { startSanctionNotices } from "./sanctions.js";
import { gettext } from "./i18n.js";
import { renderLadder } from "./ladder.js";
import { renderLeaderboard } from "./leaderboard.js";
import { renderLobby } from "./lobby.js";
import { renderProfile } from "./profile.js";
import { renderReplay } from "./replay.js";
import { renderTableForVisitor } from "./tablejoin.js";
import { renderAccount } from "./account.js";
import { renderRules } from "./rules.js";
import { clearErrors, h, replaceChildren, setTitle, showError } from "./ui.js";

const ROUTES = [
  { name: "lobby", pattern: /^\/$/, render: (root) => renderLobby(root) },
  { name: "login", pattern: /^\/login\/$/, render: (root, _match, search) => renderLogin(root, { next: search.get("next") }) },
  { name: "register", pattern: /^\/register\/$/, render: (root, _match, search) => renderRegister(root, { next: search.get("next") }) },
  { name: "table", pattern: /^\/games\/(\d+)\/$/, render: (root, match) => renderTableForVisitor(root, { gameId: Number(match[1]) }) },
  { name: "replay", pattern: /^\/games\/(\d+)\/replay\/$/, render: (root, match) => renderReplay(root, { gameId: Number(match[1]) }) },
  { name: "leaderboard", pattern: /^\/leaderboard\/$/, render: (root, _match, search) => renderLeaderboard(root, { search }) },
  { name: "profile", pattern: /^\/players\/([^/]+)\/$/, render: (root, match) => renderProfile(root, { username: decodeURIComponent(match[1]) }) },
  { name: "ladder", pattern: /^\/ladder\/$/, render: (root) => renderLadder(root) },
  { name: "account", pattern: /^\/account\/$/, render: (root) => renderAccount(root) },
  { name: "rules", pattern: /^\/rules\/$/, render: (root) => renderRules(root) },
];

let cleanup = null;
let drawn = 0;

function routeOf(pathname) {
  for (const route of ROUTES) {
    const match = route.pattern.exec(pathname);
    if (match) return { route, match };
  }
  return null;
}

async function draw() {
  const root = document.getElementById("main");
  if (typeof cleanup === "function") {
    try {
      cleanup();
    } catch (error) {
      console.error(error);
    }
  }
  cleanup = null;
  clearErrors();
  replaceChildren(root);
  const found = routeOf(window.location.pathname);
  const search = new URLSearchParams(window.location.search);
  drawn += 1;
  const mine = drawn;
  if (!found) {
    document.body.dataset.route = "not-found";
    setTitle(gettext("Not found"));
    replaceChildren(
      root,
      h("section", { class: "panel" }, h("h1", {}, gettext("Nothing here")), h("p", {}, h("a", { href: "/", "data-link": "" }, gettext("Back to the lobby")))),
    );
    return;
  }
  document.body.dataset.route = found.route.name;
  try {
    const result = await found.route.render(root, found.match, search);
    if (mine !== drawn) {
      // another route was drawn meanwhile
      if (typeof result === "function") result();
      return;
    }
    cleanup = typeof result === "function" ? result : null;
  } catch (error) {
    showError(error);
  }
  if (drawn > 1) {
    // keyboard and screen reader users land on the new content
    const heading = root.querySelector("h1");
    (heading || root).setAttribute("tabindex", "-1");
    (heading || root).focus({ preventScroll: false });
  }
}

function isClientRoute(url) {
  return url.origin === window.location.origin && routeOf(url.pathname) !== null;
}

document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return;
  }
  const anchor = event.target.closest ? event.target.closest("a[href]") : null;
  if (!anchor || anchor.target || anchor.hasAttribute("download")) return;
  const url = new URL(anchor.href, window.location.href);
  if (!anchor.hasAttribute("data-link") && !isClientRoute(url)) return;
  event.preventDefault();
  if (url.pathname + url.search !== window.location.pathname + window.location.search) {
    window.history.pushState({}, "", url.pathname + url.search + url.hash);
  }
  draw();
});

window.addEventListener("popstate", draw);
window.addEventListener("cf:navigate", draw);

// The site's pages, after the brand (drawn here: the words are the catalogue's).
const brand = document.querySelector(".site-header .brand");
if (brand) {
  brand.after(
    h(
      "nav",
      { class: "site-nav", "aria-label": gettext("Pages") },
      h("a", { href: "/leaderboard/", "data-link": "", "data-testid": "nav-leaderboard" }, gettext("Leaderboard")),
      h("a", { href: "/ladder/", "data-link": "", "data-testid": "nav-ladder" }, gettext("Bot ladder")),
    ),
  );
}

const nav = document.getElementById("account-nav");
renderAccountNav(nav);
window.addEventListener("cf:session", () => renderAccountNav(nav));
// Signed in or out in another tab (localStorage): follow it here.
window.addEventListener("storage", (event) => {
  if (event.key === "cf.session") {
    renderAccountNav(nav);
    draw();
  }
});

startAccountStream();
startChallengeNotices();
startSanctionNotices();
draw();
