// arbiter's web view: pages over the JSON API, one board renderer driven by
// the plugins' observation schema, live updates by server-sent events, and
// play in the browser. Every text from the server goes into the page as a
// text node (never as markup), so names, labels and moves are always escaped.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

// ---- DOM helpers -----------------------------------------------------------

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  setProps(node, props);
  append(node, children);
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  append(node, children);
  return node;
}

function setProps(node, props) {
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `${path}: HTTP ${response.status}`);
  return body;
}

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function formatClock(ms) {
  if (ms === null || ms === undefined) return "∞";
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const pad = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

// ---- Board renderer --------------------------------------------------------

const NAMED_COLOURS = { white: "#fafafa", black: "#2b2b2b", red: "#c62828", blue: "#1e56a0", green: "#2e7d32", yellow: "#f9a825",
  // Janggi's sides: Cho plays blue (or green), Han red.
  cho: "#1e56a0", han: "#c62828" };
const PALETTE = ["#fafafa", "#2b2b2b", "#c62828", "#1e56a0", "#2e7d32", "#f9a825"];

/** The fill of each side's pieces: its name if it is a colour, else a palette entry. */
function sideColours(sides) {
  return (sides || []).map((name, i) => NAMED_COLOURS[String(name).toLowerCase()] || PALETTE[i % PALETTE.length]);
}

function inkOn(fill) {
  const n = parseInt(fill.slice(1), 16);
  const lum = 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return lum > 150 ? "#1d2330" : "#ffffff";
}

/**
 * Draws a board (the variant's geometry) with what one viewer sees (an
 * observation). opts: flipped, colours, targets (Set of cells), selected
 * (cell), onCell(cell), changed (cells the last move changed, highlighted).
 */
function renderBoard(board, observation, opts) {
  if (board.kind === "graph") return renderGraph(board, observation, opts);
  return board.kind === "lines" ? renderLines(board, observation, opts) : renderGrid(board, observation, opts);
}

/** The plugin's notes for this viewer ("White may castle", "must pass"), as text. */
function notesOf(obs) {
  const notes = (obs && obs.notes) || [];
  return notes.length ? el("ul", { class: "notes", id: "notes" }, notes.map((n) => el("li", {}, n))) : null;
}

/** The cells whose pieces (or walls, or duck) differ between two observations (the last move's). */
function changedCells(before, after) {
  if (!before || !after) return [];
  const key = (p) => JSON.stringify([p.owner, p.kind, p.label, p.stack || []]);
  const at = (obs) => new Map([...(obs.pieces || []).map((p) => [p.cell, key(p)]), ...(obs.blocked || []).map((b) => [b.cell, b.kind])]);
  const a = at(before), b = at(after);
  return [...new Set([...a.keys(), ...b.keys()])].filter((c) => a.get(c) !== b.get(c));
}

/** Move labels numbered per full move, as the PGN records are: "1. e4",
 * "e5", "2. Nf3"; "1... e5" when the second player starts, "2... a3" after
 * two moves in a row by the first (each move's frame names its mover; the
 * frame before says who was to move, for frames that do not). */
function moveLabels(frames) {
  let number = 0, previous = null, run = 0;
  return frames.slice(1).map((f, i) => {
    const mover = f.mover ?? frames[i].to_move;
    let label = "";
    if (mover === 0 && previous !== 0) label = `${++number}. `;
    else if (mover !== 0 && (previous === null || previous !== 0 || run > 1)) label = `${(number = Math.max(number, 1))}... `;
    run = previous === mover ? run + 1 : 1;
    previous = mover;
    return label + f.last_move;
  });
}

/** Whether `seat`'s own pieces start in the top half (draw the board
 * flipped, so a player always sits at the bottom). */
function ownSideOnTop(board, obs, seat) {
  const own = (obs.pieces || []).filter((p) => p.owner === seat);
  if (!own.length || board.kind === "graph") return seat === 1;
  const rows = own.map((p) => Math.floor(p.cell / board.width));
  return rows.reduce((a, r) => a + r, 0) / rows.length >= board.height / 2;
}

/** The glyph `set` draws piece `p` with, by its kind or its label, if any (else its label is drawn). */
function glyphOf(p, set) {
  return set && set.glyphs ? set.glyphs[p.kind] || set.glyphs[p.label] || null : null;
}

/** Fonts for the Chinese characters and kanji of the counters (the viewer's own). */
const CJK_FONTS = '"Noto Serif CJK SC", "Noto Serif CJK JP", "Source Han Serif", "SimSun", "Songti SC", "Hiragino Mincho ProN", "Yu Mincho", "MS Mincho", serif';

/**
 * A counter of a set's `style` (xiangqi, janggi, shogi) with `glyph`, for
 * piece `p` centred at (cx, cy) in a box of radius r: round and lettered in
 * the owner's colour (xiangqi), octagonal and sized by rank (janggi), a wedge
 * pointing at the opponent, promoted pieces lettered red (shogi).
 */
function counter(style, p, glyph, cx, cy, r, opts) {
  const g = svg("g", { class: `counter ${style}` });
  const ink = opts.colours[p.owner] || PALETTE[p.owner % PALETTE.length];
  const face = "#f6e3bd", text = (size, fill) => svg("text", { x: cx, y: cy + size * 0.36, "text-anchor": "middle", "font-size": size, "font-family": CJK_FONTS, "font-weight": 700, fill }, glyph);
  if (style === "shogi") {
    // Pointing up for the player at the bottom of the board.
    const up = (p.owner === 0) !== !!opts.flipped;
    const pts = [[0, -1], [0.66, -0.62], [0.8, 0.95], [-0.8, 0.95], [-0.66, -0.62]].map(([dx, dy]) => `${cx + dx * r * 0.92},${cy + dy * r * 0.95}`).join(" ");
    const wedge = svg("g", up ? {} : { transform: `rotate(180 ${cx} ${cy})` });
    wedge.append(svg("polygon", { points: pts, fill: "#f1d49a", stroke: "#7a5a2e", "stroke-width": 1.4 }));
    wedge.append(text(r * 0.95, String(p.label).startsWith("+") ? "#b71c1c" : "#1d1d1d"));
    g.append(wedge);
    return g;
  }
  if (style === "janggi") {
    const scale = p.kind === "king" ? 1 : p.kind === "soldier" || p.kind === "wazir" ? 0.76 : 0.88;
    const R = r * scale * 1.04;
    const pts = Array.from({ length: 8 }, (_, i) => {
      const a = Math.PI / 8 + (i * Math.PI) / 4;
      return `${cx + R * Math.cos(a)},${cy + R * Math.sin(a)}`;
    }).join(" ");
    g.append(svg("polygon", { points: pts, fill: face, stroke: ink, "stroke-width": 2 }));
    g.append(text(R * 1.05, ink));
    return g;
  }
  g.append(svg("circle", { cx, cy, r, fill: face, stroke: ink, "stroke-width": 2 }));
  g.append(svg("circle", { cx, cy, r: r * 0.82, fill: "none", stroke: ink, "stroke-width": 1 }));
  g.append(text(r * 1.0, ink));
  return g;
}

/** The piece set chosen for a variant: the one remembered for it, else its
 *  first; null for plain labels. */
function chosenSet(variant, sets) {
  if (!sets || !sets.length) return null;
  const saved = localStorage.getItem(`pieces:${variant}`);
  const i = saved === null ? 0 : Number(saved);
  return i >= 0 && i < sets.length ? sets[i] : null;
}

/** A menu of a variant's piece sets (and plain labels); `onChange` redraws. */
function pieceSetPicker(variant, sets, onChange) {
  if (!sets || !sets.length) return null;
  const current = chosenSet(variant, sets);
  const options = [...sets.map((set, i) => el("option", { value: String(i) }, set.name)), el("option", { value: "-1" }, "labels")];
  const select = el("select", { id: "piece-set", onchange: () => { localStorage.setItem(`pieces:${variant}`, select.value); onChange(); } }, options);
  select.value = String(current ? sets.indexOf(current) : -1);
  return el("label", { class: "muted" }, "Pieces: ", select);
}

function pieceTitle(p) {
  const parts = [p, ...(p.stack || [])].map((q) => `${q.kind} (${q.label})`);
  return parts.join(" / ");
}

function renderGrid(board, obs, opts) {
  const S = 60, M = 22, W = board.width, H = board.height;
  // Pieces in hand stand in a strip above the board (the top side's) and below it.
  const hands = (obs && obs.hands) || [];
  const T = hands.length ? S * 0.8 : 0;
  const root = svg("svg", { viewBox: `0 0 ${W * S + M} ${H * S + M + 2 * T}`, class: "board", "data-kind": "grid" });
  const place = (cell) => {
    const row = Math.floor(cell / W), col = cell % W;
    return { x: M + (opts.flipped ? W - 1 - col : col) * S, y: T + (opts.flipped ? row : H - 1 - row) * S, row, col };
  };
  const highlights = new Set([...(obs ? obs.highlights || [] : []), ...(opts.changed || [])]);
  for (let cell = 0; cell < W * H; cell++) {
    const { x, y, row, col } = place(cell);
    const dark = board.checkered && (row + col) % 2 === 0;
    root.append(svg("rect", { x, y, width: S, height: S, fill: board.checkered ? (dark ? "#b58863" : "#f0d9b5") : "#efe6d2", stroke: board.checkered ? "none" : "#a08c6a" }));
    if (highlights.has(cell)) root.append(svg("rect", { x, y, width: S, height: S, fill: "rgba(255,214,0,.45)" }));
    if (opts.selected === cell) root.append(svg("rect", { x: x + 2, y: y + 2, width: S - 4, height: S - 4, fill: "none", stroke: "#2f6fd6", "stroke-width": 4 }));
  }
  (board.files || []).forEach((name, col) => {
    const x = M + (opts.flipped ? W - 1 - col : col) * S + S / 2;
    root.append(svg("text", { x, y: T + H * S + 16, "text-anchor": "middle", "font-size": 13, fill: "#6b7385" }, name));
  });
  (board.ranks || []).forEach((name, row) => {
    const y = T + (opts.flipped ? row : H - 1 - row) * S + S / 2 + 5;
    root.append(svg("text", { x: M / 2, y, "text-anchor": "middle", "font-size": 13, fill: "#6b7385" }, name));
  });
  for (const b of (obs && obs.blocked) || []) root.append(blockedCell(b, place(b.cell), S));
  hands.forEach((h) => {
    const top = (h.owner === 0) === !!opts.flipped;
    const i = hands.filter((o) => o.owner === h.owner).indexOf(h);
    const fill = opts.colours[h.owner] || PALETTE[h.owner % PALETTE.length];
    const cx = M + S * 0.45 + i * S, cy = top ? T / 2 : T + H * S + M + T / 2;
    const g = svg("g", { class: "hand", "data-owner": h.owner, "data-kind": h.kind }, svg("title", {}, `${h.kind} (${h.label}) ×${h.count}`));
    const glyph = glyphOf(h, opts.pieces), style = opts.pieces && opts.pieces.style;
    if (glyph && style) g.append(counter(style, h, glyph, cx, cy, S * 0.32, opts));
    else {
      g.append(svg("circle", { cx, cy, r: S * 0.3, fill, stroke: "#333", "stroke-width": 1.5 }));
      g.append(svg("text", { x: cx, y: cy + S * 0.11, "text-anchor": "middle", "font-size": S * 0.3, "font-weight": 700, fill: inkOn(fill) }, glyph || h.label));
    }
    if (h.count > 1) {
      // The count on a badge at the piece's upper right, as pockets show it.
      const bx = cx + S * 0.3, by = cy - S * 0.2;
      g.append(svg("circle", { cx: bx, cy: by, r: S * 0.13, fill: "#fff", stroke: "#2f6fd6", "stroke-width": 1.5 }));
      g.append(svg("text", { x: bx, y: by + S * 0.065, "text-anchor": "middle", "font-size": S * 0.18, "font-weight": 700, fill: "#1d2330", class: "count" }, String(h.count)));
    }
    root.append(g);
  });
  for (const p of obs ? obs.pieces : []) root.append(pieceAt(p, place(p.cell), S, opts));
  targetsAndHits(root, W * H, place, S, opts);
  return root;
}

/** A piece (or tower) drawn in the S-wide box at `at` (its cell's). */
function pieceAt(p, at, S, opts) {
  const { x, y } = at;
  const fill = opts.colours[p.owner] || PALETTE[p.owner % PALETTE.length];
  const stack = p.stack || [];
  const g = svg("g", { class: "piece", "data-cell": p.cell }, svg("title", {}, pieceTitle(p)));
  const cy = y + (stack.length ? S * 0.4 : S / 2), r = stack.length ? S * 0.3 : S * 0.38;
  const glyph = glyphOf(p, opts.pieces);
  if (glyph && opts.pieces.style) {
    g.append(counter(opts.pieces.style, p, glyph, x + S / 2, cy, r, opts));
  } else if (glyph && opts.pieces.figurines) {
    g.append(svg("text", { x: x + S / 2, y: cy + r * 0.62, "text-anchor": "middle", "font-size": r * 1.9, fill, stroke: "#222", "stroke-width": 1.2, class: "figurine" }, glyph));
  } else {
    g.append(svg("circle", { cx: x + S / 2, cy, r, fill, stroke: "#333", "stroke-width": 1.5 }));
    g.append(svg("text", { x: x + S / 2, y: cy + r * 0.38, "text-anchor": "middle", "font-size": r * 1.05, "font-weight": 700, fill: inkOn(fill) }, glyph || p.label));
  }
  if (stack.length) {
    // The tower beneath the top piece, top first, as chips along the foot of the square.
    const w = Math.min(S * 0.22, (S - 6) / stack.length);
    stack.forEach((q, i) => {
      const qf = opts.colours[q.owner] || PALETTE[q.owner % PALETTE.length];
      const cx = x + 3 + i * w;
      g.append(svg("rect", { x: cx, y: y + S * 0.76, width: w - 1, height: S * 0.2, fill: qf, stroke: "#333", "stroke-width": 0.8 }));
      if (w >= 9) g.append(svg("text", { x: cx + (w - 1) / 2, y: y + S * 0.92, "text-anchor": "middle", "font-size": Math.min(10, w), fill: inkOn(qf) }, q.label));
    });
    g.append(svg("text", { x: x + S - 4, y: y + 13, "text-anchor": "end", "font-size": 12, "font-weight": 700, fill: "#1d2330", class: "height" }, String(stack.length + 1)));
  }
  return g;
}

/** The move targets' dots and a click area on each of `cells` cells. */
function targetsAndHits(root, cells, place, S, opts) {
  for (let cell = 0; cell < cells; cell++) {
    const { x, y } = place(cell);
    if (opts.targets && opts.targets.has(cell)) root.append(svg("circle", { cx: x + S / 2, cy: y + S / 2, r: S * 0.14, fill: "rgba(47,111,214,.55)" }));
    const hit = svg("rect", { x, y, width: S, height: S, fill: "transparent", class: "cell" + (opts.targets && opts.targets.has(cell) ? " target" : ""), "data-cell": cell });
    if (opts.onCell) hit.addEventListener("click", () => opts.onCell(cell));
    root.append(hit);
  }
}

/** A board of points where lines cross (xiangqi, janggi): the river
 * breaks the lines up the board but at its edges, the palaces have
 * their diagonals, pieces stand on the points. */
function renderLines(board, obs, opts) {
  const S = 60, M = 22, W = board.width, H = board.height;
  const root = svg("svg", { viewBox: `0 0 ${W * S + M} ${H * S + M}`, class: "board", "data-kind": "lines" });
  const place = (cell) => {
    const row = Math.floor(cell / W), col = cell % W;
    return { x: M + (opts.flipped ? W - 1 - col : col) * S, y: (opts.flipped ? row : H - 1 - row) * S, row, col };
  };
  const point = (col, row) => { const { x, y } = place(row * W + col); return [x + S / 2, y + S / 2]; };
  const line = (a, b, width) => svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#5c4326", "stroke-width": width || 1.5 });
  root.append(svg("rect", { x: M, y: 0, width: W * S, height: H * S, fill: "#f2d9a6" }));
  for (let row = 0; row < H; row++) root.append(line(point(0, row), point(W - 1, row)));
  for (let col = 0; col < W; col++) {
    const edge = col === 0 || col === W - 1;
    if (board.river == null || edge) root.append(line(point(col, 0), point(col, H - 1)));
    else {
      root.append(line(point(col, 0), point(col, board.river)));
      root.append(line(point(col, board.river + 1), point(col, H - 1)));
    }
  }
  for (const p of board.palaces || []) {
    const col = p % W, row = Math.floor(p / W);
    root.append(line(point(col, row), point(col + 2, row + 2)), line(point(col + 2, row), point(col, row + 2)));
  }
  (board.files || []).forEach((name, col) => {
    root.append(svg("text", { x: point(col, 0)[0], y: H * S + 16, "text-anchor": "middle", "font-size": 13, fill: "#6b7385" }, name));
  });
  (board.ranks || []).forEach((name, row) => {
    root.append(svg("text", { x: M / 2, y: point(0, row)[1] + 5, "text-anchor": "middle", "font-size": 13, fill: "#6b7385" }, name));
  });
  const highlights = new Set([...(obs ? obs.highlights || [] : []), ...(opts.changed || [])]);
  for (const cell of highlights) {
    const [cx, cy] = point(cell % W, Math.floor(cell / W));
    root.append(svg("circle", { cx, cy, r: S * 0.46, fill: "rgba(255,214,0,.55)" }));
  }
  if (opts.selected != null) {
    const [cx, cy] = point(opts.selected % W, Math.floor(opts.selected / W));
    root.append(svg("circle", { cx, cy, r: S * 0.46, fill: "none", stroke: "#2f6fd6", "stroke-width": 4 }));
  }
  for (const b of (obs && obs.blocked) || []) root.append(blockedCell(b, place(b.cell), S));
  for (const p of obs ? obs.pieces : []) root.append(pieceAt(p, place(p.cell), S, opts));
  targetsAndHits(root, W * H, place, S, opts);
  return root;
}

/** A cell no piece may enter: the duck as a duck, any other as a stone. */
function blockedCell(b, at, S) {
  const g = svg("g", { class: "blocked", "data-cell": b.cell, "data-kind": b.kind }, svg("title", {}, b.kind));
  if (b.kind === "duck") {
    const cx = at.x + S / 2, cy = at.y + S / 2;
    g.append(svg("ellipse", { cx, cy: cy + S * 0.08, rx: S * 0.3, ry: S * 0.2, fill: "#f6c90e", stroke: "#8a6d00", "stroke-width": 1.2 }));
    g.append(svg("circle", { cx: cx + S * 0.12, cy: cy - S * 0.12, r: S * 0.13, fill: "#f6c90e", stroke: "#8a6d00", "stroke-width": 1.2 }));
    g.append(svg("path", { d: `M ${cx + S * 0.24} ${cy - S * 0.14} l ${S * 0.14} ${S * 0.03} l ${-S * 0.14} ${S * 0.05} z`, fill: "#e8731c" }));
    g.append(svg("circle", { cx: cx + S * 0.15, cy: cy - S * 0.15, r: S * 0.025, fill: "#222" }));
  } else {
    g.append(svg("rect", { x: at.x + 2, y: at.y + 2, width: S - 4, height: S - 4, fill: "#4a4036", rx: 4 }));
    g.append(svg("rect", { x: at.x + 8, y: at.y + 8, width: S - 16, height: S - 16, fill: "none", stroke: "#7a6c5d", "stroke-width": 2, rx: 3 }));
  }
  return g;
}

function renderGraph(board, obs, opts) {
  const S = 62, M = 34;
  const xs = board.points.map((p) => p.x), ys = board.points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const at = (i) => {
    const p = board.points[i];
    return { x: M + (opts.flipped ? maxX - p.x : p.x - minX) * S, y: M + (opts.flipped ? p.y - minY : maxY - p.y) * S };
  };
  const root = svg("svg", { viewBox: `0 0 ${(maxX - minX) * S + 2 * M} ${(maxY - minY) * S + 2 * M}`, class: "board", "data-kind": "graph" });
  for (const e of board.edges) {
    const a = at(e.a), b = at(e.b);
    if (e.kind === "railway") {
      root.append(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: "#2b2b2b", "stroke-width": 6, class: "railway" }));
      root.append(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: "#fff", "stroke-width": 2.5, "stroke-dasharray": "7 7" }));
    } else {
      root.append(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: "#8a8f9c", "stroke-width": 1.6, class: e.kind }));
    }
  }
  const highlights = new Set([...(obs ? obs.highlights || [] : []), ...(opts.changed || [])]);
  board.points.forEach((p, i) => {
    const { x, y } = at(i);
    const kind = p.kind;
    let shape;
    if (kind === "camp") shape = svg("circle", { cx: x, cy: y, r: 20, fill: "#e4f1dc", stroke: "#5c7f4b", "stroke-width": 1.5 });
    else if (kind === "headquarters") shape = svg("rect", { x: x - 24, y: y - 16, width: 48, height: 32, rx: 12, fill: "#f4dddd", stroke: "#9c4b4b", "stroke-width": 1.5 });
    else if (kind === "mountain") shape = svg("path", { d: `M${x - 20},${y + 14} L${x},${y - 16} L${x + 20},${y + 14} Z`, fill: "#d9d2c3", stroke: "#8c8166" });
    else shape = svg("rect", { x: x - 20, y: y - 13, width: 40, height: 26, fill: "#fff", stroke: kind === "station" ? "#2b2b2b" : "#8a8f9c", "stroke-width": 1.3 });
    shape.setAttribute("class", `point ${kind}`);
    root.append(shape);
    if (highlights.has(i)) root.append(svg("circle", { cx: x, cy: y, r: 24, fill: "rgba(255,214,0,.45)" }));
    if (opts.selected === i) root.append(svg("circle", { cx: x, cy: y, r: 25, fill: "none", stroke: "#2f6fd6", "stroke-width": 4 }));
    if (kind !== "mountain") root.append(svg("text", { x: x + 22, y: y + 24, "font-size": 9, fill: "#9aa0ad" }, p.name));
  });
  for (const p of obs ? obs.pieces : []) {
    const { x, y } = at(p.cell);
    const fill = opts.colours[p.owner] || PALETTE[p.owner % PALETTE.length];
    root.append(svg("g", { class: "piece", "data-cell": p.cell }, svg("title", {}, pieceTitle(p)),
      svg("rect", { x: x - 19, y: y - 12, width: 38, height: 24, rx: 5, fill, stroke: "#222" }),
      svg("text", { x, y: y + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: inkOn(fill) }, glyphOf(p, opts.pieces) || p.label)));
  }
  board.points.forEach((p, i) => {
    const { x, y } = at(i);
    if (opts.targets && opts.targets.has(i)) root.append(svg("circle", { cx: x, cy: y, r: 8, fill: "rgba(47,111,214,.7)" }));
    const hit = svg("circle", { cx: x, cy: y, r: 22, fill: "transparent", class: "cell" + (opts.targets && opts.targets.has(i) ? " target" : ""), "data-cell": i });
    if (opts.onCell) hit.addEventListener("click", () => opts.onCell(i));
    root.append(hit);
  });
  return root;
}

