/* Keyboard shortcuts of the moderation pages (documented on each page), and the
   canned texts of the report form. A file, not inline: the Content-Security-Policy
   allows no inline script.

   The report queue: j / k move to the next / previous row, Enter or o opens it,
   x ticks its box. The replay: ArrowLeft / ArrowRight step back and forward,
   Home / End go to the deal and the end. Keys typed into a field are left alone. */
(function () {
  "use strict";

  function typing(event) {
    var target = event.target;
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  function follow(id) {
    var link = document.getElementById(id);
    if (link && link.href) {
      window.location.href = link.href;
      return true;
    }
    return false;
  }

  function queue() {
    var rows = Array.prototype.slice.call(document.querySelectorAll("#result_list tbody tr"));
    if (!rows.length) return;
    var current = -1;
    function show(index) {
      if (current >= 0) rows[current].classList.remove("cf-key-current");
      current = Math.max(0, Math.min(rows.length - 1, index));
      rows[current].classList.add("cf-key-current");
      rows[current].scrollIntoView({ block: "nearest" });
    }
    document.addEventListener("keydown", function (event) {
      if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "j") {
        show(current + 1);
      } else if (event.key === "k") {
        show(current < 0 ? 0 : current - 1);
      } else if ((event.key === "Enter" || event.key === "o") && current >= 0) {
        var link = rows[current].querySelector("th a, td a");
        if (link) window.location.href = link.href;
      } else if (event.key === "x" && current >= 0) {
        var box = rows[current].querySelector("input.action-select");
        if (box) box.click();
      } else {
        return;
      }
      event.preventDefault();
    });
  }

  function replay() {
    document.addEventListener("keydown", function (event) {
      if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      var ids = { ArrowLeft: "replay-back", ArrowRight: "replay-forward", Home: "replay-first", End: "replay-end" };
      if (ids[event.key] && follow(ids[event.key])) event.preventDefault();
    });
  }

  function canned() {
    var select = document.querySelector("select[data-canned]");
    if (!select) return;
    select.addEventListener("change", function () {
      var text = select.getAttribute("data-text-" + select.value);
      var field = document.getElementById(select.getAttribute("data-canned"));
      if (text && field) field.value = text;
    });
  }

  function start() {
    if (document.getElementById("result_list") && document.getElementById("queue-keys")) queue();
    if (document.getElementById("replay-steps")) replay();
    canned();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
