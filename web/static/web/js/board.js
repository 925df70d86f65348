// The board: the server's layout tree (state.layout) drawn as SVG. Pure DOM, no dependencies.
//
// drawBoard(container, layout, options) -> the <svg> drawn (or null for an empty layout)
//   Replaces the container's content with the board: the spinner in the middle, its
//   arms (4 or 6) radiating out, each arm a line of tiles (pips as dots, numerals
//   above 9), doubles crosswise with their chicken foot's three toes diverging, lines
//   that turn when they reach the edge of the board or run into other tiles, and
//   the open ends. The SVG scales to its container (viewBox; CSS in board.css).
//   options (all optional):
//     arms          spinner arms (4 | 6): accepted, but the spinner's slots in the layout decide
//     playableEnds  Set of end ids drawn as targets (default: the ends the layout
//                   marks playable); the other ends are drawn subtle
//     highlightEnds Set of end ids to emphasise (e.g. where the chosen tile fits)
//     onEnd(endId)  called when a playable end is activated (click, Enter, Space);
//                   with it, playable ends are <g role="button" tabindex="0">
//     endLabel(endId) the accessible name of an end button (default
//                   "Play on the 4 end of arm 2")
//     lastTile      tile text ("6-4") of the last tile played, highlighted
//     numerals      true: numerals on every half; false: dots up to 9 then numerals
//                   (default)
//     label         the SVG's accessible name (default: a summary of the board)
//     radius        how far (in tile lengths from the spinner) a line runs before it
//                   tends to turn (default 6)
//     minScale      the smallest drawing scale in px per unit (a tile is 40 units;
//                   default 0.7): a bigger board scrolls inside its container
//
// DOM (for tests and for the other modules):
//   svg.cf-board-svg[data-testid="board-svg"][role="group"]
//   every tile:  g.cf-tile[data-tile="6-4"][data-seat="2"][data-kind="tile|double|spinner"]
//                (.is-last on the last tile played, .is-open-foot on the double whose
//                toes must be filled first)
//   every end:   g.cf-end[data-end="e5"][data-pip="4"] with .is-playable (a dashed
//                tile-sized target showing the pip it needs) or .is-closed (a small
//                faint circle), .is-highlight (drawn as a target too, with a solid halo); with onEnd, playable
//                ends also have role="button" tabindex="0" aria-label="..."
//   arm numbers: text.cf-arm-label[data-arm="1"]
//
// describeEnds(layout) -> Map endId -> {pip, playable, arm, toe, foot, label}
//   (re-exported from layout.js).
// drawTile(tile, opts) -> <svg class="cf-domino" data-tile="6-4" role="img"> of one domino;
//   opts: {vertical, numerals, label, title, className, flip (draw the second half first)}.
// boardGeometry(layout, options) -> the placements drawBoard uses ({tiles, ends, spokes,
//   bounds, overlaps: how many things could only be drawn over another - 0 in practice}).
//
// Geometry: a tile is 40 x 20 units. Arm 1 points up (4 arms) or up-left (6 arms),
// the others follow clockwise; every line runs in one of the eight compass directions.
// A chicken foot's toes are numbered left to right looking outwards (toe 1 left).
// Tiles are placed nearest-the-spinner first and an open end keeps the place its tile
// will take, so a new tile rarely moves anything already drawn.

import { gettext, interpolate, ngettext } from "./i18n.js";
import { describeEnds, parseTile } from "./layout.js";

export { describeEnds };

const SVG_NS = "http://www.w3.org/2000/svg";
const HALF = 20; // a half of a domino is HALF x HALF
const LONG = 2 * HALF;
const MARGIN = 1.2; // footprints shrink by this much when checking overlaps (touching is fine)
const TURN_COST = { 0: 0, 45: 14, 90: 18, 135: 60 };
const TURNS = [0, 90, -90, 45, -45, 135, -135];

function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

const round2 = (v) => Math.round(v * 100) / 100;
const rad = (deg) => (deg * Math.PI) / 180;
const dirOf = (deg) => [Math.cos(rad(deg)), Math.sin(rad(deg))];