// ---- Pages -----------------------------------------------------------------

const main = document.getElementById("main");
let cleanup = [];

function page(...children) {
  main.replaceChildren(...children.flat(Infinity).filter(Boolean));
}

function onStoreChange(refresh) {
  const source = new EventSource("/api/events");
  let pending = null, first = true;
  source.addEventListener("store", () => {
    // The first event only says where the counter stands.
    if (first) return void (first = false);
    clearTimeout(pending);
    pending = setTimeout(refresh, 100);
  });
  cleanup.push(() => source.close());
}

async function tournamentsPage() {
  const refresh = async () => {
    const [list, live] = await Promise.all([api("/api/tournaments"), api("/api/play")]);
    page(
      el("h1", {}, "Tournaments"),
      list.length === 0 ? el("p", { class: "muted" }, "No tournament in this store yet: run `arbiter tournament --config ...`.") :
        el("table", { id: "tournaments" },
          el("tr", {}, el("th", {}, "#"), el("th", {}, "Name"), el("th", { class: "num" }, "Games"), el("th", {}, "State")),
          list.map((t) => el("tr", { class: "link", onclick: () => (location.hash = `#/tournaments/${t.id}`) },
            el("td", {}, t.id), el("td", {}, el("a", { href: `#/tournaments/${t.id}` }, t.name)), el("td", { class: "num" }, t.games),
            el("td", {}, t.finished ? "finished" : "running or interrupted")))),
      live.length ? [el("h2", {}, "Games on this server"), liveTable(live)] : null,
    );
  };
  await refresh();
  onStoreChange(refresh);
}

