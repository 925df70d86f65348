// "Your account" (/account/): the profile, warnings and sanctions (js/sanctions.js),
// change the password, the second factor (an authenticator app), the signed-in devices with "Sign out", download my data,
// delete the account. docs/account.md says what deleting keeps and removes.
//
// While the page is open it follows the account stream (GET /me/stream/): a device
// signed out elsewhere (its token revoked) has its stream closed by the server; the
// page then asks GET /me/ at once, whose 401 signs this browser out (api.js), and
// the page goes to the log-in page. A new warning redraws the standing.
//
// Test hooks (ids / data-testid): #account-page; password form #password-form with
// #password-current, #password-new, #password-new2, #password-revoke (checkbox),
// #password-submit; device-list > li[data-token] (data-current="true" for this one)
// with device-revoke buttons; #data-download; delete form #delete-form with
// #delete-password, #delete-confirm (checkbox), #delete-submit; account-since (the
// account's name and when it joined); account-status
// (role=status: what the last action did). The second factor: #second-factor-panel
// (data-state off / pending / on); turning it on: #second-factor-password,
// #second-factor-enable, then #second-factor-secret, #second-factor-uri,
// #second-factor-code, #second-factor-confirm, then the list #recovery-codes;
// turning it off: #second-factor-off-password, #second-factor-off-code,
// #second-factor-disable.

import * as api from "./api.js";
import { formatDate, formatDateTime, gettext, interpolate, ngettext } from "./i18n.js";
import { mountStanding } from "./sanctions.js";
import { openStream } from "./sse.js";
import { busy, clearErrors, h, navigate, notify, replaceChildren, setTitle, showError } from "./ui.js";

function field(id, label, input, hint = null) {
  if (hint) input.setAttribute("aria-describedby", `${id}-hint`);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
  );
}

function checkbox(id, label) {
  return h("div", { class: "field field-check" }, h("input", { type: "checkbox", id }), h("label", { for: id }, label));
}

