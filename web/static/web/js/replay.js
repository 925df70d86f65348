// The replay page: /games/<id>/replay/.
//
// renderReplay(root, {gameId}) reads the game (names, result) and its whole public
// event log (GET /events/, every page), turns it into steps with layout.js's
// replaySteps, and shows one step at a time: the layout at that step (drawBoard), what
// happened, and the scoreboard as it stood. Forward/back, first/last, jump to a hand;
// keyboard: ArrowRight/ArrowLeft, Home/End, PageDown/PageUp (next/previous hand).
// Returns a cleanup function.
//
// Selectors for tests (data-testid): replay (the <section>; data-step, data-steps,
// data-round), replay-first, replay-prev, replay-next, replay-last, replay-round
// (<select> of hands), replay-position, replay-description, replay-board ([data-tile]),
// replay-scoreboard. window.cfReplay = {steps, step, layout} mirrors what is shown.
//
// A finished game also has the analysis panel (analysis.js): the judged decisions of
// a seat as a move list with marks; at a judged step the replay shows the mark
// (replay-verdict, data-verdict) and, for a better play, *Show the better move*
// (replay-better): the board as it stood before the move, with the end the better
// tile goes on highlighted ([data-end].is-highlight).

import { analysisPanel, betterMove, MARKS, moveText, verdictName } from "./analysis.js";
import * as api from "./api.js";
import { drawBoard } from "./board.js";
import { replaySteps } from "./layout.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { setTitle, statusWord } from "./ui.js";
import { el, seatLabel } from "./table.js";

async function allEvents(id) {
  const events = [];
  let after = 0;
  for (;;) {
    const page = await api.getEvents(id, { after });
    events.push(...page.events);
    if (!page.has_more || !page.events.length) return events;
    after = page.events[page.events.length - 1].seq;
  }
}