// -- pips ------------------------------------------------------------------------

const S = 5.2;
const GRID = {
  TL: [-S, -S], TC: [0, -S], TR: [S, -S],
  ML: [-S, 0], C: [0, 0], MR: [S, 0],
  BL: [-S, S], BC: [0, S], BR: [S, S],
};
const PATTERNS = [
  [],
  ["C"],
  ["TR", "BL"],
  ["TR", "C", "BL"],
  ["TL", "TR", "BL", "BR"],
  ["TL", "TR", "C", "BL", "BR"],
  ["TL", "ML", "BL", "TR", "MR", "BR"],
  ["TL", "ML", "BL", "TR", "MR", "BR", "C"],
  ["TL", "TC", "TR", "ML", "MR", "BL", "BC", "BR"],
  ["TL", "TC", "TR", "ML", "C", "MR", "BL", "BC", "BR"],
];

/** One half's face centred on (cx, 0) of a tile drawn at `angle` degrees. */
function halfFace(pip, cx, angle, numerals) {
  const group = el("g", { class: "cf-half" });
  if (numerals || pip > 9) {
    const text = el("text", {
      class: "cf-numeral",
      x: cx,
      y: 0,
      "text-anchor": "middle",
      "dominant-baseline": "central",
      transform: angle ? `rotate(${round2(-angle)} ${cx} 0)` : null,
    });
    text.textContent = String(pip);
    group.appendChild(text);
    return group;
  }
  for (const key of PATTERNS[pip] || []) {
    const [x, y] = GRID[key];
    group.appendChild(el("circle", { class: "cf-pip", cx: round2(cx + x), cy: y, r: 1.9 }));
  }
  return group;
}

/** A domino face in local coordinates: long axis along x, centred on the origin,
 * `first` on the left half. `angle`: the rotation it will be drawn at (numerals stay upright). */
function tileFace(first, second, angle, numerals) {
  const group = el("g", { class: "cf-face" });
  group.appendChild(el("rect", { class: "cf-tile-body", x: -HALF + 0.5, y: -HALF / 2 + 0.5, width: LONG - 1, height: HALF - 1, rx: 3 }));
  group.appendChild(el("line", { class: "cf-divider", x1: 0, y1: -HALF / 2 + 3.5, x2: 0, y2: HALF / 2 - 3.5 }));
  group.appendChild(halfFace(first, -HALF / 2, angle, numerals));
  group.appendChild(halfFace(second, HALF / 2, angle, numerals));
  return group;
}

/** A single domino as its own <svg> (the hand, the move list...). */
export function drawTile(tile, opts = {}) {
  let [first, second] = parseTile(tile);
  if (opts.flip) [first, second] = [second, first];
  const vertical = Boolean(opts.vertical);
  const angle = vertical ? 90 : 0;
  const svg = el("svg", {
    xmlns: SVG_NS,
    class: ["cf-domino", vertical ? "is-vertical" : "is-horizontal", opts.className].filter(Boolean).join(" "),
    viewBox: vertical ? "-11 -21 22 42" : "-21 -11 42 22",
    "data-tile": tile,
    role: "img",
    "aria-label": opts.label || tile,
    focusable: "false",
  });
  if (opts.title) svg.appendChild(el("title", {}, document.createTextNode(opts.title)));
  const face = tileFace(first, second, angle, opts.numerals);
  if (angle) face.setAttribute("transform", `rotate(${angle})`);
  svg.appendChild(face);
  return svg;
}

// -- geometry ---------------------------------------------------------------------

/** An oriented rectangle: centre, half extents along / across `angle`. */
function box(cx, cy, angle, hx, hy) {
  const [ux, uy] = dirOf(angle);
  return { cx, cy, angle, hx, hy, ux, uy, vx: -uy, vy: ux, r: Math.hypot(hx, hy) };
}

