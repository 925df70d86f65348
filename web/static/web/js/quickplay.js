// Quick play (the lobby's first panel): choose a preset (GET /presets/), how many
// players, rated or casual; "Quick play" makes a seek (POST /seeks/). While it
// waits the panel shows the wait live - the time waited, when bots fill the empty
// seats, and for a rated seek the rating window (the ratings it accepts, widening
// as it waits: the seek's `rating_window` around my rating in that pool, from
// GET /players/{me}/ratings/) - with Cancel (DELETE /seeks/{id}/). The account
// stream (js/accountstream.js) says when it is matched: the page goes to the table.
//
// Test hooks: #quick-play [data-testid=quick-play] (data-state idle|waiting);
//   #quick-preset, #quick-players, #quick-rated, #quick-submit;
//   [data-testid=seek-waiting] (data-seek=<id>) with [data-testid=seek-window],
//   [data-testid=seek-elapsed], #quick-cancel.

import * as api from "./api.js";
import { onAccountFrame } from "./accountstream.js";
import { formatDateTime, formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { busy, h, navigate, notify, replaceChildren } from "./ui.js";

function poolOf(players) {
  return players === 2 ? "2" : players <= 4 ? "3-4" : "5-8";
}

function presetLabel(preset) {
  const set = interpolate(gettext("Double-%(n)s"), { n: String(preset.set_max) });
  const hands = preset.rounds ? interpolate(ngettext("%(count)s hand", "%(count)s hands", preset.rounds), { count: preset.rounds }) : gettext("all hands");
  return `${set} · ${hands}`;
}

export function quickPlayPanel() {
  const state = { presets: [], seek: null, myRating: 0, timer: null, stop: null };
  const presetSelect = h("select", { id: "quick-preset", name: "preset" }, h("option", { value: "double-6-quick" }, gettext("Loading…")));
  const players = h("input", { id: "quick-players", name: "players", type: "number", inputmode: "numeric", min: 2, max: 8, value: 2 });
  const rated = h("input", { id: "quick-rated", type: "checkbox", checked: true });
  const form = h(
    "form",
    { id: "quick-form", class: "form", novalidate: true },
    h(
      "div",
      { class: "grid-2" },
      h("div", { class: "field" }, h("label", { for: "quick-preset" }, gettext("Game")), presetSelect),
      h("div", { class: "field" }, h("label", { for: "quick-players" }, gettext("Players")), players),
    ),
    h("div", { class: "field field-check" }, rated, h("label", { for: "quick-rated" }, gettext("Rated (changes the ratings)"))),
    h("p", { class: "hint" }, gettext("You are seated with players who chose the same; if nobody comes within a minute, bots take the empty seats.")),
    h("div", { class: "actions" }, h("button", { type: "submit", id: "quick-submit", class: "primary" }, gettext("Quick play"))),
  );
  const waitingBox = h("div", { "data-testid": "seek-waiting", hidden: true });
  const section = h(
    "section",
    { id: "quick-play", class: "panel", "data-testid": "quick-play", "data-state": "idle", "aria-labelledby": "quick-title" },
    h("h2", { id: "quick-title" }, gettext("Quick play")),
    form,
    waitingBox,
  );

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const seek = await busy(form, () =>
      api.createSeek({ preset: presetSelect.value, players: Number(players.value) || 2, rated: rated.checked }),
    );
    if (seek) show(seek);
  });

  function limits() {
    const preset = state.presets.find((p) => p.name === presetSelect.value);
    if (preset) players.max = String(preset.max_players);
  }
  presetSelect.addEventListener("change", limits);

  async function loadRating(seek) {
    const account = api.currentUser();
    if (!account || !seek.rated) return;
    try {
      const ratings = await api.getPlayerRatings(account.username);
      const pool = ratings.pools.find((p) => p.pool === poolOf(seek.players));
      state.myRating = pool ? pool.rating : 0;
    } catch {
      state.myRating = 0; // no rating yet: the matcher uses 0 too
    }
    tick();
  }

  function tick() {
    const seek = state.seek;
    if (!seek) return;
    const waited = Math.max(0, (Date.now() - new Date(seek.created_at).getTime()) / 1000);
    const elapsed = waitingBox.querySelector("[data-testid=seek-elapsed]");
    if (elapsed) elapsed.textContent = interpolate(gettext("Waiting for %(seconds)s s"), { seconds: Math.floor(waited) });
    const windowLine = waitingBox.querySelector("[data-testid=seek-window]");
    if (windowLine && seek.rating_window) {
      const w = seek.rating_window;
      const width = Math.min(w.base + w.per_second * waited, w.most);
      const fmt = (v) => formatNumber(v, { maximumFractionDigits: 1 });
      windowLine.textContent = interpolate(gettext("Players rated %(low)s to %(high)s (yours: %(rating)s), widening as you wait"), {
        low: fmt(state.myRating - width),
        high: fmt(state.myRating + width),
        rating: fmt(state.myRating),
      });
    }
  }

  function show(seek) {
    if (seek.status === "matched" && seek.game) {
      clear();
      notify(interpolate(gettext("Seated at table %(id)s."), { id: String(seek.game) }));
      navigate(`/games/${seek.game}/`);
      return;
    }
    if (seek.status !== "waiting") {
      const had = state.seek && state.seek.id === seek.id;
      clear();
      if (had && seek.status === "expired") notify(gettext("Nobody came: the quick play ended."));
      if (had && seek.status === "cancelled" && seek.reason !== "by_player") notify(gettext("The quick play was cancelled."));
      return;
    }
    const fresh = !state.seek || state.seek.id !== seek.id;
    state.seek = seek;
    section.dataset.state = "waiting";
    form.hidden = true;
    waitingBox.hidden = false;
    waitingBox.dataset.seek = String(seek.id);
    const preset = state.presets.find((p) => p.name === seek.preset);
    replaceChildren(
      waitingBox,
      h("p", { class: "seek-title" }, h("span", { class: "spinner", "aria-hidden": "true" }), " ", gettext("Looking for players…")),
      h(
        "p",
        { class: "muted" },
        preset ? presetLabel(preset) : seek.preset,
        " · ",
        interpolate(ngettext("%(count)s player", "%(count)s players", seek.players), { count: seek.players }),
        " · ",
        seek.rated ? gettext("rated") : gettext("casual"),
      ),
      h("p", { "data-testid": "seek-elapsed" }),
      seek.rated ? h("p", { "data-testid": "seek-window" }) : h("p", { class: "muted" }, gettext("Casual: any rating.")),
      h(
        "p",
        { class: "muted" },
        seek.on_timeout === "bots"
          ? interpolate(gettext("Bots take the empty seats at %(time)s."), { time: formatDateTime(seek.expires_at, { timeStyle: "medium" }) })
          : interpolate(gettext("The wait ends at %(time)s."), { time: formatDateTime(seek.expires_at, { timeStyle: "medium" }) }),
      ),
      h(
        "div",
        { class: "actions" },
        h(
          "button",
          {
            type: "button",
            id: "quick-cancel",
            class: "ghost danger",
            onclick: async (e) => {
              const done = await busy(e.currentTarget, () => api.cancelSeek(seek.id));
              if (done) show(done);
            },
          },
          gettext("Cancel"),
        ),
      ),
    );
    if (fresh) {
      loadRating(seek);
      const cancel = waitingBox.querySelector("#quick-cancel");
      if (cancel) cancel.focus();
    }
    clearInterval(state.timer);
    state.timer = setInterval(tick, 1000);
    tick();
  }

  function clear() {
    clearInterval(state.timer);
    state.seek = null;
    section.dataset.state = "idle";
    form.hidden = false;
    waitingBox.hidden = true;
    replaceChildren(waitingBox);
  }

  api
    .listPresets()
    .then((presets) => {
      state.presets = presets;
      const chosen = presetSelect.value;
      replaceChildren(presetSelect, presets.map((p) => h("option", { value: p.name, title: p.description }, presetLabel(p))));
      presetSelect.value = presets.some((p) => p.name === chosen) ? chosen : presets[0].name;
      limits();
    })
    .catch(() => {});

  const unsubscribe = onAccountFrame((type, data) => {
    if (type === "snapshot") {
      const waiting = (data.seeks || []).find((s) => s.status === "waiting");
      if (waiting) show(waiting);
      else if (state.seek) clear();
    } else if (type.startsWith("seek_")) {
      show(data);
    }
  });

  return {
    element: section,
    stop() {
      clearInterval(state.timer);
      unsubscribe();
    },
  };
}
