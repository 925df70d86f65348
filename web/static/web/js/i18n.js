// Every word a person reads goes through these helpers, so that `manage.py
// makemessages -d djangojs` finds it and the Estonian catalogue can translate it.
//
//   import { gettext, ngettext, pgettext, interpolate } from (quoted) ./i18n.js;
//   gettext("Quick play")
//   interpolate(ngettext("%(count)s player", "%(count)s players", n), { count: n })
//
// Write the message as one string literal (no template literal, no concatenation):
// xgettext extracts only literals. Machine fields (problem codes, event names) are
// never passed through these.
//
// The catalogue is Django's JavaScript catalogue (the djangojs domain), loaded by
// index.html as a classic script before the modules run; it defines the global
// `django`. Without it (or for a message it lacks) the English source is shown.

function catalogue() {
  const django = globalThis.django;
  return django && typeof django.gettext === "function" ? django : null;
}

export function gettext(msgid) {
  const django = catalogue();
  return django ? django.gettext(msgid) : msgid;
}

export function ngettext(singular, plural, count) {
  const django = catalogue();
  if (django) return django.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

export function pgettext(context, msgid) {
  const django = catalogue();
  return django && typeof django.pgettext === "function" ? django.pgettext(context, msgid) : msgid;
}

// Fills `%(name)s` (and `%(name)d`) placeholders from `params`; numbers are
// written in the reader's locale.
export function interpolate(format, params = {}) {
  return format.replace(/%\((\w+)\)[sd]/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

// The page's language ("et", "en"): the server sets <html lang> from the
// reader's choice or Accept-Language.
export function language() {
  return document.documentElement.lang || "en";
}

export function formatNumber(value, options = {}) {
  return new Intl.NumberFormat(language(), options).format(value);
}

export function formatDateTime(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  const date = value instanceof Date ? value : new Date(value);
  return new Intl.DateTimeFormat(language(), options).format(date);
}

export function formatDate(value, options = { dateStyle: "medium" }) {
  return formatDateTime(value, options);
}