function overlaps(a, b) {
  const ahx = a.hx - MARGIN, ahy = a.hy - MARGIN, bhx = b.hx - MARGIN, bhy = b.hy - MARGIN;
  const dx = b.cx - a.cx, dy = b.cy - a.cy;
  if (Math.hypot(dx, dy) >= a.r + b.r) return false;
  for (const [lx, ly] of [[a.ux, a.uy], [a.vx, a.vy], [b.ux, b.uy], [b.vx, b.vy]]) {
    const ra = ahx * Math.abs(a.ux * lx + a.uy * ly) + ahy * Math.abs(a.vx * lx + a.vy * ly);
    const rb = bhx * Math.abs(b.ux * lx + b.uy * ly) + bhy * Math.abs(b.vx * lx + b.vy * ly);
    if (Math.abs(dx * lx + dy * ly) >= ra + rb) return false;
  }
  return true;
}

function corners(b) {
  const out = [];
  for (const [sx, sy] of [[1, 1], [1, -1], [-1, 1], [-1, -1]]) {
    out.push([b.cx + sx * b.hx * b.ux + sy * b.hy * b.vx, b.cy + sx * b.hx * b.uy + sy * b.hy * b.vy]);
  }
  return out;
}

/** The footprint of what goes in a slot whose inner edge is centred on (ax, ay), facing `angle`. */
function footprint(kind, ax, ay, angle) {
  const [dx, dy] = dirOf(angle);
  if (kind === "double") return box(ax + dx * (HALF / 2), ay + dy * (HALF / 2), angle, HALF / 2, HALF);
  return box(ax + dx * HALF, ay + dy * HALF, angle, HALF, HALF / 2); // a tile, or an open end's reserved place
}

/** The directions of the spinner's arms (degrees, clockwise from east, y down): arm 1
 * first, clockwise. Every line then runs in one of the eight compass directions. */
function armAngles(count) {
  if (count === 6) return [-135, -45, 0, 45, 135, 180];
  if (count === 4) return [-90, 0, 90, 180];
  return Array.from({ length: count }, (_, i) => -90 + (i * 360) / count);
}

/** Where each tile and open end goes, as drawBoard draws it: {tiles: [{node, box,
 * angle, arm, depth, connector}], ends: [{slot, box, angle, arm, anchor, connector}],
 * bounds, overlaps (how many could only be drawn over another)}. */
