// The table chat, on the game page (js/table.js mounts it).
//
//   const chat = mountChat({gameId});   chat.element: the panel to place
//   chat.update(game)        the Game drawn (its `you` says the channel: seated players
//                            read and write `players`, everyone else `spectators`)
//   chat.onFrame(type, data) the game stream's `chat_message` (new, or restored or approved
//                            by a moderator) / `chat_message_removed`
//   chat.destroy()
//
// The API decides who reads what (GET/POST /games/{id}/chat/): this panel only ever
// asks for the viewer's own channel. A message a moderator removed is shown as
// removed, at once when the stream says so. A message the chat's filter holds for review
// is answered with {held, detail}: the detail is shown (chat-status), not the message.
// A muted account sees why and until when (GET /me/sanctions/, and the `muted` problem's `reason` and `until`), and cannot write.
//
// Test hooks (data-testid): chat (the panel; data-channel), chat-list > li[data-message]
// (data-removed="true" once removed; .chat-text the text), chat-input, chat-send,
// chat-muted (the mute's notice: data-until), chat-status (role=alert: a refusal).

import * as api from "./api.js";
import { formatDateTime, gettext, interpolate } from "./i18n.js";
import { reportButton } from "./report.js";
import { h, replaceChildren } from "./ui.js";

const PAGE = 100;

/** The mute in force among sanctions ({kind, reason, ends_at, lifted_at}), or null. */
export function muteInForce(sanctions, now = Date.now()) {
  const mutes = (sanctions || []).filter(
    (s) => s.kind === "mute" && !s.lifted_at && (!s.ends_at || Date.parse(s.ends_at) > now),
  );
  if (!mutes.length) return null;
  return mutes.find((s) => !s.ends_at) || mutes.sort((a, b) => Date.parse(b.ends_at) - Date.parse(a.ends_at))[0];
}

/** "Muted until 6 Dec 2026, 15:00: spam" in the reader's words. */
export function muteText(reason, until) {
  const text = until
    ? interpolate(gettext("A moderator muted you until %(until)s. Reason: %(reason)s"), { until: formatDateTime(until), reason })
    : interpolate(gettext("A moderator muted you until further notice. Reason: %(reason)s"), { reason });
  return text;
}