export function renderReplay(root, { gameId }) {
  const id = Number(gameId);
  let closed = false;
  let game = null;
  let steps = [];
  let index = 0;
  let lines = [];
  let panel = null;
  let better = false;

  const status = el("p", { class: "cf-replay-status", role: "status" }, gettext("Loading the match..."));
  const alertBox = el("div", { class: "cf-alert", role: "alert", "data-testid": "replay-alert", hidden: true });
  const position = el("p", { class: "cf-replay-position", "data-testid": "replay-position", "aria-live": "polite" });
  const description = el("p", { class: "cf-replay-description", "data-testid": "replay-description" });
  const verdictText = el("span", {});
  const betterButton = el("button", { type: "button", class: "cf-action", "data-testid": "replay-better", "aria-pressed": "false" }, gettext("Show the better move"));
  betterButton.addEventListener("click", () => {
    better = !better;
    show(index, { keepBetter: true });
  });
  const verdictBox = el("p", { class: "cf-replay-verdict", "data-testid": "replay-verdict", hidden: true }, verdictText, " ", betterButton);
  const analysisBox = el("div", { class: "cf-analysis-box" });
  const button = (testid, label, text, go) =>
    el("button", { type: "button", class: "cf-action", "data-testid": testid, "aria-label": label, onclick: go }, text);
  const first = button("replay-first", gettext("First step"), gettext("« First"), () => show(0));
  const prev = button("replay-prev", gettext("Previous step"), gettext("◀ Back"), () => show(index - 1));
  const next = button("replay-next", gettext("Next step"), gettext("Forward ▶"), () => show(index + 1));
  const last = button("replay-last", gettext("Last step"), gettext("Last »"), () => show(steps.length - 1));
  const roundSelect = el("select", { "data-testid": "replay-round", id: "cf-replay-round" });
  roundSelect.addEventListener("change", () => {
    const round = Number(roundSelect.value);
    const at = steps.findIndex((s) => s.round === round);
    if (at >= 0) show(at);
  });
  const slider = el("input", { type: "range", min: "0", max: "0", value: "0", "data-testid": "replay-slider", "aria-label": gettext("Step") });
  slider.addEventListener("input", () => show(Number(slider.value)));
  const controls = el(
    "div",
    { class: "cf-replay-controls", role: "group", "aria-label": gettext("Replay controls") },
    first, prev, next, last,
    el("label", { for: "cf-replay-round", class: "cf-replay-round-label" }, gettext("Jump to hand ")),
    roundSelect,
  );
  const boardBox = el("div", { class: "cf-board-area", "data-testid": "replay-board" });
  const scoreboard = el("table", { class: "cf-scoreboard", "data-testid": "replay-scoreboard" });
  const title = el("h1", { class: "cf-table-title", id: "cf-replay-title" }, interpolate(gettext("Replay of game %(id)s"), { id }));
  const section = el(
    "section",
    { class: "cf-table cf-replay", id: "replay", "data-testid": "replay", "data-game": id, "aria-labelledby": "cf-replay-title", "data-status": "loading" },
    el("header", { class: "cf-table-head" }, title, status,
      el("p", { class: "cf-table-links" }, el("a", { href: `/games/${id}/`, "data-link": "" }, gettext("Back to the table")), " · ", el("a", { href: "/", "data-link": "" }, gettext("Lobby")))),
    alertBox,
    controls,
    el("div", { class: "cf-replay-slider" }, slider),
    position,
    description,
    verdictBox,
    el("div", { class: "cf-table-main" },
      el("div", { class: "cf-table-play" }, boardBox),
      el("aside", { class: "cf-table-side" }, el("h2", {}, gettext("Scores")), el("div", { class: "cf-scoreboard-box" }, scoreboard), analysisBox)),
  );
  root.replaceChildren(section);
  setTitle(interpolate(gettext("Replay of game %(id)s"), { id }));

  function names() {
    return (game?.game?.seats || []).map((s) => seatLabel(game, s.number));
  }

  function scoreboardAt(step) {
    const seq = step?.event?.seq ?? 0;
    const ended = steps
      .slice(0, index + 1)
      .map((s) => s.event)
      .filter((e) => e && e.type === "round_ended" && e.seq <= seq);
    const who = names();
    const head = el("thead", {}, el("tr", {}, el("th", { scope: "col" }, gettext("Hand")), ...who.map((n, i) => el("th", { scope: "col", "data-seat": i }, n))));
    const rows = ended.map((e) =>
      el("tr", { "data-round": e.data.number }, el("th", { scope: "row" }, `${e.data.number} (${e.data.starting_double})`), ...e.data.scores.map((s, i) => el("td", { "data-seat": i }, String(s)))),
    );
    const totals = ended.length ? ended[ended.length - 1].data.totals : who.map(() => 0);
    const matchEnded = step?.event?.type === "match_ended" ? step.event.data : null;
    const winners = new Set(matchEnded?.winners || []);
    const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, gettext("Total")), ...totals.map((t, i) => el("td", { "data-seat": i, class: winners.has(i) ? "cf-winner" : null }, `${t}${winners.has(i) ? " ★" : ""}`))));
    scoreboard.replaceChildren(head, el("tbody", {}, ...rows), foot);
  }

  function showVerdict(step) {
    const decision = panel ? panel.decisionAt(index) : null;
    verdictBox.hidden = !decision;
    if (!decision) {
      delete verdictBox.dataset.verdict;
      return null;
    }
    verdictBox.dataset.verdict = decision.verdict;
    const differs = betterMove(decision)?.type === "play";
    const canShow = differs && index > 0 && steps[index - 1].layout && steps[index - 1].round === step.round;
    betterButton.hidden = !canShow;
    betterButton.setAttribute("aria-pressed", better && canShow ? "true" : "false");
    betterButton.textContent = better && canShow ? gettext("Show the move played") : gettext("Show the better move");
    let text = `${MARKS[decision.verdict]} ${verdictName(decision.verdict)}: ` +
      interpolate(gettext("%(points)s expected points (best %(best)s)."), { points: decision.played_points, best: decision.best_points });
    if (differs) text += " " + interpolate(gettext("Better: %(move)s."), { move: moveText(decision.best) });
    if (better && canShow) text += " " + gettext("The board shows the position before the move; the better move's end is highlighted.");
    verdictText.textContent = text;
    return better && canShow ? decision : null;
  }

  function show(at, { keepBetter = false } = {}) {
    if (!steps.length) return;
    if (!keepBetter) better = false;
    index = Math.max(0, Math.min(steps.length - 1, at));
    const step = steps[index];
    section.dataset.step = index;
    section.dataset.round = step.round ?? "";
    slider.value = String(index);
    first.disabled = prev.disabled = index === 0;
    next.disabled = last.disabled = index === steps.length - 1;
    if (step.round !== undefined && step.round !== null) roundSelect.value = String(step.round);
    position.textContent = step.round
      ? interpolate(gettext("Step %(step)s of %(steps)s · hand %(round)s"), { step: index + 1, steps: steps.length, round: step.round })
      : interpolate(gettext("Step %(step)s of %(steps)s"), { step: index + 1, steps: steps.length });
    description.textContent = lines[index] || step.description || "";
    const shown = showVerdict(step);
    if (shown) {
      drawBoard(boardBox, steps[index - 1].layout, { arms: game?.game?.ruleset?.spinner_arms, highlightEnds: new Set([shown.best.end]) });
    } else if (step.layout) {
      drawBoard(boardBox, step.layout, { arms: game?.game?.ruleset?.spinner_arms, lastTile: step.lastTile || undefined });
    } else {
      boardBox.replaceChildren(el("p", { class: "cf-board-empty" }, gettext("No tiles on the table yet.")));
    }
    scoreboardAt(step);
    window.cfReplay = { steps: steps.length, step: index, layout: step.layout || null };
  }

  function onKey(event) {
    const tag = event.target?.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = {
      ArrowRight: () => show(index + 1),
      ArrowLeft: () => show(index - 1),
      Home: () => show(0),
      End: () => show(steps.length - 1),
      PageDown: () => {
        const at = steps.findIndex((s, i) => i > index && s.round > (steps[index].round ?? 0));
        show(at >= 0 ? at : steps.length - 1);
      },
      PageUp: () => {
        const round = steps[index].round ?? 0;
        const start = steps.findIndex((s) => s.round === round);
        const target = index > start ? start : steps.findIndex((s) => s.round === round - 1);
        show(target >= 0 ? target : 0);
      },
    };
    if (moves[event.key]) {
      event.preventDefault();
      moves[event.key]();
    }
  }
  document.addEventListener("keydown", onKey);

  (async () => {
    try {
      const [g, events] = await Promise.all([api.getGame(id), allEvents(id)]);
      if (closed) return;
      game = g;
      steps = replaySteps(events, { seatName: (n) => seatLabel(game, n) });
      lines = steps.map((s) => s.description);
      section.dataset.steps = steps.length;
      section.dataset.status = g.game.status;
      slider.max = String(Math.max(0, steps.length - 1));
      const rounds = [...new Set(steps.map((s) => s.round).filter((r) => r !== undefined && r !== null && r > 0))];
      roundSelect.replaceChildren(...rounds.map((r) => el("option", { value: r }, interpolate(gettext("Hand %(number)s"), { number: r }))));
      status.textContent =
        g.game.status === "finished"
          ? interpolate(ngettext("%(steps)s steps, %(count)s hand. Use the arrow keys to step.", "%(steps)s steps, %(count)s hands. Use the arrow keys to step.", rounds.length), { steps: steps.length, count: rounds.length })
          : interpolate(gettext("This game is not over (%(status)s): the replay shows it so far."), { status: statusWord(g.game.status) });
      if (!steps.length) {
        description.textContent = gettext("Nothing has been played yet.");
        return;
      }
      show(0);
      if (g.game.status === "finished") {
        panel = analysisPanel({ gameId: id, game: g, steps, onJump: (at) => show(at === null ? index : at) });
        analysisBox.replaceChildren(panel.element);
      }
    } catch (err) {
      if (closed) return;
      status.textContent = "";
      alertBox.hidden = false;
      alertBox.replaceChildren(el("p", {}, err?.message || gettext("The match could not be loaded.")));
      section.dataset.status = "error";
    }
  })();

  return function cleanup() {
    closed = true;
    document.removeEventListener("keydown", onKey);
    if (panel) panel.cleanup();
  };
}
