// storpulse page, part 1: times and charts (plain JS and SVG, no library). Times are printed in
// ISO 8601 with the browser's UTC offset (2026-12-06T08:58:00+01:00), never in one locale's
// format; a chart has a time axis in that offset, a value axis with its unit, the baseline
// median and its band (median +- 3 scaled MADs: where the learned runs lay) and one point per
// probe run. app.js draws the rest of the page.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}

const pad2 = (n) => String(n).padStart(2, "0");

// "+01:00" for a Date in the browser's time zone
function utcOffset(d) {
  const off = -d.getTimezoneOffset();
  const a = Math.abs(off);
  return `${off < 0 ? "-" : "+"}${pad2(Math.floor(a / 60))}:${pad2(a % 60)}`;
}

// seconds since the epoch -> "2026-12-06T08:58:00+01:00" (local time, its offset)
function isoTime(ts) {
  const d = new Date(ts * 1000);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}T` +
    `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}${utcOffset(d)}`;
}

// seconds since the epoch -> "2026-12-06T07:58:00Z", for <time datetime>
const isoUtc = (ts) => new Date(ts * 1000).toISOString().replace(/\.000Z$/, "Z");

// A quantity's display unit: the largest whose value stays >= 1 for `max`.
const UNITS = {
  "bytes/s": [[1, "B/s"], [1024, "KiB/s"], [1048576, "MiB/s"], [1073741824, "GiB/s"]],
  "seconds": [[1e-6, "µs"], [1e-3, "ms"], [1, "s"]],
  "iops": [[1, "IOPS"], [1000, "kIOPS"]],
};

function pickUnit(kind, max) {
  const us = UNITS[kind];
  let u = us[0];
  for (const c of us) if (max >= c[0]) u = c;
  return { div: u[0], name: u[1] };
}

// "nice" step (1, 2, 2.5, 5 x 10^k) giving about n ticks up to max
function niceStep(max, n) {
  const raw = max / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

const TIME_STEPS = [60, 300, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

// Time ticks at whole steps of local time between t0 and t1, about 4 of them.
function timeTicks(t0, t1) {
  const span = Math.max(t1 - t0, 60);
  const step = TIME_STEPS.find((s) => span / s <= 4) || TIME_STEPS[TIME_STEPS.length - 1];
  const off = -new Date(t0 * 1000).getTimezoneOffset() * 60;
  const ticks = [];
  for (let t = Math.ceil((t0 + off) / step) * step - off; t <= t1; t += step) ticks.push(t);
  return { ticks, days: step >= 86400 || span > 86400 };
}

function timeLabel(t, days) {
  const d = new Date(t * 1000);
  const hm = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return days ? `${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${hm}` : hm;
}

const fmtNum = (v) => (v === 0 || v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

// Axes, grid and labels; returns the scales. g: geometry {W, H, L, R, T, B}.
function drawAxes(s, g, t0, t1, max, unit) {
  const x = (t) => g.L + (t1 > t0 ? (t - t0) / (t1 - t0) : 0.5) * (g.W - g.L - g.R);
  const y = (v) => g.H - g.B - (v / max) * (g.H - g.T - g.B);
  const step = niceStep(max / unit.div, 4) * unit.div;
  for (let v = 0; v <= max * 1.0001; v += step) {
    s.append(svg("line", { class: "grid", x1: g.L, x2: g.W - g.R, y1: y(v), y2: y(v) }));
    s.append(svg("text", { class: "tick y", x: g.L - 4, y: y(v) + 4 }, fmtNum(v / unit.div)));
  }
  const { ticks, days } = timeTicks(t0, t1);
  for (const t of ticks) {
    s.append(svg("line", { class: "tickmark", x1: x(t), x2: x(t), y1: g.H - g.B, y2: g.H - g.B + 4 }));
    s.append(svg("text", { class: "tick x", x: x(t), y: g.H - g.B + 16 }, timeLabel(t, days)));
  }
  s.append(svg("line", { class: "axis", x1: g.L, x2: g.W - g.R, y1: g.H - g.B, y2: g.H - g.B }));
  s.append(svg("text", { class: "axis-title", x: g.W - g.R, y: g.H - 4 },
               `time (UTC${utcOffset(new Date(t1 * 1000))})`));
  s.append(svg("text", { class: "axis-title y", x: 4, y: 12 }, unit.name));
  return { x, y };
}

// One chart. c: {title, kind ("bytes/s", "seconds", "iops"), points [[t, v]...],
// baseline {median, mad} or null, higherIsBetter}.
function chart(c) {
  const g = { W: 460, H: 190, L: 46, R: 12, T: 22, B: 36 };
  const pts = c.points;
  const b = c.baseline && c.baseline.median != null ? c.baseline : null;
  const mad = b && b.mad != null ? b.mad : 0;
  const max = Math.max(...pts.map((p) => p[1]), b ? b.median + 3 * mad : 0, 1e-12) * 1.1;
  const unit = pickUnit(c.kind, max / 1.1);
  const t0 = pts[0][0], t1 = pts[pts.length - 1][0];
  const last = pts[pts.length - 1][1] / unit.div;
  const desc = `${c.title}: ${pts.length} runs from ${isoTime(t0)} to ${isoTime(t1)}, last ` +
    `${fmtNum(last)} ${unit.name}` + (b ? `, baseline ${fmtNum(b.median / unit.div)} ${unit.name}` : "");
  const s = svg("svg", { viewBox: `0 0 ${g.W} ${g.H}`, role: "img", "aria-label": desc,
                         "data-unit": unit.name });
  const { x, y } = drawAxes(s, g, t0, t1, max, unit);
  if (b) {
    const lo = Math.max(b.median - 3 * mad, 0), hi = b.median + 3 * mad;
    s.append(svg("rect", { class: "band", x: g.L, width: g.W - g.L - g.R, y: y(hi),
                           height: Math.max(y(lo) - y(hi), 1),
                           "data-low": lo, "data-high": hi }));
    s.append(svg("line", { class: "baseline", x1: g.L, x2: g.W - g.R, y1: y(b.median), y2: y(b.median) }));
  }
  s.append(svg("polyline", { class: "line", points: pts.map((p) => `${x(p[0])},${y(p[1])}`).join(" ") }));
  for (const p of pts) {
    const dot = svg("circle", { class: "pt", cx: x(p[0]), cy: y(p[1]), r: 3 });
    dot.append(svg("title", {}, `${isoTime(p[0])}: ${fmtNum(p[1] / unit.div)} ${unit.name}`));
    s.append(dot);
  }
  const legend = b ? `baseline ${fmtNum(b.median / unit.div)} ${unit.name}, band ± 3 MAD ` +
    `(${fmtNum(Math.max(b.median - 3 * mad, 0) / unit.div)}–${fmtNum((b.median + 3 * mad) / unit.div)})`
    : "no baseline learned yet";
  const fig = document.createElement("figure");
  fig.className = "chart";
  const cap = document.createElement("figcaption");
  cap.append(`${c.title} (${unit.name})`);
  const small = document.createElement("span");
  small.className = "legend";
  small.textContent = legend;
  cap.append(small);
  fig.append(cap, s);
  return fig;
}
