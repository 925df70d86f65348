// A table's link (/games/<id>/) for someone not seated there: above the table (drawn
// by js/table.js), a bar that says what they can do - at an open table with a free
// seat, "Join" (signed in) or "Log in to join" (a guest, back here afterwards); at a
// running table, that they are watching. Gone once they sit down (the table is
// drawn again) or the table starts.
//
// Requests: GET /games/{id}/, POST /games/{id}/join/.
// Test hooks: [data-testid=table-visitor] (data-state open|watching) with
//   [data-action=visitor-join] or [data-testid=visitor-login].

import * as api from "./api.js";
import { onAccountFrame } from "./accountstream.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { renderTable } from "./table.js";
import { busy, h, navigate, notify, replaceChildren } from "./ui.js";

export function renderTableForVisitor(root, { gameId }) {
  const bar = h("div", { class: "table-visitor-slot" });
  const host = h("div", { class: "table-host" });
  replaceChildren(root, bar, host);
  const cleanup = renderTable(host, { gameId });
  let stopped = false;

  function draw(body) {
    const game = body.game;
    const me = api.currentUser();
    const seated = me && game.seats.some((s) => s.player && s.player.username === me.username);
    const free = game.seats.filter((s) => !s.player && !s.bot_strategy).length;
    if (seated || (game.status !== "open" && game.status !== "running") || (game.status === "open" && !free)) {
      replaceChildren(bar);
      return;
    }
    const here = `/games/${game.id}/`;
    if (game.status === "running") {
      replaceChildren(
        bar,
        h("p", { class: "table-visitor", "data-testid": "table-visitor", "data-state": "watching" }, gettext("You are watching this table: the players' hands stay hidden.")),
      );
      return;
    }
    const seats = interpolate(ngettext("%(count)s seat free", "%(count)s seats free", free), { count: free });
    const rated = game.rated ? gettext("Rated") : gettext("Casual");
    const action = me
      ? h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-action": "visitor-join",
            onclick: async (event) => {
              const joined = await busy(event.currentTarget, () => api.joinGame(game.id, {}));
              if (joined) {
                notify(interpolate(gettext("Joined table %(id)s."), { id: String(game.id) }));
                navigate(here, { replace: true }); // drawn again, seated
              }
            },
          },
          gettext("Join"),
        )
      : h("a", { class: "button primary", href: `/login/?next=${encodeURIComponent(here)}`, "data-link": "", "data-testid": "visitor-login" }, gettext("Log in to join"));
    replaceChildren(
      bar,
      h(
        "div",
        { class: "table-visitor", "data-testid": "table-visitor", "data-state": "open", role: "region", "aria-label": gettext("Join this table") },
        h("p", {}, interpolate(gettext("This table is open: %(seats)s."), { seats }), " ", rated, "."),
        h("div", { class: "actions" }, action),
      ),
    );
  }

  function load() {
    api
      .getGame(gameId)
      .then((body) => {
        if (!stopped) draw(body);
      })
      .catch(() => {}); // the table itself shows what went wrong
  }

  load();
  // someone else sits down or the table starts: the account stream's tables feed says so
  const unsubscribe = onAccountFrame((type, data) => {
    if ((type === "table_open" || type === "table_closed") && data.id === gameId) draw({ game: data });
  });
  return () => {
    stopped = true;
    unsubscribe();
    if (typeof cleanup === "function") cleanup();
  };
}