export function mountChat({ gameId }) {
  const id = Number(gameId);
  let channel = null;
  let loaded = false;
  let destroyed = false;
  const messages = new Map(); // id -> message

  const heading = h("h2", { id: "chat-heading" }, gettext("Chat"));
  const channelNote = h("p", { class: "chat-channel muted", "data-testid": "chat-channel" });
  const list = h("ol", { class: "chat-list", "data-testid": "chat-list", "aria-live": "polite", "aria-relevant": "additions text" });
  const listBox = h("div", { class: "chat-list-box", tabindex: "0", "aria-label": gettext("Chat messages") }, list);
  const muted = h("p", { class: "chat-muted", "data-testid": "chat-muted", hidden: true });
  const status = h("p", { class: "chat-status", "data-testid": "chat-status", role: "alert" });
  const input = h("input", {
    id: `chat-input-${id}`,
    class: "chat-input",
    "data-testid": "chat-input",
    maxlength: 500,
    autocomplete: "off",
    "aria-label": gettext("Message"),
    placeholder: gettext("Write a message"),
  });
  const send = h("button", { type: "submit", class: "chat-send", "data-testid": "chat-send" }, gettext("Send"));
  const form = h("form", { class: "chat-form", novalidate: true }, input, send);
  const guest = h(
    "p",
    { class: "chat-guest muted", hidden: true },
    h("a", { href: `/login/?next=${encodeURIComponent(`/games/${id}/`)}`, "data-link": "" }, gettext("Log in to write in the chat.")),
  );
  const element = h(
    "section",
    { class: "chat", "data-testid": "chat", "aria-labelledby": "chat-heading" },
    heading,
    channelNote,
    listBox,
    muted,
    status,
    form,
    guest,
  );

  function showMute(reason, until) {
    muted.textContent = muteText(reason, until);
    muted.dataset.until = until || "";
    muted.hidden = false;
    input.disabled = true;
    send.disabled = true;
  }

  function messageItem(message) {
    const me = api.currentUser();
    const mine = me && me.username === message.author;
    const when = message.created_at ? h("time", { datetime: message.created_at, class: "chat-time" }, formatDateTime(message.created_at, { timeStyle: "short" })) : null;
    const text = message.removed
      ? h("span", { class: "chat-text is-removed" }, gettext("Removed by a moderator"))
      : h("span", { class: "chat-text" }, message.text);
    return h(
      "li",
      { class: `chat-message${message.removed ? " is-removed" : ""}${mine ? " is-mine" : ""}`, "data-message": message.id, "data-removed": String(Boolean(message.removed)) },
      h("span", { class: "chat-author" }, message.author),
      " ",
      when,
      " ",
      text,
      me && !mine && !message.removed ? reportButton({ message: message.id }, { compact: true, label: gettext("Report") }) : null,
    );
  }

  function put(message, live = false) {
    if (message.channel && message.channel !== channel) return;
    const known = messages.get(message.id);
    // A page read may be older than a removal the stream told of; only the stream restores.
    if (known && known.removed && !message.removed && !live) return;
    messages.set(message.id, message);
    const item = messageItem(message);
    const existing = list.querySelector(`li[data-message="${message.id}"]`);
    const atBottom = listBox.scrollHeight - listBox.scrollTop - listBox.clientHeight < 40;
    if (existing) existing.replaceWith(item);
    else {
      const after = [...list.children].find((li) => Number(li.dataset.message) > message.id);
      list.insertBefore(item, after || null);
    }
    if (atBottom || !existing) listBox.scrollTop = listBox.scrollHeight;
  }

  async function load() {
    loaded = true;
    try {
      const page = await api.listChat(id, { channel, limit: PAGE });
      if (destroyed) return;
      for (const message of page.messages) put(message);
    } catch (error) {
      if (!destroyed) status.textContent = error.message;
    }
  }

  async function checkMute() {
    if (!api.currentUser()) return;
    try {
      const page = await api.listSanctions();
      const mute = muteInForce(page.results);
      if (mute && !destroyed) showMute(mute.reason, mute.ends_at);
    } catch {
      // the page still works; a refused message will say why
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || !channel) return;
    status.textContent = "";
    send.disabled = true;
    try {
      const message = await api.postChat(id, { channel, text });
      input.value = "";
      if (message && message.held) status.textContent = message.detail; // it awaits a moderator's review
      else put(message);
    } catch (error) {
      if (error && error.code === "muted") showMute(error.problem.reason || "", error.problem.until || null);
      else status.textContent = error && error.message ? error.message : gettext("The message could not be sent.");
    } finally {
      if (muted.hidden) send.disabled = false;
      input.focus();
    }
  });

  function update(game) {
    const next = game && game.you ? "players" : "spectators";
    const signedIn = Boolean(api.currentUser());
    form.hidden = !signedIn;
    guest.hidden = signedIn;
    if (next === channel && loaded) return;
    channel = next;
    element.dataset.channel = channel;
    channelNote.textContent =
      channel === "players"
        ? gettext("Players' channel: only the players at this table read it.")
        : gettext("Spectators' channel: the players at this table do not read it.");
    messages.clear();
    replaceChildren(list);
    load();
  }

  function onFrame(type, data) {
    if (!data || typeof data !== "object" || data.game !== id) return;
    if (type === "chat_message") put(data, true); // new, or restored / approved by a moderator
    else if (type === "chat_message_removed") put({ ...data, removed: true }, true);
  }

  checkMute();
  return {
    element,
    update,
    onFrame,
    destroy() {
      destroyed = true;
    },
  };
}