function standingsTable(table) {
  return el("table", { class: "standings", "data-title": table.title },
    el("tr", {}, ["#", "Player", "Games", "Points", "W", "D", "L", "Elo", "±"].map((h, i) => el("th", { class: i > 1 ? "num" : "" }, h))),
    table.rows.map((r) => el("tr", {},
      el("td", {}, r.rank), el("td", {}, r.name), el("td", { class: "num" }, r.games), el("td", { class: "num points" }, r.points.toFixed(1)),
      el("td", { class: "num" }, r.wins), el("td", { class: "num" }, r.draws), el("td", { class: "num" }, r.losses),
      el("td", { class: "num" }, r.games ? (Math.round(r.elo) + 0).toFixed(0) : "–"), el("td", { class: "num" }, r.games && isFinite(r.error) ? r.error.toFixed(0) : "–"))));
}

function crossTable(table, names) {
  const order = table.rows.map((r) => r.entrant);
  return el("table", { class: "cross" },
    el("tr", {}, el("th", {}, ""), order.map((e, i) => el("th", { class: "num", title: names[e] }, `#${i + 1}`))),
    order.map((e, i) => el("tr", {}, el("th", {}, `#${i + 1} ${names[e]}`),
      order.map((f) => {
        if (e === f) return el("td", { class: "num muted" }, "–");
        const c = table.cross[e][f];
        return el("td", { class: "num" }, c ? `${c[0]}/${c[1]}` : "·");
      }))));
}

