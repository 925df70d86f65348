// The analysis panel of the replay page (replay.js): a finished game's decisions of one
// seat judged by the server (POST/GET /games/{id}/analysis/, docs/bots.md "Game
// analysis").
//
// analysisPanel({gameId, game, steps, onJump}) -> {element, decisionAt(stepIndex), cleanup}
//   element      the panel: a seat <select>, *Analyse*, the progress while it runs, the
//                summary (accuracy, counts) and the move list: each decision of the seat
//                with its mark, the move played and the better one; a click jumps to
//                that step (onJump(stepIndex)).
//   decisionAt   the decision played at a replay step (or null): replay.js shows its
//                mark beside the step and the better move on the board.
//
// Marks: good ✓, inaccuracy ?!, mistake ?, blunder ??.
//
// Progress comes on the account stream (js/accountstream.js): its `analysis_progress`
// frames (and the snapshot's `analyses`) move the status line; the one GET for the
// result follows the frame that says done (or failed). The page polls only while the
// stream is down (connecting, reconnecting, closed): every SLOW_POLL_MS; when the
// stream comes back, one GET catches up with what it may have missed.
//
// Selectors for tests (data-testid): analysis (the panel; data-status, data-seat),
// analysis-seat, analysis-request, analysis-status, analysis-summary, analysis-moves
// (<ol>; each <li data-move-number data-verdict data-step> holds a button).

import * as api from "./api.js";
import { onAccountFrame, onAccountStatus } from "./accountstream.js";
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";
import { el, seatLabel } from "./table.js";

const SLOW_POLL_MS = 5000;

export const MARKS = { good: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };

export function verdictName(verdict) {
  const names = { good: gettext("good"), inaccuracy: gettext("inaccuracy"), mistake: gettext("mistake"), blunder: gettext("blunder") };
  return names[verdict] || verdict;
}

export function moveText(move) {
  if (!move) return "";
  if (move.type === "draw") return gettext("draw");
  if (move.type === "pass") return gettext("pass");
  return interpolate(gettext("%(tile)s on %(end)s"), { tile: move.tile, end: move.end });
}

function sameMove(a, b) {
  return a && b && a.type === b.type && (a.tile || "") === (b.tile || "") && (a.end || "") === (b.end || "");
}

// A decision's loss as the page writes it: signed, at most two decimals (as the server
// rounds it): "+4.01", "+4,01".
function lossText(loss) {
  return formatNumber(loss, { signDisplay: "always", maximumFractionDigits: 2 });
}

/** The better move of a decision worth naming, or null: another move than the one played
 * that gains something as written (a loss that rounds to 0 is a tie: "better ... (+0)"
 * says nothing). The move list and the replay's verdict line both ask this. */
export function betterMove(decision) {
  if (!decision || sameMove(decision.played, decision.best)) return null;
  return Math.round(decision.loss * 100) > 0 ? decision.best : null;
}

async function moveSeqs(id) {
  const seqs = new Map();
  let after = 0;
  for (;;) {
    const page = await api.listMoves(id, { after });
    for (const move of page.moves) seqs.set(move.number, move.seq);
    if (!page.has_more || !page.moves.length) return seqs;
    after = page.moves[page.moves.length - 1].number;
  }
}

