// Accounts: log in (/login/), register (/register/) and the header's account menu.
//
// Test hooks (ids):
//   log-in form #login-form: #login-username, #login-password, #login-remember
//     (checkbox "Remember me"), #login-submit; #login-otp (the second factor's code,
//     shown once the server answers otp_required)
//   register form #register-form: #register-username, #register-password,
//     #register-password2, #register-remember, #register-submit
//   header: #account-nav [data-testid=account-name] (the signed-in username, inside
//     [data-testid=account-link] to /account/), [data-testid=rules-link] (/rules/),
//     #logout-button, [data-testid=login-link], [data-testid=register-link]
// Problems (wrong password, name taken, weak password ...) show in #alerts (role=alert).

import * as api from "./api.js";
import { suspensionPanel } from "./sanctions.js";
import { gettext, interpolate } from "./i18n.js";
import { busy, clearErrors, h, navigate, notify, replaceChildren, setTitle, showError } from "./ui.js";

/** Where to go after signing in: `next` if it is a path of this site, else the lobby. */
function safeNext(next) {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

function field(id, label, input, hint = null) {
  const hintId = hint ? `${id}-hint` : null;
  if (hintId) input.setAttribute("aria-describedby", hintId);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
  );
}

function rememberBox(id) {
  return h(
    "div",
    { class: "field field-check" },
    h("input", { type: "checkbox", id, name: "remember" }),
    h("label", { for: id }, gettext("Remember me on this device")),
    h("p", { class: "hint", id: `${id}-hint` }, gettext("Unticked, you are signed out when you close this tab.")),
  );
}

export function renderLogin(root, { next = null } = {}) {
  setTitle(gettext("Log in"));
  const target = safeNext(next);
  if (api.currentUser()) {
    navigate(target, { replace: true });
    return undefined;
  }
  // The second factor's code: asked for once the server says the account has one.
  const otpField = field(
    "login-otp",
    gettext("Code from your authenticator app"),
    h("input", { id: "login-otp", name: "otp", autocomplete: "one-time-code", inputmode: "numeric", spellcheck: "false" }),
    gettext("The 6 digits the app shows now, or one of your recovery codes."),
  );
  otpField.hidden = true;
  const form = h(
    "form",
    { id: "login-form", class: "panel form narrow", novalidate: true },
    h("h1", {}, gettext("Log in")),
    field(
      "login-username",
      gettext("Username"),
      h("input", { id: "login-username", name: "username", autocomplete: "username", required: true, autocapitalize: "none", spellcheck: "false" }),
    ),
    field(
      "login-password",
      gettext("Password"),
      h("input", { id: "login-password", name: "password", type: "password", autocomplete: "current-password", required: true }),
    ),
    otpField,
    rememberBox("login-remember"),
    h("div", { class: "actions" }, h("button", { id: "login-submit", type: "submit", class: "primary" }, gettext("Log in"))),
    h(
      "p",
      { class: "muted" },
      gettext("No account yet? "),
      h("a", { href: `/register/${next ? `?next=${encodeURIComponent(target)}` : ""}`, "data-link": "" }, gettext("Register")),
    ),
  );
  let suspension = null; // the panel of a suspended account's refusal
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const username = form.elements.username.value.trim();
    const password = form.elements.password.value;
    if (!username || !password) {
      showError(gettext("Enter your username and password."));
      (username ? form.elements.password : form.elements.username).focus();
      return;
    }
    const otp = otpField.hidden ? "" : form.elements.otp.value.trim();
    const account = await busy(form, async () => {
      try {
        return await api.login(username, password, form.elements.remember.checked, otp);
      } catch (error) {
        if (error.code === "otp_required" || error.code === "otp_invalid") otpField.hidden = false;
        if (error.code === "suspended") {
          // The right password of a suspended account: why, until when, and an appeal form.
          const panel = suspensionPanel(error.problem);
          if (suspension) suspension.replaceWith(panel);
          else form.after(panel);
          suspension = panel;
        }
        throw error;
      }
    });
    if (account) {
      notify(interpolate(gettext("Signed in as %(name)s."), { name: account.username }));
      navigate(target, { replace: true });
    } else if (!otpField.hidden) {
      form.elements.otp.value = "";
      form.elements.otp.focus();
    } else {
      form.elements.password.focus();
    }
  });
  replaceChildren(root, form);
  form.elements.username.focus();
  return undefined;
}