async function tournamentPage(id) {
  const variants = Object.fromEntries((await api("/api/variants")).map((v) => [v.id, v]));
  const liveBox = el("div", { id: "live-games" });
  // Games in progress, as the tournament's runner shows them to spectators.
  const drawLive = (live) => liveBox.replaceChildren(...(live.games.length === 0 ? [] : [
    el("h2", {}, "Games in progress"),
    el("div", { class: "live-grid" }, live.games.map((g) => {
      const v = variants[g.variant], f = g.frame;
      return el("div", { class: "live-game", "data-index": g.index },
        v ? el("div", { class: "board-small" }, renderBoard(v.board, f.observation, { flipped: false, colours: sideColours(v.players), pieces: chosenSet(v.id, v.piece_sets) })) : null,
        el("div", {}, g.players.join(" – ")),
        el("div", { class: "muted" }, `${g.variant}, ply ${f.ply}${f.last_move ? `: ${f.last_move}` : ""}`),
        (f.clocks || []).some((c) => c !== null) ? el("div", { class: "muted" }, f.clocks.map(formatClock).join(" · ")) : null);
    }))]));
  let played = null;
  const refresh = async () => {
    const live = await api(`/api/tournaments/${id}/live`);
    if (live.played !== played) {
      played = live.played;
      await standings();
    }
    drawLive(live);
  };
  const standings = async () => {
    const [t, recent] = await Promise.all([api(`/api/tournaments/${id}`), api(`/api/games?tournament=${id}&limit=20`)]);
    const pct = t.expected ? Math.round((100 * t.played) / t.expected) : 0;
    page(
      el("h1", {}, t.name),
      el("p", {}, el("span", { class: "progress" }, el("div", { style: `width:${pct}%` })), " ",
        el("span", { id: "progress" }, `${t.played} / ${t.expected} games`), " · ", t.format, " · ", t.variants.join(", "),
        " · ", t.finished ? "finished" : "live"),
      t.queue && (t.queue.waiting || t.queue.playing || t.queue.unconfirmed || t.queue.workers.length) ? el("p", { class: "muted", id: "queue" },
        `Queue: ${t.queue.waiting} waiting, ${t.queue.playing} being played`,
        t.queue.unconfirmed ? ` · ${t.queue.unconfirmed} results awaiting confirmation (not counted in the standings)` : "",
        t.queue.workers.map((w) => ` · ${w.host}: ${w.games} games, ${w.per_minute.toFixed(1)}/min`)) : null,
      liveBox,
      t.tune ? tunePlots(t.tune) : null,
      t.tables.map((table) => [el("h2", {}, `Standings: ${table.title}`), standingsTable(table),
        table.unfinished ? el("p", { class: "muted" }, `${table.unfinished} games without a result`) : null,
        el("h2", {}, `Crosstable: ${table.title}`), crossTable(table, t.players)]),
      el("h2", {}, "Latest games"), gamesTable(recent.games),
      el("p", {}, el("a", { href: `#/games?tournament=${id}` }, `All ${recent.total} games`)),
    );
  };
  await refresh();
  onStoreChange(refresh);
}