export function boardGeometry(layout, options = {}) {
  const tiles = [];
  const ends = [];
  const placed = [];
  let overlapCount = 0;
  if (!layout) return { tiles, ends, spokes: [], bounds: null, overlaps: 0 };
  const radius = HALF * 1.7 + LONG * (options.radius ?? 6);
  const pull = options.pull ?? 2;
  // A grid of cells over the plane, each listing the boxes that may reach into it.
  const CELL = 60;
  const grid = new Map();
  const cellsOf = (b) => {
    const keys = [];
    for (let i = Math.floor((b.cx - b.r) / CELL); i <= Math.floor((b.cx + b.r) / CELL); i++) {
      for (let j = Math.floor((b.cy - b.r) / CELL); j <= Math.floor((b.cy + b.r) / CELL); j++) keys.push(`${i},${j}`);
    }
    return keys;
  };
  const add = (b) => {
    placed.push(b);
    for (const key of cellsOf(b)) {
      if (!grid.has(key)) grid.set(key, []);
      grid.get(key).push(b);
    }
  };
  const free = (fp, except) => {
    for (const key of cellsOf(fp)) {
      for (const other of grid.get(key) || []) if (other !== except && overlaps(fp, other)) return false;
    }
    return true;
  };

  // The spinner: a double across the horizontal line.
  const spinnerBox = box(0, 0, 0, HALF / 2, HALF);
  tiles.push({ node: layout, box: spinnerBox, angle: 0, arm: 0, depth: 0, connector: null });
  add(spinnerBox);

  // The arms' first places: along the lines through the spinner first, then the
  // diagonals, each pushed out from the spinner's centre until it is clear.
  const angles = armAngles(layout.next.length);
  const starts = [];
  const firstBoxes = [];
  for (const pass of [0, 1]) {
    angles.forEach((angle, i) => {
      if ((angle % 90 === 0 ? 0 : 1) !== pass) return;
      const [dx, dy] = dirOf(angle);
      let t = 0;
      const clear = (fp) => !overlaps(fp, spinnerBox) && !firstBoxes.some((other) => overlaps(fp, other));
      while (t < 200 && !clear(footprint("tile", dx * t, dy * t, angle))) t += 1;
      firstBoxes.push(footprint("tile", dx * t, dy * t, angle));
      starts[i] = [dx * t, dy * t];
    });
  }
  const queue = [];
  layout.next.forEach((slot, i) => {
    const [ax, ay] = starts[i];
    queue.push({ slot, ax, ay, angle: angles[i], arm: i + 1, depth: 1, parent: spinnerBox });
  });

  /** How many more tiles fit straight on beyond `fp` (up to LOOK). */
  const LOOK = 3;
  const room = (kind, ax, ay, angle) => {
    const [ex, ey] = dirOf(angle);
    const length = kind === "double" ? HALF : LONG;
    let n = 0;
    for (; n < LOOK; n++) {
      const reach = length + n * LONG;
      if (!free(footprint("tile", ax + ex * reach, ay + ey * reach, angle))) break;
    }
    return n;
  };

  // Breadth first: the nearer a tile is to the spinner, the earlier it gets its place,
  // and an open end keeps the place its tile will take, so a new tile moves nothing
  // drawn before it (a double, lying across, may move what comes after it).
  for (let head = 0; head < queue.length; head++) {
    const item = queue[head];
    const { slot } = item;
    const kind = slot.end !== undefined ? "end" : slot.kind;
    const [dx, dy] = dirOf(item.angle);
    let best = null;
    for (const turn of TURNS) {
      const angle = item.angle + turn;
      const [ex, ey] = dirOf(angle);
      // A line turns around its corner: the turned tile's first half sits where the
      // straight one's would have.
      const ax = item.ax + (HALF / 2) * (dx - ex);
      const ay = item.ay + (HALF / 2) * (dy - ey);
      const fp = footprint(kind, ax, ay, angle);
      if (!free(fp, item.parent)) continue;
      const far = Math.hypot(fp.cx + fp.ux * fp.hx, fp.cy + fp.uy * fp.hx);
      const cost = TURN_COST[Math.abs(turn)] + Math.max(0, far - radius) * pull + (LOOK - room(kind, ax, ay, angle)) * 10;
      if (!best || cost < best.cost - 1e-9) best = { cost, angle, ax, ay, fp, connector: null };
    }
    if (!best) best = nearestFree(item, kind, free);
    if (!best) {
      overlapCount += 1;
      best = { angle: item.angle, ax: item.ax, ay: item.ay, fp: footprint(kind, item.ax, item.ay, item.angle), connector: null };
    }
    add(best.fp);
    if (kind === "end") {
      ends.push({ slot, box: best.fp, angle: best.angle, arm: item.arm, anchor: [best.ax, best.ay], connector: best.connector });
      continue;
    }
    tiles.push({ node: slot, box: best.fp, angle: best.angle, arm: item.arm, depth: item.depth, connector: best.connector });
    const [ex, ey] = dirOf(best.angle);
    if (slot.kind === "double") {
      // The chicken foot: the middle toe straight on, the outer two from the corners, splayed.
      const mx = best.ax + ex * HALF, my = best.ay + ey * HALF;
      const [px, py] = [-ey, ex]; // to the right, facing outwards
      const toes = [
        [mx - px * HALF, my - py * HALF, best.angle - 45],
        [mx, my, best.angle],
        [mx + px * HALF, my + py * HALF, best.angle + 45],
      ];
      slot.next.forEach((child, i) => {
        const [ax, ay, angle] = toes[Math.min(i, 2)];
        queue.push({ slot: child, ax, ay, angle, arm: item.arm, depth: item.depth + 1, parent: best.fp });
      });
    } else {
      slot.next.forEach((child) => {
        queue.push({
          slot: child,
          ax: best.ax + ex * LONG,
          ay: best.ay + ey * LONG,
          angle: best.angle,
          arm: item.arm,
          depth: item.depth + 1,
          parent: best.fp,
        });
      });
    }
  }

  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const b of placed) {
    for (const [x, y] of corners(b)) {
      minX = Math.min(minX, x); minY = Math.min(minY, y);
      maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
    }
  }
  return { tiles, ends, spokes: starts, bounds: { minX, minY, maxX, maxY }, overlaps: overlapCount };
}

