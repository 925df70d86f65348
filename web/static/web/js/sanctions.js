// The player's standing with the moderators: warnings (acknowledged from here) and
// sanctions (mutes, suspensions) with their reason and end. Drawn on "Your account".
//
//   const standing = mountStanding();  standing.element; standing.refresh()
//
// Test hooks (data-testid): standing, warning-list > li[data-warning] (data-acknowledged),
// warning-ack (button "I have read this"), sanction-list > li[data-sanction]
// (data-kind, data-in-force), standing-empty.

import * as api from "./api.js";
import { formatDateTime, gettext, interpolate } from "./i18n.js";
import { h, replaceChildren, showError } from "./ui.js";

function inForce(sanction, now = Date.now()) {
  return !sanction.lifted_at && (!sanction.ends_at || Date.parse(sanction.ends_at) > now);
}

function kindWord(kind) {
  return kind === "mute" ? gettext("Muted") : kind === "suspension" ? gettext("Suspended") : kind;
}

function sanctionEnd(sanction) {
  if (sanction.lifted_at) return interpolate(gettext("ended %(when)s"), { when: formatDateTime(sanction.lifted_at) });
  if (!sanction.ends_at) return gettext("until a moderator lifts it");
  return interpolate(gettext("until %(when)s"), { when: formatDateTime(sanction.ends_at) });
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
    return h(
      "li",
      { class: `standing-item${active ? " is-active" : ""}`, "data-sanction": sanction.id, "data-kind": sanction.kind, "data-in-force": String(active) },
      h("strong", {}, kindWord(sanction.kind)),
      " ",
      h("span", { class: "standing-end" }, sanctionEnd(sanction)),
      h("p", { class: "standing-text" }, interpolate(gettext("Reason: %(reason)s"), { reason: sanction.reason })),
    );
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
