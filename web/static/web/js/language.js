// The language switch in the page header (web/templates/web/language_switch.html):
// a plain form that POSTs to Django's set_language view, which sets the language
// cookie and sends the browser back to `next`, so the page is drawn again in the
// chosen language. The client routes without reloading, so `next` is set here to
// the page's current address when the form is sent.
for (const form of document.querySelectorAll("form.language-switch")) {
  form.addEventListener("submit", () => {
    const next = form.querySelector('input[name="next"]');
    if (next) next.value = window.location.pathname + window.location.search + window.location.hash;
  });
}