/** No room next to its parent: the nearest free place, joined to the parent by a
 * connector line. */
function nearestFree(item, kind, free) {
  for (let k = 1; k <= 40; k++) {
    const distance = k * (HALF / 2);
    for (let a = 0; a < 16; a++) {
      const around = item.angle + (a % 2 ? 1 : -1) * Math.ceil(a / 2) * 22.5;
      const [ox, oy] = dirOf(around);
      const ax = item.ax + ox * distance, ay = item.ay + oy * distance;
      for (const turn of [0, 45, -45, 90, -90, 135, -135, 180]) {
        const angle = item.angle + turn;
        const fp = footprint(kind, ax, ay, angle);
        if (free(fp)) return { angle, ax, ay, fp, connector: [item.ax, item.ay, ax, ay] };
      }
    }
  }
  return null;
}

// -- drawing -------------------------------------------------------------------------

function tileGroup(entry, options) {
  const { node, box: b } = entry;
  const [high, low] = parseTile(node.tile);
  let angle;
  let first, second;
  if (node.kind === "tile") {
    angle = entry.angle;
    first = node.inner;
    second = node.outer;
  } else {
    angle = entry.angle + 90; // a double lies across its line
    first = high;
    second = low;
  }
  const classes = ["cf-tile", `is-${node.kind}`];
  if (options.lastTile && options.lastTile === node.tile) classes.push("is-last");
  if (options.openFoot === node.tile) classes.push("is-open-foot");
  const group = el("g", {
    class: classes.join(" "),
    "data-tile": node.tile,
    "data-seat": node.seat,
    "data-kind": node.kind,
    transform: `translate(${round2(b.cx)} ${round2(b.cy)}) rotate(${round2(angle)})`,
  });
  const title = node.kind === "spinner"
    ? interpolate(gettext("%(tile)s, the spinner, placed by seat %(seat)s"), { tile: node.tile, seat: node.seat })
    : interpolate(gettext("%(tile)s, played by seat %(seat)s"), { tile: node.tile, seat: node.seat });
  group.appendChild(el("title", {}, document.createTextNode(title)));
  if (classes.includes("is-open-foot")) {
    group.appendChild(el("rect", { class: "cf-foot-ring", x: -HALF - 4, y: -HALF / 2 - 4, width: LONG + 8, height: HALF + 8, rx: 6 }));
  }
  if (classes.includes("is-last")) {
    group.appendChild(el("rect", { class: "cf-last-ring", x: -HALF - 3, y: -HALF / 2 - 3, width: LONG + 6, height: HALF + 6, rx: 5 }));
  }
  group.appendChild(tileFace(first, second, angle, options.numerals));
  return group;
}

