// "Report": a player, a game or a chat message, to the moderators (POST /reports/).
//
//   reportButton({account: "bob"} | {game: 7} | {message: 12}, {label, compact})
//     -> a <button data-testid="report-button" data-target="account:bob">; activating it
//        opens a dialog (<dialog data-testid="report-dialog">) with the reason
//        (select [data-testid=report-reason]), what happened (textarea
//        [data-testid=report-text]) and "Send report" ([data-testid=report-send]).
//        The report's answer ("Report sent") or problem (already reported, ...) shows
//        in the dialog ([data-testid=report-status], role=status / role=alert).
// Needs a signed-in account: for a guest the button links to the log-in page.

import * as api from "./api.js";
import { gettext } from "./i18n.js";
import { h, notify } from "./ui.js";

/** The reasons of the contract (ReportReason), with what people read. */
export function reportReasons() {
  return [
    ["abuse", gettext("Abuse or harassment")],
    ["cheating", gettext("Cheating (help, collusion, a bot passed off as a person)")],
    ["spam", gettext("Spam or advertising")],
    ["stalling", gettext("Stalling or leaving games")],
    ["offensive_name", gettext("Offensive username")],
    ["other", gettext("Other")],
  ];
}

function targetKey(target) {
  if (target.account !== undefined) return `account:${target.account}`;
  if (target.game !== undefined) return `game:${target.game}`;
  return `message:${target.message}`;
}

function dialogTitle(target) {
  if (target.account !== undefined) return gettext("Report a player");
  if (target.game !== undefined) return gettext("Report this game");
  return gettext("Report a chat message");
}

/** Open the report dialog for `target`; `returnFocus` gets the focus back when it closes. */
export function openReportDialog(target, returnFocus = null) {
  const status = h("p", { class: "report-status", "data-testid": "report-status", role: "status" });
  const reason = h(
    "select",
    { id: "report-reason", name: "reason", required: true, "data-testid": "report-reason" },
    ...reportReasons().map(([value, label]) => h("option", { value }, label)),
  );
  const text = h("textarea", {
    id: "report-text",
    name: "text",
    rows: 3,
    maxlength: 2000,
    "data-testid": "report-text",
    placeholder: gettext("What happened? (optional, for the moderators)"),
  });
  const send = h("button", { type: "submit", class: "primary", "data-testid": "report-send" }, gettext("Send report"));
  const cancel = h("button", { type: "button", class: "ghost", "data-testid": "report-cancel" }, gettext("Cancel"));
  const form = h(
    "form",
    { method: "dialog", class: "form" },
    h("h2", {}, dialogTitle(target)),
    h("p", { class: "muted" }, gettext("The moderators see your report; the player is never told who reported.")),
    h("div", { class: "field" }, h("label", { for: "report-reason" }, gettext("Reason")), reason),
    h("div", { class: "field" }, h("label", { for: "report-text" }, gettext("What happened")), text),
    status,
    h("div", { class: "actions" }, send, cancel),
  );
  const dialog = h("dialog", { class: "report-dialog panel", "data-testid": "report-dialog", "data-target": targetKey(target) }, form);
  const close = () => {
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (returnFocus && returnFocus.isConnected) returnFocus.focus();
  });
  cancel.addEventListener("click", close);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    send.disabled = true;
    status.setAttribute("role", "status");
    status.classList.remove("is-error");
    try {
      await api.createReport({ ...target, reason: reason.value, text: text.value.trim() });
      status.textContent = gettext("Report sent. Thank you: a moderator will look at it.");
      dialog.dataset.sent = "true";
      notify(gettext("Report sent."));
      send.hidden = true;
      cancel.textContent = gettext("Close");
      cancel.focus();
    } catch (error) {
      status.setAttribute("role", "alert");
      status.classList.add("is-error");
      status.textContent = error && error.message ? error.message : gettext("The report could not be sent.");
      send.disabled = false;
    }
  });
  document.body.appendChild(dialog);
  dialog.showModal();
  reason.focus();
  return dialog;
}

/** A "Report" button for `target` ({account} | {game} | {message}). */
export function reportButton(target, { label = null, compact = false } = {}) {
  const text = label || gettext("Report");
  if (!api.currentUser()) {
    const here = window.location.pathname;
    return h(
      "a",
      { href: `/login/?next=${encodeURIComponent(here)}`, "data-link": "", class: "report-link", "data-testid": "report-login" },
      text,
    );
  }
  const button = h(
    "button",
    {
      type: "button",
      class: compact ? "report-button is-compact" : "report-button ghost",
      "data-testid": "report-button",
      "data-target": targetKey(target),
      title: dialogTitle(target),
    },
    text,
  );
  button.addEventListener("click", () => openReportDialog(target, button));
  return button;
}
