// The player's standing with the moderators: warnings (acknowledged from here) and
// sanctions (mutes, suspensions) with their reason and end, and an appeal form for each
// sanction in force (one appeal per sanction; its answer when given). A sanction that
// ended is marked so, with when and how it ended (run out, lifted by a moderator, lifted
// on the appeal: GET /me/sanctions/'s ended_at and ended_how) and the appeal's answer.
// Drawn on "Your account".
//
//   const standing = mountStanding();  standing.element; standing.refresh()
//   startSanctionNotices()          app.js: a notice on every page for sanction_* frames
//   suspensionPanel(problem)        the log-in form's answer to a `suspended` refusal:
//                                   the reason, the end and an appeal form (its appeal_token)
//
// Test hooks (data-testid): standing, warning-list > li[data-warning] (data-acknowledged),
// warning-ack (button "I have read this"), sanction-list > li[data-sanction]
// (data-kind, data-in-force, data-ended-how: expired, lifted, appeal or empty while in
// force; sanction-ended "(ended)", sanction-end: its end, or when and how it ended),
// standing-empty, appeal-form (textarea appeal-text, button appeal-submit), appeal
// (data-status; appeal-answer), suspension (on the log-in page).

import { onAccountFrame } from "./accountstream.js";
import * as api from "./api.js";
import { formatDateTime, gettext, interpolate } from "./i18n.js";
import { busy, h, notify, replaceChildren, showError } from "./ui.js";

function inForce(sanction, now = Date.now()) {
  if (sanction.ended_how) return false; // the server says it ended (GET /me/sanctions/)
  return !sanction.lifted_at && (!sanction.ends_at || Date.parse(sanction.ends_at) > now);
}

function kindWord(kind) {
  return kind === "mute" ? gettext("Muted") : kind === "suspension" ? gettext("Suspended") : kind;
}

/** How a sanction ended (its `ended_how`), said to its player. */
function endingText(sanction) {
  const when = formatDateTime(sanction.ended_at);
  if (sanction.ended_how === "expired") return interpolate(gettext("Ended %(when)s: its time ran out."), { when });
  if (sanction.ended_how === "appeal") return interpolate(gettext("Ended %(when)s: a moderator lifted it on your appeal."), { when });
  return interpolate(gettext("Ended %(when)s: a moderator lifted it."), { when });
}

function sanctionEnd(sanction) {
  if (sanction.ended_how) return endingText(sanction);
  if (sanction.lifted_at) return interpolate(gettext("ended %(when)s"), { when: formatDateTime(sanction.lifted_at) });
  if (!sanction.ends_at) return gettext("until a moderator lifts it");
  return interpolate(gettext("until %(when)s"), { when: formatDateTime(sanction.ends_at) });
}

function appealStatusText(status) {
  if (status === "upheld") return gettext("Your appeal was answered: the sanction stays.");
  if (status === "lifted") return gettext("Your appeal was answered: the sanction was lifted.");
  return gettext("Your appeal was sent: a moderator who did not impose the sanction will answer it.");
}

/** An appeal as the player sees it: its text, its status, the answer when given. */
function appealView(appeal) {
  return h(
    "div",
    { class: "appeal", "data-testid": "appeal", "data-status": appeal.status },
    h("p", { class: "muted" }, appealStatusText(appeal.status)),
    h("p", { class: "standing-text" }, interpolate(gettext("You wrote: %(text)s"), { text: appeal.text })),
    appeal.answer
      ? h("p", { class: "standing-text", "data-testid": "appeal-answer" }, interpolate(gettext("The moderator's answer: %(answer)s"), { answer: appeal.answer }))
      : null,
  );
}

/** A form that appeals against one sanction: `send(text)` makes the appeal; `done(appeal)` follows. */
function appealForm(idPrefix, send, done) {
  const text = h("textarea", { id: `${idPrefix}-text`, name: "text", rows: "3", maxlength: "2000", required: true, "data-testid": "appeal-text" });
  const form = h(
    "form",
    { class: "appeal-form", "data-testid": "appeal-form", novalidate: true },
    h("label", { for: `${idPrefix}-text` }, gettext("Why should it be lifted? (for the moderators)")),
    text,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "ghost", "data-testid": "appeal-submit" }, gettext("Appeal"))),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const written = text.value.trim();
    if (!written) {
      showError(gettext("Write why the sanction should be lifted."));
      text.focus();
      return;
    }
    const appeal = await busy(form, () => send(written));
    if (appeal) {
      notify(gettext("Your appeal was sent."));
      done(appeal);
    }
  });
  return form;
}

/** What a sanction frame tells the player, as a notice (null: nothing to say). */
function sanctionNotice(type, sanction) {
  const reason = sanction.reason;
  if (type === "sanction_imposed") {
    const end = sanction.ends_at ? formatDateTime(sanction.ends_at) : null;
    if (sanction.kind === "suspension") {
      return end
        ? interpolate(gettext("A moderator suspended your account until %(when)s: %(reason)s"), { when: end, reason })
        : interpolate(gettext("A moderator suspended your account until they lift it: %(reason)s"), { reason });
    }
    return end
      ? interpolate(gettext("A moderator muted you until %(when)s: %(reason)s"), { when: end, reason })
      : interpolate(gettext("A moderator muted you until they lift it: %(reason)s"), { reason });
  }
  if (type === "sanction_lifted") {
    return sanction.kind === "suspension" ? gettext("Your suspension has ended.") : gettext("Your mute has ended: you can write in the chat again.");
  }
  if (type === "sanction_appealed" && sanction.appeal && sanction.appeal.status !== "open") {
    return appealStatusText(sanction.appeal.status);
  }
  return null;
}

