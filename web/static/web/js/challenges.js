// Challenges: the lobby's "Challenge" form (a player by name, or a bot level of the
// ladder) and, on every page while signed in, a notice for each challenge waiting
// for my answer (Accept / Decline) and for my own waiting challenges (Cancel), all
// driven by the account stream (js/accountstream.js): no polling. When a challenge
// I am in starts, the page goes to its table.
//
// Requests: POST /challenges/, POST /challenges/{id}/accept|decline/,
// DELETE /challenges/{id}/, GET /ladder/ (the levels one may challenge).
// Test hooks: #challenge-form: #challenge-to (names, comma-separated),
//   #challenge-bot (a ladder level), #challenge-set, #challenge-rounds, #challenge-rated,
//   #challenge-submit; #challenge-notices [data-testid=challenge-notices] holding
//   [data-testid=challenge-notice][data-challenge=<id>][data-role=received|sent] with
//   buttons [data-action=accept|decline|cancel].

import * as api from "./api.js";
import { onAccountFrame } from "./accountstream.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { botLevelName, playerLink } from "./players.js";
import { busy, h, navigate, notify, replaceChildren } from "./ui.js";

const SET_SIZES = [6, 9, 12];

function rulesText(challenge) {
  const rules = challenge.ruleset;
  const parts = [
    interpolate(gettext("Double-%(n)s"), { n: String(rules.set_max) }),
    interpolate(ngettext("%(count)s player", "%(count)s players", rules.players), { count: rules.players }),
    rules.rounds ? interpolate(ngettext("%(count)s hand", "%(count)s hands", rules.rounds), { count: rules.rounds }) : gettext("all hands"),
    challenge.rated ? gettext("rated") : gettext("casual"),
  ];
  if (challenge.turn_time_limit) parts.push(interpolate(gettext("%(seconds)s s a turn"), { seconds: challenge.turn_time_limit }));
  return parts.join(" · ");
}

// --- the notices (every page) ------------------------------------------------------

export function startChallengeNotices() {
  const box = h("aside", { id: "challenge-notices", class: "challenge-notices", "aria-live": "polite", "aria-label": gettext("Challenges"), "data-testid": "challenge-notices" });
  const alerts = document.getElementById("alerts");
  if (alerts && alerts.parentNode) alerts.parentNode.insertBefore(box, alerts.nextSibling);
  else document.body.prepend(box);
  const waiting = new Map(); // id -> Challenge
  const started = new Set(); // ids already followed to their table

  function draw() {
    const me = api.currentUser();
    const shown = me ? [...waiting.values()] : [];
    replaceChildren(box, shown.map(notice));
  }

  function notice(challenge) {
    const received = challenge.role === "received";
    const others = challenge.invites.filter((i) => !me(i.player.username));
    const text = received
      ? [playerLink(challenge.creator.username, { isBot: challenge.creator.is_bot }), " ", gettext("challenges you"), others.length ? [" ", gettext("with"), " ", others.map((i, n) => [n ? ", " : "", i.player.username])] : null, ": "]
      : [gettext("Your challenge to"), " ", challenge.invites.map((i, n) => [n ? ", " : "", playerLink(i.player.username, { isBot: i.player.is_bot })]), ": "];
    const buttons = received
      ? challenge.your_invite === "accepted"
        ? [h("span", { class: "muted" }, gettext("Accepted: waiting for the others."))]
        : [
            h("button", { type: "button", class: "primary", "data-action": "accept", onclick: (e) => answer(e.currentTarget, challenge, true) }, gettext("Accept")),
            h("button", { type: "button", class: "ghost", "data-action": "decline", onclick: (e) => answer(e.currentTarget, challenge, false) }, gettext("Decline")),
          ]
      : [
          h("span", { class: "muted" }, gettext("Waiting for an answer.")),
          h("button", { type: "button", class: "ghost", "data-action": "cancel", onclick: (e) => cancel(e.currentTarget, challenge) }, gettext("Cancel")),
        ];
    return h(
      "div",
      { class: ["challenge-notice", received && "received"], role: "group", "data-testid": "challenge-notice", "data-challenge": String(challenge.id), "data-role": challenge.role },
      h("p", {}, text, h("span", { class: "muted" }, rulesText(challenge))),
      h("div", { class: "actions" }, buttons),
    );
  }

  function me(username) {
    const account = api.currentUser();
    return account && account.username.toLowerCase() === username.toLowerCase();
  }

  async function answer(button, challenge, accept) {
    const result = await busy(button, () => (accept ? api.acceptChallenge(challenge.id) : api.declineChallenge(challenge.id)));
    if (result === undefined) return;
    update(result);
  }

  async function cancel(button, challenge) {
    const result = await busy(button, () => api.cancelChallenge(challenge.id));
    if (result !== undefined && result) update(result);
    else waiting.delete(challenge.id);
    draw();
  }

  function update(challenge) {
    if (challenge.status === "pending") {
      waiting.set(challenge.id, challenge);
    } else {
      const had = waiting.delete(challenge.id);
      if (challenge.status === "started" && challenge.game && !started.has(challenge.id)) {
        started.add(challenge.id);
        notify(interpolate(gettext("Challenge accepted: to table %(id)s."), { id: String(challenge.game) }));
        if (window.location.pathname !== `/games/${challenge.game}/`) navigate(`/games/${challenge.game}/`);
      } else if (had && challenge.status === "declined") {
        notify(gettext("The challenge was declined."));
      } else if (had && challenge.status === "expired") {
        notify(gettext("The challenge expired."));
      } else if (had && challenge.status === "cancelled" && challenge.role === "received") {
        notify(gettext("The challenge was cancelled."));
      }
    }
    draw();
  }

  onAccountFrame((type, data) => {
    if (type === "snapshot") {
      waiting.clear();
      for (const challenge of data.challenges || []) waiting.set(challenge.id, challenge);
      draw();
    } else if (type.startsWith("challenge_")) {
      update(data);
    }
  });
  window.addEventListener("cf:session", () => {
    waiting.clear();
    draw();
  });
}