function endGroup(entry, info, options) {
  const { slot, box: b } = entry;
  const id = slot.end;
  const playable = options.playableEnds ? options.playableEnds.has(id) : Boolean(slot.playable);
  const highlight = Boolean(options.highlightEnds && options.highlightEnds.has(id));
  const classes = ["cf-end", playable ? "is-playable" : "is-closed"];
  if (highlight) classes.push("is-highlight");
  const group = el("g", { class: classes.join(" "), "data-end": id, "data-pip": slot.pip });
  const where = info ? info.label : id;
  const tx = round2(b.cx), ty = round2(b.cy);
  if (playable || highlight) {
    const inner = el("g", { transform: `translate(${tx} ${ty}) rotate(${round2(entry.angle)})` });
    inner.appendChild(el("rect", { class: "cf-focus-ring", x: -HALF - 3, y: -HALF / 2 - 3, width: LONG + 6, height: HALF + 6, rx: 6 }));
    if (highlight) inner.appendChild(el("rect", { class: "cf-end-halo", x: -HALF + 0.5, y: -HALF / 2 + 0.5, width: LONG - 1, height: HALF - 1, rx: 4 }));
    inner.appendChild(el("rect", { class: "cf-end-shape", x: -HALF + 2, y: -HALF / 2 + 2, width: LONG - 4, height: HALF - 4, rx: 3 }));
    group.appendChild(inner);
    const text = el("text", { class: "cf-end-pip", x: tx, y: ty, "text-anchor": "middle", "dominant-baseline": "central" });
    text.textContent = String(slot.pip);
    group.appendChild(text);
  } else {
    // A small marker where the next tile would start.
    const [ax, ay] = entry.anchor;
    const [dx, dy] = dirOf(entry.angle);
    const cx = round2(ax + dx * 7), cy = round2(ay + dy * 7);
    group.appendChild(el("circle", { class: "cf-end-shape", cx, cy, r: 6 }));
    const text = el("text", { class: "cf-end-pip", x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central" });
    text.textContent = String(slot.pip);
    group.appendChild(text);
  }
  const need = slot.playable
    ? interpolate(gettext("%(where)s: needs a %(pip)s"), { where, pip: slot.pip })
    : interpolate(gettext("%(where)s: needs a %(pip)s (not playable now: another group of ends comes first)"), { where, pip: slot.pip });
  group.appendChild(el("title", {}, document.createTextNode(need)));
  if (playable && typeof options.onEnd === "function") {
    const label = (options.endLabel && options.endLabel(id)) || interpolate(gettext("Play on %(where)s"), { where });
    group.setAttribute("role", "button");
    group.setAttribute("tabindex", "0");
    group.setAttribute("aria-label", label);
    group.addEventListener("click", (event) => {
      event.preventDefault();
      options.onEnd(id);
    });
    group.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " " || event.key === "Spacebar") {
        event.preventDefault();
        options.onEnd(id);
      }
    });
  }
  return group;
}

function summary(layout, geometry) {
  const open = geometry.ends.length;
  const playable = geometry.ends.filter((e) => e.slot.playable).length;
  return interpolate(
    ngettext(
      "Board: spinner %(tile)s, %(arms)s arms, %(tiles)s tiles, %(open)s open end (%(playable)s playable)",
      "Board: spinner %(tile)s, %(arms)s arms, %(tiles)s tiles, %(open)s open ends (%(playable)s playable)",
      open,
    ),
    { tile: layout.tile, arms: layout.next.length, tiles: geometry.tiles.length, open, playable },
  );
}

/** The double whose chicken foot is open (its toes must be filled first), or null. */
function openFoot(layout) {
  let closed = 0;
  const owners = new Map(); // node -> its playable open ends
  const walk = (node) => {
    for (const slot of node.next) {
      if (slot.end === undefined) walk(slot);
      else if (!slot.playable) closed += 1;
      else owners.set(node, (owners.get(node) || 0) + 1);
    }
  };
  walk(layout);
  // While a group of ends comes first, the others are not playable, and the group is one node's.
  if (!closed || owners.size !== 1) return null;
  const [owner] = owners.keys();
  return owner.kind === "double" ? owner.tile : null;
}

