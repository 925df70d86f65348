// The layout, rebuilt from a game's public events: pure functions, no DOM.
//
// layoutFromEvents(events) -> {round, phase, arms, layout, openEnds, lastTile, lastSeq}
//   `layout` is the current round's tree exactly as the server gives it in
//   `state.layout` (LayoutNode / LayoutOpenEnd: same fields, same `next` order, same
//   end ids, same `playable` flags) and `openEnds` exactly `state.open_ends`
//   (OpenEnd: {id, pip, playable}, in the server's order). `layout` is null before
//   the first spinner. `phase` is RoundPhase ("spinner" | "foot" | "free").
//
// replaySteps(events, {seatName}) -> [{index, seq, round, type, event, layout,
//   openEnds, phase, seat, tile, end, lastTile, description}]: one step per
//   round start, spinner placed, tile played, draw, pass, round end and match end,
//   each with the layout as it stood after that event.
//
// `events` may be the items of GET /games/{id}/events/ ({seq, type, data}), the
// `Event`s of the stream (the same shape; a whole frame {event, id, data: Event}
// will do too), or `state.history` (EventData items, `type` inside, no seq). They are read in seq order (items without a seq keep
// their place); a repeated seq is read once; unknown event types are skipped.
//
// How the server builds it (games/engine/layout.py): every open end has an id
// "e<N>" numbered in order of creation within a round. The spinner opens
// `spinner_arms` ends that must be filled first (phase "spinner"); a double played
// on an end opens three toes that must be filled next (phase "foot"); otherwise
// every open end is playable. A node's `inner` is the pip touching the end it was
// played on, `outer` the pip it shows outward.

import { gettext, interpolate } from "./i18n.js";

const MOVE_TYPES = new Set(["round_started", "spinner_placed", "tile_played", "drew", "passed", "round_ended", "match_ended"]);

/** "e12" -> 12 */
function endNumber(text) {
  return Number(String(text).slice(1));
}

/** "9-4" -> [9, 4] */
export function parseTile(text) {
  const [a, b] = String(text).split("-").map(Number);
  return [a, b];
}

/** The events as [{seq, type, data}] in seq order, each seq once. */
export function normalizeEvents(events) {
  const out = [];
  const seen = new Set();
  let position = 0;
  for (let item of events || []) {
    if (!item || typeof item !== "object") continue;
    // A stream frame as {event, id, data: Event}: the Event inside.
    if (item.data && typeof item.data === "object" && item.data.data && typeof item.data.data === "object" && item.data.type) {
      item = item.data;
    }
    const wrapped = item.data && typeof item.data === "object" && !Array.isArray(item.data);
    const data = wrapped ? item.data : item;
    const type = item.type || data.type;
    const seq = typeof item.seq === "number" ? item.seq : null;
    if (seq !== null) {
      if (seen.has(seq)) continue;
      seen.add(seq);
    }
    out.push({ seq, type, data, position: position++ });
  }
  if (out.every((e) => e.seq !== null)) out.sort((a, b) => a.seq - b.seq);
  return out.map(({ seq, type, data }) => ({ seq, type, data }));
}

/** The layout of one round, as the server's `Layout` keeps it. */
class RoundLayout {
  constructor(round) {
    this.round = round;
    this.nodes = []; // {tile, kind, seat, inner, outer, children: [end number]}
    this.ends = new Map(); // open end number -> pip, in order of creation
    this.pending = []; // end numbers that must be filled first
    this.pendingKind = null; // "spinner" | "foot" | null
    this.filledBy = new Map(); // end number -> node index
    this.arms = 0;
    this.lastTile = null; // {tile, end, seat}
  }

  placeSpinner(tile, seat, arms) {
    const [pip] = parseTile(tile);
    const ids = arms.map(endNumber);
    for (const id of ids) this.ends.set(id, pip);
    this.nodes.push({ tile, kind: "spinner", seat, inner: pip, outer: pip, children: ids });
    this.pending = ids.slice();
    this.pendingKind = "spinner";
    this.arms = ids.length;
    this.lastTile = { tile, end: null, seat };
  }