export function analysisPanel({ gameId, game, steps, onJump }) {
  const id = Number(gameId);
  let closed = false;
  let timer = null;
  let streamStatus = "closed";
  const heard = new Map(); // seat -> the stream's last word on its analysis
  let seqs = null;
  let byStep = new Map();
  const seats = game?.game?.seats || [];
  const mine = game?.you ? game.you.seat : null;
  const signedIn = Boolean(api.session());

  const seatSelect = el("select", { id: "cf-analysis-seat", "data-testid": "analysis-seat" },
    ...seats.map((s) => el("option", { value: s.number }, seatLabel(game, s.number))));
  seatSelect.value = String(mine ?? 0);
  const request = el("button", { type: "button", class: "cf-action", "data-testid": "analysis-request", hidden: true }, gettext("Analyse"));
  const statusLine = el("p", { class: "cf-analysis-status", role: "status", "data-testid": "analysis-status" });
  const summary = el("p", { class: "cf-analysis-summary", "data-testid": "analysis-summary", hidden: true });
  const list = el("ol", { class: "cf-analysis-moves", "data-testid": "analysis-moves" });
  const element = el(
    "section",
    { class: "cf-analysis", "data-testid": "analysis", "aria-labelledby": "cf-analysis-title", "data-status": "none" },
    el("h2", { id: "cf-analysis-title" }, gettext("Analysis")),
    el("p", { class: "cf-analysis-help" }, gettext("Each decision judged from that player's view at that moment: the expected points of every choice.")),
    el("p", {}, el("label", { for: "cf-analysis-seat" }, gettext("Player: ")), seatSelect, " ", request),
    statusLine,
    summary,
    list,
  );

  function seat() {
    return Number(seatSelect.value);
  }

  function stepOfMove(number) {
    const seq = seqs?.get(number);
    if (seq === undefined) return -1;
    return steps.findIndex((s) => s.event && s.event.seq === seq);
  }

  function showResult(analysis) {
    const result = analysis.result;
    byStep = new Map();
    const match = result.match;
    const counts = match.counts;
    summary.hidden = false;
    // Each count in its own ngettext: "1 blunder", "2 mistakes" (one sentence with every
    // count in the plural said "1 mistakes").
    const judged = [
      interpolate(ngettext("%(count)s blunder", "%(count)s blunders", counts.blunder), { count: counts.blunder }),
      interpolate(ngettext("%(count)s mistake", "%(count)s mistakes", counts.mistake), { count: counts.mistake }),
      interpolate(ngettext("%(count)s inaccuracy", "%(count)s inaccuracies", counts.inaccuracy), { count: counts.inaccuracy }),
      interpolate(ngettext("%(points)s point lost", "%(points)s points lost", match.points_lost), { points: match.points_lost }),
    ];
    summary.textContent = match.decisions
      ? interpolate(ngettext("Accuracy %(accuracy)s over %(count)s decision: %(judged)s.", "Accuracy %(accuracy)s over %(count)s decisions: %(judged)s.", match.decisions), {
          accuracy: formatNumber(match.accuracy / 100, { style: "percent", maximumFractionDigits: 1 }),
          count: match.decisions,
          judged: judged.join(", "),
        })
      : gettext("This player never had two choices or more: nothing to judge.");
    const items = result.decisions.map((d) => {
      const at = stepOfMove(d.move_number);
      if (at >= 0) byStep.set(at, d);
      const best = betterMove(d);
      const better = best ? " · " + interpolate(gettext("better: %(move)s (%(points)s)"), { move: moveText(best), points: lossText(d.loss) }) : "";
      const text = `${MARKS[d.verdict] || ""} ` +
        interpolate(gettext("Move %(number)s (hand %(hand)s): %(move)s, %(verdict)s"), { number: d.move_number, hand: d.hand, move: moveText(d.played), verdict: verdictName(d.verdict) }) +
        better;
      return el("li", { class: `cf-verdict-${d.verdict}`, "data-move-number": d.move_number, "data-verdict": d.verdict, "data-step": at },
        el("button", { type: "button", class: "cf-link-button", disabled: at < 0, onclick: () => onJump(at) }, text));
    });
    list.replaceChildren(...items);
    // The numbers' column as wide as the longest number (table.css): none is cut off.
    list.style.setProperty("--digits", String(String(items.length).length));
    onJump(null); // the step shown gets its mark
  }

  function pending(status) {
    return status === "queued" || status === "running";
  }

  function showStatus(analysis) {
    element.dataset.status = analysis.status;
    element.dataset.seat = String(analysis.seat);
    request.hidden = true;
    const p = analysis.progress;
    if (analysis.status === "queued") statusLine.textContent = gettext("Waiting for the analysis to start...");
    else if (analysis.status === "running") {
      statusLine.textContent = p.total === null
        ? gettext("Analysing...")
        : interpolate(gettext("Analysing: %(done)s of %(total)s decisions."), { done: p.done, total: p.total });
    } else if (analysis.status === "failed") statusLine.textContent = gettext("The analysis failed.");
    else statusLine.textContent = interpolate(gettext("Analysis of %(name)s."), { name: seatLabel(game, analysis.seat) });
  }

  // An answer of the API (POST or GET): the whole analysis, with its result once done.
  function showProgress(analysis) {
    clearTimeout(timer);
    timer = null;
    const told = heard.get(analysis.seat);
    if (pending(analysis.status) && told && !pending(told.status)) {
      // The stream told the end before this answer came: read the result (once).
      heard.delete(analysis.seat);
      load(false);
      return;
    }
    showStatus(analysis);
    if (analysis.status === "done") showResult(analysis);
    else if (pending(analysis.status)) waitForProgress();
  }

  // Waiting for the analysis: the stream's frames move it on; only without the stream,
  // the page asks again, slowly.
  function waitForProgress() {
    clearTimeout(timer);
    timer = streamStatus === "open" ? null : setTimeout(() => load(false), SLOW_POLL_MS);
  }

  function waiting() {
    return pending(element.dataset.status) && element.dataset.seat === String(seat());
  }

  // An analysis_progress frame (or an item of the snapshot's analyses): no result in it.
  function onProgress(analysis) {
    if (!analysis || Number(analysis.game) !== id) return;
    heard.set(analysis.seat, analysis);
    if (closed || analysis.seat !== seat() || !waiting()) return;
    if (pending(analysis.status)) showStatus(analysis);
    else load(false); // done or failed: the one GET for the result
  }

  function onStreamStatus(next) {
    const was = streamStatus;
    streamStatus = next;
    if (closed || !waiting()) return;
    if (next === "open" && was !== "open") load(false); // back: catch up with what was missed
    else if (next !== "open" && !timer) waitForProgress();
  }

  function reset() {
    clearTimeout(timer);
    timer = null;
    byStep = new Map();
    list.replaceChildren();
    summary.hidden = true;
    onJump(null);
  }

  async function load(asking) {
    const wanted = seat();
    try {
      if (!seqs) seqs = await moveSeqs(id);
      const analysis = asking ? await api.requestAnalysis(id, { seat: wanted }) : await api.getAnalysis(id, { seat: wanted });
      if (closed || wanted !== seat()) return;
      showProgress(analysis);
    } catch (err) {
      if (closed || wanted !== seat()) return;
      element.dataset.status = "none";
      if (err?.code === "analysis_not_requested") {
        statusLine.textContent = gettext("Nobody has analysed this player's game yet.");
        request.hidden = false;
      } else {
        statusLine.textContent = err?.message || gettext("The analysis could not be loaded.");
        request.hidden = !asking;
      }
    }
  }

  request.addEventListener("click", () => {
    request.hidden = true;
    load(true);
  });
  seatSelect.addEventListener("change", () => {
    reset();
    load(false);
  });

  const unsubscribe = [];
  if (!signedIn) {
    seatSelect.disabled = true;
    statusLine.textContent = gettext("Log in to analyse this game.");
  } else {
    unsubscribe.push(
      onAccountFrame((type, frame) => {
        if (type === "analysis_progress") onProgress(frame);
        else if (type === "snapshot") for (const item of frame?.analyses || []) onProgress(item);
      }),
      onAccountStatus(onStreamStatus),
    );
    load(false);
  }

  return {
    element,
    decisionAt: (stepIndex) => byStep.get(stepIndex) || null,
    cleanup() {
      closed = true;
      clearTimeout(timer);
      for (const stop of unsubscribe) stop();
    },
  };
}