// A tune (SPSA): each parameter's estimate after every finished pair, its
// start dashed.
function tunePlots(tune) {
  const fmt = (p, v) => (p.type === "int" ? String(Math.round(v)) : String(+v.toFixed(4)));
  const W = 560, H = 150, L = 56, B = 22;
  return el("div", { id: "tune" },
    el("h2", {}, `SPSA: ${tune.points.length} of ${tune.iterations} pairs`),
    el("p", {}, tune.params.map((p, i) => `${p.name} = ${fmt(p, tune.theta[i])}`).join(", ")),
    tune.params.map((p, i) => {
      const path = [tune.start[i], ...tune.points.map((pt) => pt.theta[i])];
      let lo = Math.min(...path), hi = Math.max(...path);
      if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
      const x = (k) => L + (k * (W - L - 8)) / Math.max(1, path.length - 1);
      const y = (v) => 8 + ((hi - v) * (H - B - 16)) / (hi - lo);
      const line = path.map((v, k) => `${k ? "L" : "M"}${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
      return el("figure", { class: "tune-plot", "data-param": p.name },
        svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H },
          svg("line", { x1: L, y1: y(tune.start[i]), x2: W - 8, y2: y(tune.start[i]), stroke: "#9aa0ad", "stroke-dasharray": "4 4" }),
          svg("path", { d: line, fill: "none", stroke: "#2f6fd6", "stroke-width": 1.6 }),
          svg("line", { x1: L, y1: 8, x2: L, y2: H - B, stroke: "#6b7385" }),
          svg("line", { x1: L, y1: H - B, x2: W - 8, y2: H - B, stroke: "#6b7385" }),
          svg("text", { x: L - 4, y: 14, "text-anchor": "end", "font-size": 11, fill: "#6b7385" }, fmt({}, hi)),
          svg("text", { x: L - 4, y: H - B, "text-anchor": "end", "font-size": 11, fill: "#6b7385" }, fmt({}, lo)),
          svg("text", { x: W - 8, y: H - 6, "text-anchor": "end", "font-size": 11, fill: "#6b7385" }, `${path.length - 1} pairs`)),
        el("figcaption", {}, `${p.name} (${p.type}, ${p.min} to ${p.max}, start ${p.start})`));
    }));
}

function gamesTable(games) {
  return el("table", { class: "games" },
    el("tr", {}, ["#", "Variant", "Players", "Result", "Termination", "Plies", "Event"].map((h) => el("th", {}, h))),
    games.map((g) => el("tr", { class: "link", "data-game": g.id, onclick: () => (location.hash = `#/games/${g.id}`) },
      el("td", {}, el("a", { href: `#/games/${g.id}` }, g.id)), el("td", {}, g.variant), el("td", {}, g.players.join(" – ")),
      el("td", {}, g.result), el("td", {}, g.termination), el("td", { class: "num" }, g.plies), el("td", {}, g.event))));
}

async function gamesPage(query) {
  const variants = await api("/api/variants");
  const form = el("form", { class: "filters" },
    el("label", {}, "Variant", el("select", { name: "variant" }, el("option", { value: "" }, "any"),
      variants.map((v) => el("option", { value: v.id, selected: query.get("variant") === v.id }, v.name)))),
    el("label", {}, "Player", el("input", { name: "player", value: query.get("player") || "" })),
    el("label", {}, "Result", el("select", { name: "result" }, ["", "1-0", "0-1", "1/2-1/2", "*"].map((r) =>
      el("option", { value: r, selected: (query.get("result") || "") === r }, r || "any")))),
    el("label", {}, "Termination", el("input", { name: "termination", value: query.get("termination") || "" })),
    query.get("tournament") ? el("input", { type: "hidden", name: "tournament", value: query.get("tournament") }) : null,
    el("button", { class: "primary", type: "submit" }, "Filter"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
    location.hash = `#/games?${q}`;
  });
  const offset = Number(query.get("offset") || 0), limit = 50;
  const refresh = async () => {
    const q = new URLSearchParams(query);
    q.set("limit", limit);
    const list = await api(`/api/games?${q}`);
    const pageLink = (o, text) => {
      const p = new URLSearchParams(query);
      p.set("offset", o);
      return el("a", { href: `#/games?${p}` }, text);
    };
    page(el("h1", {}, "Games"), form,
      el("p", { class: "muted", id: "game-count" }, `${list.total} games`),
      gamesTable(list.games),
      el("p", {}, offset > 0 ? pageLink(Math.max(0, offset - limit), "« newer") : null, " ",
        offset + limit < list.total ? pageLink(offset + limit, "older »") : null));
  };
  await refresh();
  onStoreChange(refresh);
}

// "spectator", "referee" or "player:N" as a reader says it.
function viewName(g, view) {
  const seat = view.startsWith("player:") ? Number(view.slice(7)) : null;
  if (seat === null) return `the ${view}`;
  return `${g.sides[seat] || `player ${seat}`} (${g.players[seat]})`;
}

async function gamePage(id, query) {
  const view = query.get("view") || "spectator";
  const g = await api(`/api/games/${id}?view=${encodeURIComponent(view)}`);
  const colours = sideColours(g.sides);
  const state = { ply: g.frames.length - 1, flipped: false };
  const render = () => {
    const frame = g.frames[state.ply];
    const changed = state.ply > 0 ? changedCells(g.frames[state.ply - 1].observation, frame.observation) : [];
    const board = renderBoard(g.board, frame.observation, { flipped: state.flipped, colours, changed, pieces: chosenSet(g.variant, g.piece_sets) });
    const clocks = g.players.map((name, i) => el("div", { class: "clock" }, el("span", {}, `${g.sides[i] || i}: ${name}`),
      el("span", { class: "clock-value" }, formatClock(frame.clocks[i]))));
    const labels = moveLabels(g.frames);
    const moves = el("div", { class: "movelist" }, g.frames.slice(1).map((f, i) =>
      el("span", { class: f.ply === state.ply ? "current" : "", "data-ply": f.ply, onclick: () => { state.ply = f.ply; render(); } },
        labels[i])));
    const button = (label, id, action) => el("button", { id, onclick: () => { action(); render(); } }, label);
    page(
      el("h1", {}, `${g.variant_name}: ${g.players.join(" – ")}`),
      el("p", {}, el("b", { id: "result" }, g.result), ` (${g.termination}) · ${g.event}, round ${g.round}`,
        g.tournament ? [" · ", el("a", { href: `#/tournaments/${g.tournament}` }, "tournament")] : null),
      g.hidden ? el("p", { class: "muted", id: "views" }, `Hidden-information game, shown as ${viewName(g, g.viewer)} sees it. `,
        g.views.filter((v) => v !== g.viewer).map((v) =>
          [" · ", el("a", { href: `#/games/${id}?view=${encodeURIComponent(v)}`, "data-view": v }, `as ${viewName(g, v)}`)])) : null,
      el("div", { class: "game" },
        el("div", { class: "board-wrap" }, board, notesOf(frame.observation)),
        el("div", { class: "side" }, clocks,
          el("div", { class: "controls" },
            button("«", "first", () => (state.ply = 0)),
            button("‹", "prev", () => (state.ply = Math.max(0, state.ply - 1))),
            button("›", "next", () => (state.ply = Math.min(g.frames.length - 1, state.ply + 1))),
            button("»", "last", () => (state.ply = g.frames.length - 1)),
            button("Flip", "flip", () => (state.flipped = !state.flipped)),
            pieceSetPicker(g.variant, g.piece_sets, render),
            (!g.hidden || g.can_reveal) ? el("a", { href: `/api/games/${id}/record`, download: "", id: "download" }, el("button", {}, "Download record")) : null),
          el("p", { id: "ply" }, `Ply ${state.ply} of ${g.frames.length - 1}`, frame.last_move ? `: ${frame.last_move}` : ""),
          moves)));
  };
  const keys = (e) => {
    if (e.key === "ArrowLeft") state.ply = Math.max(0, state.ply - 1);
    else if (e.key === "ArrowRight") state.ply = Math.min(g.frames.length - 1, state.ply + 1);
    else return;
    render();
  };
  document.addEventListener("keydown", keys);
  cleanup.push(() => document.removeEventListener("keydown", keys));
  render();
}

// ---- Play ------------------------------------------------------------------

async function playForm() {
  const variants = await api("/api/variants");
  const seatSelect = el("select", { name: "seat" });
  const variantSelect = el("select", { name: "variant" }, variants.map((v) => el("option", { value: v.id }, v.name)));
  const tc = el("input", { name: "tc", value: "5+3", size: 10 });
  const setSeats = () => {
    const v = variants.find((x) => x.id === variantSelect.value);
    seatSelect.replaceChildren(el("option", { value: "random" }, "random"), ...v.players.map((p, i) => el("option", { value: String(i) }, p)));
    tc.value = v.hidden ? "inf" : "5+3";
  };
  variantSelect.addEventListener("change", setSeats);
  setSeats();
  const error = el("p", { class: "error", id: "play-error" });
  const form = el("form", { class: "play", id: "play-form" },
    el("label", {}, "Variant", variantSelect),
    el("label", {}, "Opponent (a player spec, or human)", el("input", { name: "opponent", value: "random", size: 28 })),
    el("label", {}, "Your side", seatSelect),
    el("label", {}, "Time control (minutes+seconds per move, or arbiter's syntax: inf, st=10)", tc),
    el("label", {}, "Start position (empty: the variant's start)", el("input", { name: "position", value: "", size: 40 })),
    el("label", {}, "Your name", el("input", { name: "name", value: "person" })),
    el("label", {}, "Variant options (name=value, comma-separated)", el("input", { name: "options", value: "", size: 30 })),
    el("button", { class: "primary", type: "submit", id: "start" }, "Start"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    // "5+3" is five minutes and three seconds a move, as people say it.
    const human = /^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/.exec(data.tc.trim());
    if (human) data.tc = `${Number(human[1]) * 60}+${human[2] || 0}`;
    if (!data.position.trim()) delete data.position;
    // Options as on the command line: a value is JSON when it parses, else a string.
    data.options = Object.fromEntries(data.options.split(",").map((item) => item.trim()).filter(Boolean).map((item) => {
      const [name, ...rest] = item.split("=");
      const text = rest.join("=").trim();
      let value;
      try { value = JSON.parse(text); } catch { value = text; }
      return [name.trim(), value];
    }));
    try {
      const started = await post("/api/play", data);
      if (started.invite) sessionStorage.setItem(`invite-${started.id}`, started.invite);
      location.hash = `#/play/${started.id}?token=${started.token}`;
    } catch (err) {
      error.textContent = err.message;
    }
  });
  page(el("h1", {}, "Play"), form, error,
    el("p", { class: "muted" }, "Opponents: random, mcts:iterations=400, or human for a second person (an invite link appears). ",
      "Engines (uci:..., engine:...) need the server started with --allow-engines."));
}

function liveTable(list) {
  return el("table", { id: "live" },
    el("tr", {}, ["#", "Variant", "Players", "Ply", "Result"].map((h) => el("th", {}, h))),
    list.map((s) => el("tr", { class: "link", onclick: () => (location.hash = `#/play/${s.id}`) },
      el("td", {}, el("a", { href: `#/play/${s.id}` }, s.id)), el("td", {}, s.variant), el("td", {}, s.players.join(" – ")),
      el("td", { class: "num" }, s.ply ?? 0), el("td", {}, s.result || "playing"))));
}

async function livePage() {
  const refresh = async () => {
    const list = await api("/api/play");
    page(el("h1", {}, "Games on this server"), list.length ? liveTable(list)
      : el("p", { class: "muted", id: "no-live" }, "No game is being played on this server. Start one from Play."));
  };
  await refresh();
  const timer = setInterval(refresh, 2000);
  cleanup.push(() => clearInterval(timer));
}

async function playPage(id, query) {
  const token = query.get("token");
  const ui = { state: null, selected: null, flipped: null, receivedAt: 0, chooser: null };
  const invite = sessionStorage.getItem(`invite-${id}`);
  const act = async (action, move) => {
    try {
      await post(`/api/play/${id}/act`, { token, action, move });
    } catch (err) {
      const box = document.getElementById("play-error");
      if (box) box.textContent = err.message;
    }
  };
  const choose = (moves) => {
    if (moves.length === 1) return act("move", moves[0].id);
    ui.chooser = moves;
    render();
  };
  const onCell = (cell) => {
    const moves = (ui.state && ui.state.moves) || [];
    const from = (m) => m.cells && m.cells.length >= 2 && m.cells[0] === cell;
    if (ui.selected !== null) {
      const to = moves.filter((m) => m.cells && m.cells.length >= 2 && m.cells[0] === ui.selected && m.cells[m.cells.length - 1] === cell);
      if (to.length) {
        ui.selected = null;
        return choose(to);
      }
    }
    if (moves.some(from)) ui.selected = ui.selected === cell ? null : cell;
    else {
      ui.selected = null;
      const here = moves.filter((m) => m.cells && m.cells.length === 1 && m.cells[0] === cell);
      if (here.length) return choose(here);
    }
    render();
  };
  const clockNodes = [];
  const tick = () => {
    const s = ui.state;
    if (!s || !s.clocks) return;
    s.clocks.forEach((ms, i) => {
      const running = !s.result && s.to_move === i && ms !== null;
      const left = running ? ms - s.clock_age_ms - (performance.now() - ui.receivedAt) : ms;
      if (clockNodes[i]) {
        clockNodes[i].value.textContent = formatClock(left);
        clockNodes[i].box.classList.toggle("running", !s.result && s.to_move === i);
      }
    });
  };
  const render = () => {
    const s = ui.state;
    if (!s) return;
    if (ui.flipped === null && s.observation) ui.flipped = s.you !== null && ownSideOnTop(s.board, s.observation, s.you);
    const moves = s.moves || [];
    const targets = new Set();
    if (ui.selected !== null) moves.forEach((m) => { if (m.cells && m.cells.length >= 2 && m.cells[0] === ui.selected) targets.add(m.cells[m.cells.length - 1]); });
    else moves.forEach((m) => { if (m.cells && m.cells.length === 1) targets.add(m.cells[0]); });
    const board = renderBoard(s.board, s.observation, { flipped: ui.flipped, colours: sideColours(s.sides), targets, selected: ui.selected, onCell: s.you !== null ? onCell : null, pieces: chosenSet(s.variant, s.piece_sets) });
    clockNodes.length = 0;
    const clocks = s.players.map((name, i) => {
      const value = el("span", { class: "clock-value" }, "");
      const box = el("div", { class: "clock", "data-seat": i }, el("span", {}, `${s.sides[i]}: ${name}${s.you === i ? " (you)" : ""}`), value);
      clockNodes.push({ value, box });
      return box;
    });
    const loose = moves.filter((m) => !m.cells || m.cells.length === 0);
    const status = s.result
      ? el("div", { class: "banner", id: "result" }, `${s.result.result} (${s.result.termination})`,
        s.stored_as ? [" · ", el("a", { href: `#/games/${s.stored_as}`, id: "stored-game" }, "the recorded game")] : null)
      : el("div", { id: "status" }, s.you === null ? `Watching as a spectator. ${s.sides[s.to_move] || ""} to move.` :
        s.to_move === s.you ? "Your move." : `Waiting for ${s.players[s.to_move] || "the opponent"}…`);
    const allMoves = moves.length ? el("form", { class: "controls", id: "move-form", onsubmit: (e) => { e.preventDefault(); act("move", e.target.elements.move.value); } },
      el("select", { name: "move", id: "move-select" }, moves.map((m) => el("option", { value: m.id }, m.text))),
      el("button", { type: "submit" }, "Play"),
      el("button", { type: "button", id: "random-move", title: "Play one of your legal moves at random (a Junqi deployment, say)",
        onclick: () => act("move", moves[Math.floor(Math.random() * moves.length)].id) }, "Random move")) : null;
    page(
      el("h1", {}, `${s.variant_name}: ${s.players.join(" – ")}`),
      invite && s.you !== null ? el("p", { class: "muted" }, "Invite the other player: ",
        el("code", {}, `${location.origin}/#/play/${id}?token=${invite}`)) : null,
      el("div", { class: "game" },
        el("div", { class: "board-wrap" }, board, notesOf(s.observation)),
        el("div", { class: "side" }, clocks, status,
          s.notice ? el("p", { class: "banner", id: "notice" }, s.notice) : null,
          s.draw_offered_by !== null && s.draw_offered_by !== undefined ? el("div", { class: "banner", id: "draw-offer" },
            `${s.players[s.draw_offered_by]} offers a draw. `,
            el("button", { id: "accept-draw", onclick: () => act("accept_draw") }, "Accept"), " ",
            el("button", { id: "decline-draw", onclick: () => act("decline_draw") }, "Decline")) : null,
          s.last_move ? el("p", { id: "last-move" }, `Last move: ${s.last_move}`) : null,
          loose.length ? el("div", { class: "controls", id: "other-moves" }, loose.map((m) => el("button", { class: "choice", onclick: () => act("move", m.id) }, m.text))) : null,
          allMoves,
          s.you !== null && !s.result ? el("div", { class: "controls" },
            // The referee hears a player at its turn: said earlier, these wait for it.
            el("button", { id: "resign", onclick: () => confirm("Resign?") && act("resign") }, s.to_move === s.you ? "Resign" : "Resign (at your turn)"),
            el("button", { id: "offer-draw", onclick: () => act("offer_draw") }, s.to_move === s.you ? "Offer draw" : "Offer draw (at your turn)"),
            el("button", { id: "flip", onclick: () => { ui.flipped = !ui.flipped; render(); } }, "Flip")) : null,
          pieceSetPicker(s.variant, s.piece_sets, render),
          el("p", { class: "error", id: "play-error" }, s.error || ""))),
      ui.chooser ? el("div", { class: "chooser", onclick: (e) => { if (e.target === e.currentTarget) { ui.chooser = null; render(); } } },
        el("div", {}, el("b", {}, "Which move?"), ui.chooser.map((m) =>
          el("button", { class: "choice", onclick: () => { ui.chooser = null; act("move", m.id); render(); } }, m.text)))) : null,
    );
    tick();
  };
  const source = new EventSource(`/api/play/${id}/events${token ? `?token=${encodeURIComponent(token)}` : ""}`);
  source.addEventListener("state", (e) => {
    const next = JSON.parse(e.data);
    if (!ui.state || next.ply !== ui.state.ply || !next.moves) { ui.selected = null; ui.chooser = null; }
    ui.state = next;
    window.arbiterState = next;
    ui.receivedAt = performance.now();
    render();
  });
  source.onerror = () => { if (ui.state && ui.state.result) source.close(); };
  const timer = setInterval(tick, 200);
  cleanup.push(() => { source.close(); clearInterval(timer); });
  page(el("p", {}, "Connecting…"));
}

// ---- Rating list -------------------------------------------------------------

// Each player's rating as a dot with its 95% interval, best at the top.
function ratingPlot(table) {
  const rows = table.rows;
  const lows = rows.map((r) => r.rating - (r.error || 0)), highs = rows.map((r) => r.rating + (r.error || 0));
  let min = Math.min(...lows), max = Math.max(...highs);
  if (max - min < 50) { min -= 25; max += 25; }
  const [w, left, right, rowH] = [560, 150, 20, 22], h = rows.length * rowH + 30;
  const x = (v) => left + ((v - min) / (max - min)) * (w - left - right);
  const ticks = [];
  const step = [10, 25, 50, 100, 200, 500, 1000].find((s) => (max - min) / s <= 8) || 2000;
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) {
    ticks.push(svg("line", { x1: x(t), x2: x(t), y1: 0, y2: h - 24, stroke: "#d8dce4" }),
      svg("text", { x: x(t), y: h - 8, "text-anchor": "middle", "font-size": 11, fill: "#6b7385" }, String(t)));
  }
  return svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "rating-plot", "data-variant": table.variant }, ticks,
    rows.map((r, i) => {
      const y = i * rowH + rowH / 2 + 2;
      return svg("g", { class: "rating" },
        svg("text", { x: left - 8, y: y + 4, "text-anchor": "end", "font-size": 12 }, r.name),
        r.error !== null ? svg("line", { x1: x(r.rating - r.error), x2: x(r.rating + r.error), y1: y, y2: y, stroke: "#2f6fd6", "stroke-width": 2 }) : null,
        svg("circle", { cx: x(r.rating), cy: y, r: 4, fill: "#2f6fd6" }));
    }));
}