  /** Returns what the play changed: "foot_opened" | "foot_completed" | "spinner_completed" | null. */
  play(tile, endText, outer, seat, newEnds) {
    const end = endNumber(endText);
    const [high, low] = parseTile(tile);
    this.ends.delete(end);
    this.filledBy.set(end, this.nodes.length);
    let change = null;
    if (this.pending.length) {
      const at = this.pending.indexOf(end);
      if (at >= 0) this.pending.splice(at, 1);
      if (!this.pending.length) {
        change = this.pendingKind === "spinner" ? "spinner_completed" : "foot_completed";
        this.pendingKind = null;
      }
    }
    const ids = newEnds.map(endNumber);
    for (const id of ids) this.ends.set(id, outer);
    const double = high === low;
    if (double) {
      this.pending = ids.slice();
      this.pendingKind = "foot";
      change = "foot_opened";
    }
    const inner = outer === high ? low : high;
    this.nodes.push({ tile, kind: double ? "double" : "tile", seat, inner, outer, children: ids });
    this.lastTile = { tile, end: endText, seat };
    return change;
  }

  get phase() {
    return this.pendingKind || "free";
  }

  playableSet() {
    return new Set(this.pending.length ? this.pending : this.ends.keys());
  }

  tree() {
    if (!this.nodes.length) return null;
    const playable = this.playableSet();
    const slot = (end) => {
      const index = this.filledBy.get(end);
      if (index === undefined) return { end: `e${end}`, pip: this.ends.get(end), playable: playable.has(end) };
      return node(index);
    };
    const node = (index) => {
      const n = this.nodes[index];
      return { tile: n.tile, kind: n.kind, seat: n.seat, inner: n.inner, outer: n.outer, next: n.children.map(slot) };
    };
    return node(0);
  }

  openEnds() {
    const playable = this.playableSet();
    return [...this.ends].map(([id, pip]) => ({ id: `e${id}`, pip, playable: playable.has(id) }));
  }
}

/** Feeds one event to the running state; returns {layout: RoundLayout, change}. */
function apply(state, event) {
  const data = event.data || {};
  switch (event.type) {
    case "round_started":
      state.current = new RoundLayout(data.round ?? (state.current ? state.current.round + 1 : 1));
      return null;
    case "spinner_placed":
      if (!state.current || (data.round !== undefined && state.current.round !== data.round)) {
        state.current = new RoundLayout(data.round ?? 1);
      }
      state.current.placeSpinner(data.tile, data.seat, data.arms || []);
      return null;
    case "tile_played":
      if (!state.current) return null;
      return state.current.play(data.tile, data.end, data.outer, data.seat, data.new_ends || []);
    default:
      return null;
  }
}

function snapshot(current) {
  if (!current) return { round: null, phase: null, arms: 0, layout: null, openEnds: [], lastTile: null };
  return {
    round: current.round,
    phase: current.phase,
    arms: current.arms,
    layout: current.tree(),
    openEnds: current.openEnds(),
    lastTile: current.lastTile ? { ...current.lastTile } : null,
  };
}

/** The current round's layout rebuilt from the events (see the header). */
export function layoutFromEvents(events) {
  const state = { current: null };
  let lastSeq = null;
  for (const event of normalizeEvents(events)) {
    apply(state, event);
    if (event.seq !== null) lastSeq = event.seq;
  }
  return { ...snapshot(state.current), lastSeq };
}

// -- replay ------------------------------------------------------------------

const PASS_REASONS = () => ({
  no_play: gettext("passed: nothing to play and the boneyard is empty"),
  drawn_tile_unplayable: gettext("passed: the drawn tile does not fit"),
  declined_drawn_tile: gettext("passed, keeping the drawn tile"),
});

function armOf(ends, endText) {
  const described = ends.get(endText);
  return described ? described.label : endText;
}

/**
 * Where each open end of a layout tree is, in words: Map endId -> {pip, playable,
 * arm (1-based), toe (1-based, for a toe of a chicken foot, else null), foot (the
 * double's tile, for a toe), label}. Labels: "the 4 end of arm 2", "toe 1 of the
 * 6-6 foot on arm 3"; where two ends would read the same, the label says which toe
 * line it is on ("the 4 end of toe 2 of the 6-6 foot on arm 3") or, failing that,
 * ends with the end id.
 */
