// Small DOM helpers shared by every view.
//
//   h("button", {type: "button", class: "primary", onclick: go, "data-testid": "x"}, "Go")
//   showError(error)     -> the error's message in #alerts (role=alert), with a dismiss button
//   clearErrors()
//   notify(text)         -> a polite announcement (#notices, role=status) and a short toast
//   navigate("/games/7/")  (client-side; links with data-link are routed without reload)
//   seatName(game, n)    -> "alice", "Bot (greedy)", "Seat 3 (free)"
//
// Test hooks: #alerts [data-testid=alerts] holds `.alert` items ([data-testid=alert]);
// #notices [data-testid=notices] the last announcement.
//
// Every word here is translated (js/i18n.js); dates in the page's language.

import { formatDate, formatDateTime, gettext, interpolate, language, pgettext } from "./i18n.js";

export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  let pendingValue = null;
  for (const [key, given] of Object.entries(attrs || {})) {
    const value = given;
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class" || key === "className") {
      element.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (key === "dataset") {
      Object.assign(element.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(element.style, value);
    } else if (key === "value" && "value" in element) {
      pendingValue = value; // after the children: a <select>'s options come first
    } else if (key === "checked" || key === "selected" || key === "disabled") {
      element[key] = Boolean(value);
      if (value) element.setAttribute(key, "");
    } else if (value === true) {
      element.setAttribute(key, "");
    } else {
      element.setAttribute(key, String(value));
    }
  }
  append(element, children);
  if (pendingValue !== null) element.value = pendingValue;
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.appendChild(child);
    else element.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function replaceChildren(element, ...children) {
  element.textContent = "";
  append(element, children);
  return element;
}

// --- messages ----------------------------------------------------------------------

/** Show an error (an ApiError's `detail`, or any Error's message) in the alert region. */
export function showError(error, { timeoutMs = 0 } = {}) {
  const region = document.getElementById("alerts");
  const text = typeof error === "string" ? error : (error && error.message) || gettext("Something went wrong.");
  if (error && typeof error === "object" && !(error.name === "ApiError")) console.error(error);
  if (!region) {
    console.error(text);
    return null;
  }
  const code = error && error.code ? error.code : null;
  const item = h(
    "div",
    { class: "alert", "data-testid": "alert", "data-code": code },
    h("span", { class: "alert-icon", "aria-hidden": "true" }, "!"),
    h("p", { class: "alert-text" }, text),
    h(
      "button",
      { type: "button", class: "alert-close", "aria-label": gettext("Dismiss this message"), onclick: () => item.remove() },
      "×",
    ),
  );
  // At most three messages at once: the newest first.
  region.prepend(item);
  while (region.children.length > 3) region.lastElementChild.remove();
  if (timeoutMs) setTimeout(() => item.remove(), timeoutMs);
  return item;
}

export function clearErrors() {
  const region = document.getElementById("alerts");
  if (region) region.textContent = "";
}

/** A short confirmation ("Table 7 created"): announced politely, shown for a few seconds. */
export function notify(text) {
  const region = document.getElementById("notices");
  if (region) region.textContent = text;
  let toasts = document.getElementById("toasts");
  if (!toasts) {
    toasts = h("div", { id: "toasts", class: "toasts", "aria-hidden": "true" });
    document.body.appendChild(toasts);
  }
  const toast = h("div", { class: "toast", "data-testid": "toast" }, text);
  toasts.appendChild(toast);
  setTimeout(() => toast.remove(), 3500);
}

/**
 * Run `action` (an async function) for a button or form: the control is disabled
 * meanwhile, the error (if any) shown; answers the action's result or undefined.
 */
export async function busy(control, action) {
  const controls = control instanceof HTMLFormElement ? [...control.elements] : control ? [control] : [];
  const before = controls.map((c) => c.disabled);
  controls.forEach((c) => {
    c.disabled = true;
  });
  if (control) control.setAttribute("aria-busy", "true");
  try {
    return await action();
  } catch (error) {
    showError(error);
    return undefined;
  } finally {
    controls.forEach((c, i) => {
      c.disabled = before[i];
    });
    if (control) control.removeAttribute("aria-busy");
  }
}

// --- navigation ----------------------------------------------------------------------

/** Go to a client route without reloading (js/app.js draws it). */
export function navigate(path, { replace = false } = {}) {
  if (replace) window.history.replaceState({}, "", path);
  else window.history.pushState({}, "", path);
  window.dispatchEvent(new CustomEvent("cf:navigate", { detail: { path } }));
}

/** A link to a client route (routed without reload). */
export function link(href, ...children) {
  return h("a", { href, "data-link": "" }, ...children);
}

// --- words ---------------------------------------------------------------------------

/** Who sits at seat n of a game (a GameSummary, or a Game {game: ...}). */
export function seatName(game, n) {
  const summary = game && game.game ? game.game : game;
  const seat = summary && summary.seats ? summary.seats.find((s) => s.number === n) : null;
  if (!seat) return interpolate(gettext("Seat %(number)s"), { number: n + 1 });
  if (seat.bot_strategy) {
    return seat.player && !seat.player.is_bot
      ? interpolate(gettext("%(name)s (bot %(strategy)s)"), { name: seat.player.username, strategy: levelWord(seat.bot_strategy) })
      : interpolate(gettext("Bot (%(strategy)s)"), { strategy: levelWord(seat.bot_strategy) });
  }
  if (seat.player) return seat.player.username;
  return interpolate(gettext("Seat %(number)s (free)"), { number: n + 1 });
}

/** A game's status in words (the status itself is a machine field, never translated). */
export function statusWord(status) {
  const words = {
    open: gettext("Open"),
    running: gettext("In play"),
    finished: gettext("Finished"),
    aborted: gettext("Aborted"),
  };
  return words[status] || status;
}

/** A server bot level in words ("hard" -> "hard" / "raske"); the level itself is a
 * machine field (GET /bots/ `name`), never translated: a level the client does not
 * know is shown as the server names it. */
export function levelWord(level) {
  const words = {
    random: pgettext("bot level", "random"),
    easy: pgettext("bot level", "easy"),
    greedy: pgettext("bot level", "greedy"),
    medium: pgettext("bot level", "medium"),
    strong: pgettext("bot level", "strong"),
    hard: pgettext("bot level", "hard"),
  };
  return words[level] || level;
}

// The levels from weakest to strongest, as the arena measured them (docs/bots.md:
// random, then easy < greedy < medium < hard < strong): the order the lists offer them
// in, the same in every language.
export const LEVEL_ORDER = ["random", "easy", "greedy", "medium", "hard", "strong"];

/** GET /bots/ (or anything with a level `name`) weakest first; a level the client
 * does not know (a newer server's) comes last, by its name. */
export function byStrength(bots) {
  const rank = (name) => (LEVEL_ORDER.includes(name) ? LEVEL_ORDER.indexOf(name) : LEVEL_ORDER.length);
  return [...bots].sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** "2 minutes ago", "in 20 s", or the date. */
export function relativeTime(iso) {
  if (!iso) return "";
  const then = new Date(iso);
  const seconds = Math.round((then.getTime() - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(language(), { numeric: "auto" });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, "second");
  if (abs < 3600) return format.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return format.format(Math.round(seconds / 3600), "hour");
  if (abs < 7 * 86400) return format.format(Math.round(seconds / 86400), "day");
  return formatDate(then);
}

/** A <time> element for an ISO date, relative, with the full date as its title. */
export function timeElement(iso) {
  if (!iso) return null;
  return h("time", { datetime: iso, title: formatDateTime(iso) }, relativeTime(iso));
}

/** Set the document title ("Lobby · Chicken Foot"). */
export function setTitle(text) {
  const site = gettext("Chicken Foot");
  document.title = text ? `${text} · ${site}` : site;
}