/** Save `data` as a JSON file named `filename` (a download, nothing leaves the browser). */
function saveJson(data, filename) {
  const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function renderAccount(root) {
  setTitle(gettext("Your account"));
  const account = api.currentUser();
  if (!account) {
    navigate(`/login/?next=${encodeURIComponent("/account/")}`, { replace: true });
    return undefined;
  }
  let closed = false;
  const status = h("p", { class: "account-status", "data-testid": "account-status", role: "status" });
  const say = (text) => {
    status.textContent = text;
    notify(text);
  };

  // -- profile
  const profile = h(
    "section",
    { class: "panel", "aria-labelledby": "account-heading" },
    h("h1", { id: "account-heading" }, gettext("Your account")),
    h(
      "p",
      { "data-testid": "account-since" },
      // The date as the site writes dates (formatDate: "Dec 7, 2026", "7. dets 2026"); the
      // translation puts it where its language can keep it as it is ("Liitunud: ...").
      interpolate(gettext("Signed in as %(name)s, a player since %(date)s."), {
        name: account.username,
        date: account.date_joined ? formatDate(account.date_joined) : "",
      }),
    ),
    status,
  );

  // -- warnings and sanctions
  const standing = mountStanding();

  // -- password
  const passwordForm = h(
    "form",
    { id: "password-form", class: "panel form", novalidate: true, "aria-labelledby": "password-heading" },
    h("h2", { id: "password-heading" }, gettext("Change your password")),
    field("password-current", gettext("Current password"), h("input", { id: "password-current", type: "password", autocomplete: "current-password", required: true })),
    field(
      "password-new",
      gettext("New password"),
      h("input", { id: "password-new", type: "password", autocomplete: "new-password", required: true }),
      gettext("A long passphrase is best; common or all-digit passwords are refused."),
    ),
    field("password-new2", gettext("New password again"), h("input", { id: "password-new2", type: "password", autocomplete: "new-password", required: true })),
    checkbox("password-revoke", gettext("Also sign out every other device")),
    h("div", { class: "actions" }, h("button", { id: "password-submit", type: "submit", class: "primary" }, gettext("Change password"))),
  );
  passwordForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const current = passwordForm.querySelector("#password-current");
    const next = passwordForm.querySelector("#password-new");
    const again = passwordForm.querySelector("#password-new2");
    if (!current.value || !next.value) {
      showError(gettext("Enter your current password and the new one."));
      return;
    }
    if (next.value !== again.value) {
      showError(gettext("The two new passwords differ."));
      again.focus();
      return;
    }
    const answer = await busy(passwordForm, () =>
      api.changePassword({
        current_password: current.value,
        new_password: next.value,
        revoke_other_tokens: passwordForm.querySelector("#password-revoke").checked,
      }),
    );
    if (answer) {
      passwordForm.reset();
      say(
        answer.revoked_tokens
          ? interpolate(ngettext("Password changed; %(count)s other device signed out.", "Password changed; %(count)s other devices signed out.", answer.revoked_tokens), { count: answer.revoked_tokens })
          : gettext("Password changed."),
      );
      loadDevices();
    }
  });

  // -- the second factor
  const factorPanel = h("section", { id: "second-factor-panel", class: "panel form", "aria-labelledby": "second-factor-heading" });
  const factorBody = h("div", {});
  factorPanel.append(
    h("h2", { id: "second-factor-heading" }, gettext("Two-step sign-in")),
    h("p", { class: "muted" }, gettext("With an authenticator app on your phone, signing in asks for the code it shows as well as your password.")),
    factorBody,
  );
  function factorForm(id, children, onSubmit) {
    const form = h("form", { id, novalidate: true }, ...children);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearErrors();
      await onSubmit(form);
    });
    return form;
  }
  function drawFactorOff(state = "off") {
    factorPanel.dataset.state = state;
    const form = factorForm(
      "second-factor-on-form",
      [
        field("second-factor-password", gettext("Your password"), h("input", { id: "second-factor-password", type: "password", autocomplete: "current-password", required: true })),
        h("div", { class: "actions" }, h("button", { id: "second-factor-enable", type: "submit", class: "primary" }, gettext("Turn on two-step sign-in"))),
      ],
      async (shown) => {
        const password = shown.querySelector("#second-factor-password").value;
        if (!password) {
          showError(gettext("Enter your password to confirm."));
          return;
        }
        const setup = await busy(shown, () => api.setUpSecondFactor(password));
        if (setup) drawFactorPending(setup);
      },
    );
    replaceChildren(factorBody, form);
  }
  function drawFactorPending(setup) {
    factorPanel.dataset.state = "pending";
    const form = factorForm(
      "second-factor-confirm-form",
      [
        h("p", {}, gettext("Add this account to your authenticator app: type in the key, or open the link on the phone that has the app. Then enter the code the app shows.")),
        h("p", {}, gettext("Key: "), h("code", { id: "second-factor-secret", class: "secret" }, setup.secret)),
        h("p", {}, h("a", { id: "second-factor-uri", href: setup.otpauth_uri }, gettext("Open in the authenticator app"))),
        field("second-factor-code", gettext("Code from the app"), h("input", { id: "second-factor-code", autocomplete: "one-time-code", inputmode: "numeric", required: true })),
        h("div", { class: "actions" }, h("button", { id: "second-factor-confirm", type: "submit", class: "primary" }, gettext("Confirm"))),
      ],
      async (shown) => {
        const code = shown.querySelector("#second-factor-code").value.trim();
        if (!code) {
          showError(gettext("Enter the code the app shows."));
          return;
        }
        const answer = await busy(shown, () => api.confirmSecondFactor(code));
        if (answer) {
          say(gettext("Two-step sign-in is on."));
          drawFactorOn(null, answer.recovery_codes);
        }
      },
    );
    replaceChildren(factorBody, form);
  }
  function drawFactorOn(status, codes = null) {
    factorPanel.dataset.state = "on";
    const left = status ? status.recovery_codes_left : codes.length;
    const shownCodes = codes
      ? [
          h("p", {}, gettext("Your recovery codes: each one signs you in once in place of the app (a lost phone). Keep them somewhere safe; they are shown this once.")),
          h("ul", { id: "recovery-codes", class: "recovery-codes" }, ...codes.map((code) => h("li", {}, h("code", {}, code)))),
        ]
      : [];
    const form = factorForm(
      "second-factor-off-form",
      [
        h("p", { id: "second-factor-status" }, interpolate(ngettext("Two-step sign-in is on; %(count)s recovery code left.", "Two-step sign-in is on; %(count)s recovery codes left.", left), { count: left })),
        ...shownCodes,
        field("second-factor-off-password", gettext("Your password"), h("input", { id: "second-factor-off-password", type: "password", autocomplete: "current-password", required: true })),
        field("second-factor-off-code", gettext("Code from the app, or a recovery code"), h("input", { id: "second-factor-off-code", autocomplete: "one-time-code", required: true })),
        h("div", { class: "actions" }, h("button", { id: "second-factor-disable", type: "submit" }, gettext("Turn off two-step sign-in"))),
      ],
      async (shown) => {
        const password = shown.querySelector("#second-factor-off-password").value;
        const code = shown.querySelector("#second-factor-off-code").value.trim();
        if (!password || !code) {
          showError(gettext("Enter your password and a code."));
          return;
        }
        const done = await busy(shown, async () => {
          await api.disableSecondFactor(password, code);
          return true;
        });
        if (done) {
          say(gettext("Two-step sign-in is off."));
          drawFactorOff();
        }
      },
    );
    replaceChildren(factorBody, form);
  }
  async function loadSecondFactor() {
    try {
      const status = await api.secondFactor();
      if (closed) return;
      if (status.enabled) drawFactorOn(status);
      else drawFactorOff(status.pending ? "pending-elsewhere" : "off");
    } catch (error) {
      if (error.status !== 401) showError(error);
    }
  }

  // -- devices
  const deviceList = h("ul", { class: "device-list", "data-testid": "device-list" });
  const devices = h(
    "section",
    { class: "panel", "aria-labelledby": "devices-heading" },
    h("h2", { id: "devices-heading" }, gettext("Signed-in devices")),
    h("p", { class: "muted" }, gettext("Each browser or program signed in to your account. Sign out one you do not know or no longer use.")),
    deviceList,
  );
  function deviceItem(token) {
    const revoke = h(
      "button",
      { type: "button", class: "ghost", "data-testid": "device-revoke", "data-token": token.id },
      token.current ? gettext("Sign out here") : gettext("Sign out"),
    );
    revoke.addEventListener("click", async () => {
      if (token.current) {
        await busy(revoke, () => api.logout());
        navigate("/");
        return;
      }
      const done = await busy(revoke, async () => {
        await api.revokeToken(token.id);
        return true;
      });
      if (done) {
        say(interpolate(gettext("%(name)s is signed out."), { name: token.name }));
        loadDevices();
      }
    });
    const used = token.last_used_at
      ? interpolate(gettext("last used %(when)s"), { when: formatDateTime(token.last_used_at) })
      : gettext("never used");
    return h(
      "li",
      { class: "device", "data-token": token.id, "data-current": String(Boolean(token.current)) },
      h("strong", { "data-testid": "device-name" }, token.name),
      token.current ? h("span", { class: "badge" }, gettext("this device")) : null,
      h(
        "span",
        { class: "muted" },
        " ",
        interpolate(gettext("signed in %(when)s"), { when: formatDateTime(token.created_at) }),
        ", ",
        used,
      ),
      revoke,
    );
  }
  async function loadDevices() {
    try {
      const page = await api.listTokens({ limit: 50 });
      if (!closed) replaceChildren(deviceList, ...page.results.map(deviceItem));
    } catch (error) {
      if (error.status !== 401) showError(error);
    }
  }

  // -- my data
  const download = h("button", { type: "button", id: "data-download" }, gettext("Download my data"));
  download.addEventListener("click", async () => {
    const data = await busy(download, () => api.downloadMyData());
    if (data) {
      saveJson(data, `chicken-foot-${account.username}.json`);
      say(gettext("Your data is downloaded (a JSON file)."));
    }
  });
  const dataPanel = h(
    "section",
    { class: "panel", "aria-labelledby": "data-heading" },
    h("h2", { id: "data-heading" }, gettext("Your data")),
    h("p", {}, gettext("One JSON file with everything the server holds about you: your profile, devices, games, ratings, chat messages, reports, warnings and sanctions.")),
    h("div", { class: "actions" }, download),
  );

  // -- delete
  const deleteForm = h(
    "form",
    { id: "delete-form", class: "panel form danger-zone", novalidate: true, "aria-labelledby": "delete-heading" },
    h("h2", { id: "delete-heading" }, gettext("Delete your account")),
    h("p", {}, gettext("Your ratings, chat messages, reports and warnings are deleted, and every device is signed out. Finished games stay, with your seat shown as a deleted player, so they still replay. Leave or finish your open games first. This cannot be undone.")),
    field("delete-password", gettext("Your password"), h("input", { id: "delete-password", type: "password", autocomplete: "current-password", required: true })),
    checkbox("delete-confirm", gettext("Yes, delete my account for good")),
    h("div", { class: "actions" }, h("button", { id: "delete-submit", type: "submit", class: "danger" }, gettext("Delete my account"))),
  );
  deleteForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const password = deleteForm.querySelector("#delete-password").value;
    if (!deleteForm.querySelector("#delete-confirm").checked) {
      showError(gettext("Tick the box to confirm that the account is to be deleted."));
      return;
    }
    if (!password) {
      showError(gettext("Enter your password to confirm."));
      return;
    }
    const done = await busy(deleteForm, async () => {
      await api.deleteAccount(password);
      return true;
    });
    if (done) {
      closed = true;
      notify(gettext("Your account is deleted."));
      navigate("/", { replace: true });
    }
  });

  replaceChildren(
    root,
    h("div", { id: "account-page", class: "account-page", "data-testid": "account-page" }, profile, standing.element, passwordForm, factorPanel, devices, dataPanel, deleteForm),
  );
  loadDevices();
  loadSecondFactor();

  // -- signed out elsewhere: follow it at once
  const onSession = (event) => {
    if (!closed && !event.detail) {
      closed = true;
      notify(gettext("You are signed out."));
      navigate(`/login/?next=${encodeURIComponent("/account/")}`, { replace: true });
    }
  };
  window.addEventListener("cf:session", onSession);
  const stream = openStream("/api/v1/me/stream/", {
    onFrame(type) {
      if (type === "warning_issued" || type === "warning_acknowledged" || type.startsWith("sanction_")) standing.refresh();
    },
    onStatus(state) {
      // The server closes an account's streams when its credentials change: check them now
      // (a 401 signs this browser out) rather than after the reconnection delay.
      if (state === "reconnecting" && !closed) api.me().catch(() => {});
    },
    onError() {
      if (!closed) api.me().catch(() => {});
    },
  });

  return () => {
    closed = true;
    window.removeEventListener("cf:session", onSession);
    stream.close();
  };
}