async function ratingsPage(query) {
  const anchor = query.get("anchor") || "";
  const data = await api(`/api/ratings?anchor=${encodeURIComponent(anchor)}`);
  const form = el("form", { class: "filters", onsubmit: (e) => {
    e.preventDefault();
    location.hash = `#/ratings?anchor=${encodeURIComponent(form.anchor.value)}`;
  } }, el("label", {}, "Anchor (NAME=ELO)", el("input", { name: "anchor", value: anchor, placeholder: "the field's mean is 0" })),
    el("button", { type: "submit" }, "Rate"));
  const pct = (x, n) => `${(100 * x / Math.max(n, 1)).toFixed(1)}%`;
  page(
    el("h1", {}, "Rating list"),
    el("p", { class: "muted" }, `Every stored tournament, a list per variant: maximum likelihood with the first mover's advantage and draws fitted, 95% error bars from ${data.resamples} bootstrap resamples of the game pairs.`),
    form,
    data.variants.length === 0 ? el("p", { class: "muted" }, "No finished two-player tournament games in this store yet.") : null,
    data.variants.map((t) => [
      el("h2", {}, `${t.variant}: ${t.games} games`),
      el("table", { class: "ratings", "data-variant": t.variant },
        el("tr", {}, ["#", "Player", "Rating", "±95%", "Games", "Score", "Draws"].map((h, i) => el("th", { class: i > 1 ? "num" : "" }, h))),
        t.rows.map((r, i) => el("tr", {}, el("td", {}, i + 1), el("td", {}, r.name), el("td", { class: "num" }, r.rating.toFixed(1)),
          el("td", { class: "num" }, r.error === null ? "–" : r.error.toFixed(1)), el("td", { class: "num" }, r.games),
          el("td", { class: "num" }, pct(r.points, r.games)), el("td", { class: "num" }, pct(r.draws, r.games))))),
      el("p", { class: "muted" }, `First mover's advantage ${t.advantage >= 0 ? "+" : ""}${t.advantage.toFixed(1)}${t.advantage_error === null ? "" : ` ± ${t.advantage_error.toFixed(1)}`} Elo; draw parameter ${t.draw.toFixed(1)} Elo${t.draw_at_bound ? " (its bound: these games do not fix it)" : ""}; tournaments ${t.tournaments.join(", ")}.${t.too_few_to_rank ? " Too few games to rank: the order is no ranking; the error bars say how little is known." : ""}`),
      el("div", { class: "board-wrap" }, ratingPlot(t)),
    ]),
  );
}

// ---- Router ----------------------------------------------------------------

async function route() {
  cleanup.forEach((f) => f());
  cleanup = [];
  const [path, q] = location.hash.replace(/^#/, "").split("?");
  const query = new URLSearchParams(q || "");
  const parts = (path || "/").split("/").filter(Boolean);
  try {
    if (parts.length === 0) await tournamentsPage();
    else if (parts[0] === "tournaments" && parts[1]) await tournamentPage(parts[1]);
    else if (parts[0] === "games" && parts[1]) await gamePage(parts[1], query);
    else if (parts[0] === "games") await gamesPage(query);
    else if (parts[0] === "play" && parts[1]) await playPage(parts[1], query);
    else if (parts[0] === "play") await playForm();
    else if (parts[0] === "live") await livePage();
    else if (parts[0] === "ratings") await ratingsPage(query);
    else page(el("p", { class: "error" }, `No page ${path}`));
  } catch (err) {
    page(el("p", { class: "error", id: "page-error" }, err.message));
  }
}

window.addEventListener("hashchange", route);
route();