// --- the form (lobby) ----------------------------------------------------------------

/** The "Challenge" panel; `levels`: [{username, level}] of the ladder's server bots. */
export function challengePanel({ levels = [], strongest = null, ratedDefault = false } = {}) {
  const to = h("input", { id: "challenge-to", name: "to", autocomplete: "off", placeholder: gettext("e.g. alice, bob"), "aria-describedby": "challenge-to-hint" });
  const bot = h(
    "select",
    { id: "challenge-bot", name: "bot" },
    h("option", { value: "" }, gettext("No bot")),
    levels.map((l) => h("option", { value: l.username }, l.level === strongest ? interpolate(gettext("%(name)s, the strongest"), { name: botLevelName(l.level) }) : botLevelName(l.level))),
  );
  const form = h(
    "form",
    { id: "challenge-form", class: "form", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "challenge-to" }, gettext("Players to challenge")), to, h("p", { class: "hint", id: "challenge-to-hint" }, gettext("Their names, separated by commas."))),
    h("div", { class: "field" }, h("label", { for: "challenge-bot" }, gettext("And a bot of the ladder")), bot),
    h(
      "div",
      { class: "grid-2" },
      h("div", { class: "field" }, h("label", { for: "challenge-set" }, gettext("Set")), h("select", { id: "challenge-set", value: "6" }, SET_SIZES.map((n) => h("option", { value: String(n) }, interpolate(gettext("Double-%(n)s"), { n: String(n) }))))),
      h("div", { class: "field" }, h("label", { for: "challenge-rounds" }, gettext("Hands")), h("input", { id: "challenge-rounds", type: "number", inputmode: "numeric", min: 1, max: 13, placeholder: gettext("all") })),
    ),
    h("div", { class: "field field-check" }, h("input", { type: "checkbox", id: "challenge-rated", checked: ratedDefault }), h("label", { for: "challenge-rated" }, gettext("Rated (changes the ratings)"))),
    h("div", { class: "actions" }, h("button", { type: "submit", id: "challenge-submit", class: "primary" }, gettext("Send challenge"))),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const invitees = to.value
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    if (bot.value) invitees.push(bot.value);
    if (!invitees.length) {
      to.setAttribute("aria-invalid", "true");
      to.focus();
      notify(gettext("Name a player or choose a bot to challenge."));
      return;
    }
    to.removeAttribute("aria-invalid");
    const ruleset = { set_max: Number(document.getElementById("challenge-set").value) };
    const rounds = document.getElementById("challenge-rounds").value.trim();
    if (rounds) ruleset.rounds = Number(rounds);
    const done = await busy(form, () =>
      api.createChallenge({ invitees, ruleset, rated: document.getElementById("challenge-rated").checked }),
    );
    if (done) {
      to.value = "";
      notify(gettext("Challenge sent."));
    }
  });
  return h(
    "section",
    { id: "challenge", class: "panel", "aria-labelledby": "challenge-title" },
    h("details", { class: "create" }, h("summary", {}, h("h2", { id: "challenge-title" }, gettext("Challenge"))), form),
  );
}