export function describeEnds(layout) {
  const found = [];
  if (!layout) return new Map();
  const walk = (node, arm, via) => {
    node.next.forEach((slot, i) => {
      const slotArm = node.kind === "spinner" ? i + 1 : arm;
      const toe = node.kind === "double" ? { toe: i + 1, foot: node.tile } : null;
      const slotVia = toe || via;
      if (slot.end !== undefined) {
        found.push({ id: slot.end, pip: slot.pip, playable: slot.playable, arm: slotArm, toe, via: slotVia });
      } else {
        walk(slot, slotArm, slotVia);
      }
    });
  };
  walk(layout, 0, null);
  const plain = (f) =>
    f.toe
      ? interpolate(gettext("toe %(toe)s of the %(foot)s foot on arm %(arm)s"), { toe: f.toe.toe, foot: f.toe.foot, arm: f.arm })
      : interpolate(gettext("the %(pip)s end of arm %(arm)s"), { pip: f.pip, arm: f.arm });
  const counts = new Map();
  for (const f of found) counts.set(plain(f), (counts.get(plain(f)) || 0) + 1);
  const second = (f) => {
    if (counts.get(plain(f)) === 1) return plain(f);
    if (!f.toe && f.via) {
      return interpolate(gettext("the %(pip)s end of toe %(toe)s of the %(foot)s foot on arm %(arm)s"), { pip: f.pip, toe: f.via.toe, foot: f.via.foot, arm: f.arm });
    }
    return plain(f);
  };
  const seconds = new Map();
  for (const f of found) seconds.set(second(f), (seconds.get(second(f)) || 0) + 1);
  const result = new Map();
  for (const f of found) {
    let label = second(f);
    if (seconds.get(label) > 1) label = `${label} (${f.id})`;
    result.set(f.id, {
      pip: f.pip,
      playable: f.playable,
      arm: f.arm,
      toe: f.toe ? f.toe.toe : null,
      foot: f.toe ? f.toe.foot : null,
      label,
    });
  }
  return result;
}

function describe(event, before, change, seatName) {
  const data = event.data || {};
  const who = data.seat !== undefined && data.seat !== null ? seatName(data.seat) : "";
  switch (event.type) {
    case "round_started":
      return interpolate(gettext("Round %(round)s: starting double %(double)s"), { round: data.round, double: data.starting_double });
    case "spinner_placed":
      return interpolate(gettext("%(name)s placed the spinner %(tile)s"), { name: who, tile: data.tile });
    case "tile_played": {
      const params = { name: who, tile: data.tile, where: armOf(before, data.end) };
      if (change === "foot_opened") return interpolate(gettext("%(name)s played %(tile)s on %(where)s: a chicken foot opens, three toes to fill"), params);
      if (change === "foot_completed") return interpolate(gettext("%(name)s played %(tile)s on %(where)s, completing the chicken foot"), params);
      if (change === "spinner_completed") return interpolate(gettext("%(name)s played %(tile)s on %(where)s, completing the spinner"), params);
      return interpolate(gettext("%(name)s played %(tile)s on %(where)s"), params);
    }
    case "drew":
      if (data.for_starting_double) return interpolate(gettext("%(name)s drew, looking for the starting double"), { name: who });
      return interpolate(gettext("%(name)s drew a tile (%(count)s left)"), { name: who, count: data.boneyard_size });
    case "passed":
      return `${who} ${PASS_REASONS()[data.reason] || gettext("passed")}`;
    case "round_ended": {
      const how = data.reason === "domino" && data.went_out !== null && data.went_out !== undefined
        ? interpolate(gettext("%(name)s went out"), { name: seatName(data.went_out) })
        : gettext("blocked");
      return interpolate(gettext("Round %(round)s over (%(how)s); scores %(scores)s"), { round: data.number ?? data.round, how, scores: (data.scores || []).join(", ") });
    }
    case "match_ended":
      return interpolate(gettext("Match over: %(names)s won"), { names: (data.winners || []).map(seatName).join(gettext(" and ")) });
    default:
      return event.type;
  }
}

/** The replay: one step per move-ish event (see the header). */
export function replaySteps(events, options = {}) {
  const seatName = options.seatName || ((n) => interpolate(gettext("seat %(number)s"), { number: n }));
  const state = { current: null };
  const steps = [];
  for (const event of normalizeEvents(events)) {
    const isStep = MOVE_TYPES.has(event.type);
    const before = isStep && event.type === "tile_played" && state.current ? describeEnds(state.current.tree()) : null;
    const change = apply(state, event);
    if (!isStep) continue;
    const data = event.data || {};
    const shot = snapshot(state.current);
    steps.push({
      index: steps.length,
      seq: event.seq,
      round: data.round ?? shot.round,
      type: event.type,
      event,
      layout: shot.layout,
      openEnds: shot.openEnds,
      phase: shot.phase,
      arms: shot.arms,
      seat: data.seat ?? null,
      tile: data.tile ?? null,
      end: data.end ?? null,
      lastTile: shot.lastTile ? shot.lastTile.tile : null,
      description: describe(event, before, change, seatName),
    });
  }
  return steps;
}