/** A notice on every page when a sanction is imposed, lifted, or its appeal answered. */
export function startSanctionNotices() {
  onAccountFrame((type, data) => {
    if (!type.startsWith("sanction_")) return;
    const text = sanctionNotice(type, data);
    if (text) notify(text);
    window.dispatchEvent(new CustomEvent("cf:sanction", { detail: { type, sanction: data } }));
  });
}

/** The log-in form's answer to a `suspended` refusal (its problem: reason, until,
 * sanction, appeal_token): why, until when, and an appeal form. */
export function suspensionPanel(problem) {
  const end = problem.until
    ? interpolate(gettext("Your account is suspended until %(when)s."), { when: formatDateTime(problem.until) })
    : gettext("Your account is suspended until a moderator lifts it.");
  const panel = h(
    "section",
    { class: "panel standing", "data-testid": "suspension", role: "status", "aria-labelledby": "suspension-heading" },
    h("h2", { id: "suspension-heading" }, gettext("Suspended")),
    h("p", { class: "standing-end" }, end),
    h("p", { class: "standing-text" }, interpolate(gettext("Reason: %(reason)s"), { reason: problem.reason || "" })),
  );
  if (problem.appeal_token) {
    const form = appealForm("suspension-appeal", (text) => api.appealWithToken(problem.appeal_token, text), (appeal) => form.replaceWith(appealView(appeal)));
    panel.append(form);
  }
  return panel;
}

export function mountStanding() {
  const warnings = h("ul", { class: "standing-list", "data-testid": "warning-list" });
  const sanctions = h("ul", { class: "standing-list", "data-testid": "sanction-list" });
  const empty = h("p", { class: "muted", "data-testid": "standing-empty", hidden: true }, gettext("No warnings and no sanctions: thank you for playing fair."));
  const element = h(
    "section",
    { class: "panel standing", "data-testid": "standing", "aria-labelledby": "standing-heading" },
    h("h2", { id: "standing-heading" }, gettext("Warnings and sanctions")),
    empty,
    warnings,
    sanctions,
  );

  function warningItem(warning) {
    const read = Boolean(warning.acknowledged_at);
    const ack = h("button", { type: "button", class: "ghost", "data-testid": "warning-ack" }, gettext("I have read this"));
    ack.addEventListener("click", async () => {
      ack.disabled = true;
      try {
        await api.acknowledgeWarning(warning.id);
        await refresh();
      } catch (error) {
        ack.disabled = false;
        showError(error);
      }
    });
    return h(
      "li",
      { class: `standing-item${read ? "" : " is-new"}`, "data-warning": warning.id, "data-acknowledged": String(read) },
      h("strong", {}, gettext("Warning")),
      " ",
      h("time", { datetime: warning.created_at }, formatDateTime(warning.created_at)),
      h("p", { class: "standing-text" }, warning.text),
      read ? h("p", { class: "muted" }, interpolate(gettext("Read %(when)s"), { when: formatDateTime(warning.acknowledged_at) })) : ack,
    );
  }

  function sanctionItem(sanction) {
    const active = inForce(sanction);
    const item = h(
      "li",
      {
        class: `standing-item${active ? " is-active" : " is-ended"}`,
        "data-sanction": sanction.id,
        "data-kind": sanction.kind,
        "data-in-force": String(active),
        "data-ended-how": sanction.ended_how || "",
      },
      h("strong", {}, kindWord(sanction.kind)),
      " ",
      active ? null : h("span", { class: "standing-ended", "data-testid": "sanction-ended" }, gettext("(ended)")),
      active ? null : " ",
      h("span", { class: "standing-end", "data-testid": "sanction-end" }, sanctionEnd(sanction)),
      h("p", { class: "standing-text" }, interpolate(gettext("Reason: %(reason)s"), { reason: sanction.reason })),
    );
    if (sanction.appeal) {
      item.append(appealView(sanction.appeal));
    } else if (active) {
      const form = appealForm(`appeal-${sanction.id}`, (text) => api.appealSanction(sanction.id, text), (appeal) => form.replaceWith(appealView(appeal)));
      item.append(form);
    }
    return item;
  }

  async function refresh() {
    try {
      const [w, s] = await Promise.all([api.listWarnings({ limit: 50 }), api.listSanctions({ limit: 50 })]);
      replaceChildren(warnings, ...w.results.map(warningItem));
      replaceChildren(sanctions, ...s.results.map(sanctionItem));
      empty.hidden = Boolean(w.results.length || s.results.length);
    } catch (error) {
      if (error.status !== 401) showError(error);
    }
  }

  refresh();
  return { element, refresh };
}