/** Draws the layout into `container` (its content is replaced). See the header. */
export function drawBoard(container, layout, options = {}) {
  const active = document.activeElement;
  const focused = active && active !== container && container.contains(active) && active.getAttribute
    ? active.getAttribute("data-end")
    : null;
  const drawnBefore = container.querySelector(".cf-board-svg") !== null;
  const scroll = [container.scrollLeft, container.scrollTop];
  container.replaceChildren();
  container.classList.add("cf-board");
  if (!layout) {
    const empty = document.createElement("p");
    empty.className = "cf-board-empty";
    empty.textContent = gettext("No tiles on the table yet.");
    container.appendChild(empty);
    return null;
  }
  const geometry = boardGeometry(layout, options);
  const info = describeEnds(layout);
  const pad = 14;
  const { minX, minY, maxX, maxY } = geometry.bounds;
  // At least a few tiles each way, so that an early board is not drawn huge.
  const minSpan = 7 * LONG;
  const width = Math.max(maxX - minX + 2 * pad, minSpan);
  const height = Math.max(maxY - minY + 2 * pad, minSpan * 0.75);
  const x = (minX + maxX) / 2 - width / 2;
  const y = (minY + maxY) / 2 - height / 2;
  const svg = el("svg", {
    xmlns: SVG_NS,
    class: "cf-board-svg",
    "data-testid": "board-svg",
    viewBox: [x, y, width, height].map(round2).join(" "),
    role: "group",
    "aria-label": options.label || summary(layout, geometry),
    "data-arms": layout.next.length,
    "data-tiles": geometry.tiles.length,
  });
  const under = el("g", { class: "cf-under", "aria-hidden": "true" });
  under.appendChild(el("circle", { class: "cf-spinner-hub", cx: 0, cy: 0, r: HALF * 1.6 }));
  for (const [x2, y2] of geometry.spokes) {
    under.appendChild(el("line", { class: "cf-spoke", x1: 0, y1: 0, x2: round2(x2), y2: round2(y2) }));
  }
  for (const entry of [...geometry.tiles, ...geometry.ends]) {
    if (!entry.connector) continue;
    const [x1, y1, x2, y2] = entry.connector.map(round2);
    under.appendChild(el("line", { class: "cf-connector", x1, y1, x2, y2 }));
  }
  const tilesLayer = el("g", { class: "cf-tiles" });
  const drawing = { ...options, openFoot: openFoot(layout) };
  for (const entry of geometry.tiles) tilesLayer.appendChild(tileGroup(entry, drawing));
  const labels = el("g", { class: "cf-arm-labels", "aria-hidden": "true" });
  const firsts = new Map();
  for (const t of geometry.tiles) if (t.depth === 1) firsts.set(t.arm, t);
  layout.next.forEach((slot, i) => {
    const arm = i + 1;
    const first = firsts.get(arm) || geometry.ends.find((e) => e.slot === slot);
    if (!first) return;
    // Beside the arm's first tile, on its left facing outwards.
    const b = first.box;
    const [dx, dy] = dirOf(first.angle);
    const [px, py] = [dy, -dx];
    const text = el("text", {
      class: "cf-arm-label",
      "data-arm": arm,
      x: round2(b.cx - dx * (HALF - 6) + px * (HALF / 2 + 6)),
      y: round2(b.cy - dy * (HALF - 6) + py * (HALF / 2 + 6)),
      "text-anchor": "middle",
      "dominant-baseline": "central",
    });
    text.textContent = String(arm);
    labels.appendChild(text);
  });
  const endsLayer = el("g", { class: "cf-ends" });
  for (const entry of geometry.ends) endsLayer.appendChild(endGroup(entry, info.get(entry.slot.end), options));
  svg.append(under, tilesLayer, labels, endsLayer);
  // Never smaller than `minScale` px a unit (a tile 40 units long): on a narrow screen a
  // big board scrolls (the container scrolls: board.css) rather than shrinking unreadably.
  const minScale = options.minScale ?? 0.7;
  svg.style.minWidth = `${Math.round(width * minScale)}px`;
  svg.style.minHeight = `${Math.round(height * minScale)}px`;
  container.appendChild(svg);
  if (drawnBefore) {
    [container.scrollLeft, container.scrollTop] = scroll;
  } else if (container.scrollWidth > container.clientWidth || container.scrollHeight > container.clientHeight) {
    // First drawing: the spinner in view.
    const rect = svg.getBoundingClientRect();
    const scale = Math.min(rect.width / width, rect.height / height);
    container.scrollLeft = (0 - x) * scale - container.clientWidth / 2;
    container.scrollTop = (0 - y) * scale - container.clientHeight / 2;
  }
  if (focused) {
    const again = svg.querySelector(`[data-end="${focused}"][tabindex]`);
    if (again) again.focus({ preventScroll: true });
  }
  return svg;
}