export function renderRegister(root, { next = null } = {}) {
  setTitle(gettext("Register"));
  const target = safeNext(next);
  const form = h(
    "form",
    { id: "register-form", class: "panel form narrow", novalidate: true },
    h("h1", {}, gettext("Create an account")),
    field(
      "register-username",
      gettext("Username"),
      h("input", {
        id: "register-username",
        name: "username",
        autocomplete: "username",
        required: true,
        maxlength: 150,
        autocapitalize: "none",
        spellcheck: "false",
      }),
      gettext("Letters, digits and @ . + - _ only; others see it at the table."),
    ),
    field(
      "register-password",
      gettext("Password"),
      h("input", { id: "register-password", name: "password", type: "password", autocomplete: "new-password", required: true }),
      gettext("A long passphrase is best; common or all-digit passwords are refused."),
    ),
    field(
      "register-password2",
      gettext("Password again"),
      h("input", { id: "register-password2", name: "password2", type: "password", autocomplete: "new-password", required: true }),
    ),
    rememberBox("register-remember"),
    h("div", { class: "actions" }, h("button", { id: "register-submit", type: "submit", class: "primary" }, gettext("Create account"))),
    h("p", { class: "muted" }, gettext("Have an account? "), h("a", { href: "/login/", "data-link": "" }, gettext("Log in"))),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const username = form.elements.username.value.trim();
    const password = form.elements.password.value;
    if (!username || !password) {
      showError(gettext("Choose a username and a password."));
      return;
    }
    if (password !== form.elements.password2.value) {
      showError(gettext("The two passwords differ."));
      form.elements.password2.focus();
      return;
    }
    const account = await busy(form, async () => {
      await api.register(username, password);
      return api.login(username, password, form.elements.remember.checked);
    });
    if (account) {
      notify(interpolate(gettext("Welcome, %(name)s!"), { name: account.username }));
      navigate(target, { replace: true });
    }
  });
  replaceChildren(root, form);
  form.elements.username.focus();
  return undefined;
}

/** The header's account menu: who is signed in and "Log out", or the links to sign in. */
export function renderAccountNav(nav) {
  if (!nav) return;
  const account = api.currentUser();
  if (!account) {
    const here = window.location.pathname + window.location.search;
    const next = here === "/" || here.startsWith("/login/") || here.startsWith("/register/") ? "" : `?next=${encodeURIComponent(here)}`;
    replaceChildren(
      nav,
      h("a", { href: "/rules/", "data-link": "", class: "button ghost", "data-testid": "rules-link" }, gettext("How to play")),
      h("a", { href: `/login/${next}`, "data-link": "", class: "button ghost", "data-testid": "login-link" }, gettext("Log in")),
      h("a", { href: `/register/${next}`, "data-link": "", class: "button", "data-testid": "register-link" }, gettext("Register")),
    );
    return;
  }
  const logout = h(
    "button",
    {
      type: "button",
      id: "logout-button",
      class: "ghost",
      onclick: async () => {
        await busy(logout, () => api.logout());
        notify(gettext("Signed out."));
        // the lobby redraws itself for a guest; any other page goes to the lobby
        if (window.location.pathname !== "/") navigate("/");
      },
    },
    gettext("Log out"),
  );
  replaceChildren(
    nav,
    h("a", { href: "/rules/", "data-link": "", class: "button ghost", "data-testid": "rules-link" }, gettext("How to play")),
    h(
      "a",
      { href: "/account/", "data-link": "", class: "account-name", "data-testid": "account-link", title: gettext("Your account") },
      h("span", { class: "visually-hidden" }, gettext("Signed in as ")),
      h("span", { class: "avatar", "aria-hidden": "true" }, account.username.slice(0, 1).toUpperCase()),
      h("span", { "data-testid": "account-name" }, account.username),
    ),
    logout,
  );
}
