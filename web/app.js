// storpulse page: plain JS and SVG, no library, no external resource. Reads /api/v1/volumes
// (the `storpulsectl volumes --json` document) and /api/v1/history (probe samples, baselines,
// events) and draws the volume stack, the running syncs and the probe charts.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function bytes(n) {
  const u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${u[i]}`;
}

function duration(s) {
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

function volumeNode(v, byName, seen) {
  const li = el("li", { class: `h-${v.state} e-${v.effective_state || v.state}`, "data-volume": v.name });
  const label = el("span", { class: "vol" }, el("span", { class: "dot", title: v.state }),
                   el("strong", {}, v.name),
                   el("span", { class: "kind" }, [v.kind, v.level, bytes(v.size_bytes), v.state]
                      .filter(Boolean).join(" · ")));
  const cause = v.effective_cause;
  if (cause) {
    label.append(el("span", { class: "below-bad" },
                    `${v.effective_state} because of ${cause.volume} below it (${cause.kind} ${cause.state})`));
  }
  if (v.probe_problem) {
    label.append(el("span", { class: "probe-bad" }, `probe: ${v.probe_problem} until a clean probe`));
  }
  if (v.member_states) {
    for (const [m, st] of Object.entries(v.member_states)) {
      if (/faulty|missing/.test(st)) label.append(el("span", { class: "member-bad" }, `${m}: ${st}`));
    }
  }
  li.append(label);
  const kids = (v.members || []).map((n) => byName[n]).filter(Boolean);
  if (kids.length && !seen.has(v.name)) {
    seen.add(v.name);
    const ul = el("ul");
    for (const k of kids) ul.append(volumeNode(k, byName, seen));
    li.append(ul);
  }
  return li;
}

function drawTree(vols) {
  const byName = Object.fromEntries(vols.map((v) => [v.name, v]));
  const tops = vols.filter((v) => !(v.holders || []).some((h) => byName[h]));
  const tree = $("tree");
  tree.replaceChildren(...tops.map((v) => volumeNode(v, byName, new Set())));
  // a problem of its own, of its probes (until a clean probe) or from a volume below it
  const badState = (st) => st === "degraded" || st === "failed";
  const bad = vols.filter((v) => badState(v.state) || badState(v.effective_state) || v.probe_problem);
  const s = $("summary");
  s.className = "summary " + (bad.length ? "bad" : "ok");
  s.textContent = bad.length
    ? `${bad.length} volume${bad.length > 1 ? "s" : ""} with problems: ${bad.map((v) => v.name).join(", ")}`
    : `all ${vols.length} volumes healthy`;
}

function drawSyncs(vols) {
  const box = $("syncs");
  const running = vols.filter((v) => v.sync_action && v.sync_action !== "idle");
  if (!running.length) {
    box.replaceChildren(el("p", {}, "No rebuild or check running."));
    return;
  }
  box.replaceChildren(...running.map((v) => {
    const pct = v.sync_progress != null ? v.sync_progress * 100 : 0;
    const bits = [`${v.name}: ${v.sync_action}`, `${pct.toFixed(1)} %`];
    if (v.sync_speed_bytes_per_second) bits.push(`${bytes(v.sync_speed_bytes_per_second)}/s`);
    if (v.sync_eta_seconds != null) bits.push(`ETA ${duration(v.sync_eta_seconds)}`);
    if (v.sync_delayed) bits.push("delayed");
    return el("div", { class: "sync", "data-volume": v.name },
              el("div", {}, bits.join(" · ")),
              bar(pct));
  }));
}

// The fill's width goes through the CSSOM: the page's CSP forbids style attributes.
function bar(pct) {
  const fill = el("div", { class: "fill" });
  fill.style.width = `${pct.toFixed(1)}%`;
  return el("div", { class: "bar", role: "progressbar", "aria-valuemin": "0",
                     "aria-valuemax": "100", "aria-valuenow": pct.toFixed(1) }, fill);
}

function chart(title, points, baseline, fmt) {
  const W = 320, H = 120, P = 28;
  const s = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                          "aria-label": title });
  const ys = points.map((p) => p[1]).concat(baseline != null ? [baseline] : []);
  const max = Math.max(...ys, 1e-12) * 1.1;
  const t0 = points[0][0], t1 = points[points.length - 1][0];
  const x = (t) => P + (t1 > t0 ? (t - t0) / (t1 - t0) : 0.5) * (W - P - 8);
  const y = (v) => H - 16 - (v / max) * (H - 30);
  s.append(svg("line", { x1: P, y1: H - 16, x2: W - 8, y2: H - 16, stroke: "#ccc" }));
  const label = svg("text", { x: 4, y: 12, "font-size": 11 });
  label.textContent = `${title} (max ${fmt(max / 1.1)})`;
  s.append(label);
  if (baseline != null) {
    s.append(svg("line", { class: "baseline", x1: P, x2: W - 8, y1: y(baseline), y2: y(baseline) }));
  }
  s.append(svg("polyline", { class: "line",
                             points: points.map((p) => `${x(p[0])},${y(p[1])}`).join(" ") }));
  for (const p of points) s.append(svg("circle", { cx: x(p[0]), cy: y(p[1]), r: 2, fill: "#3b82f6" }));
  return el("div", { class: "chart" }, s);
}

function drawCharts(hist) {
  const box = $("charts");
  const out = [];
  for (const [name, h] of Object.entries(hist.volumes || {})) {
    const samples = h.samples || [];
    if (samples.length < 1) continue;
    const base = h.baseline || {};
    const seq = samples.filter((s) => s.phases && s.phases.sequential)
      .map((s) => [s.timestamp_seconds, s.phases.sequential.bytes_per_second]);
    const rnd = samples.filter((s) => s.phases && s.phases.random)
      .map((s) => [s.timestamp_seconds, s.phases.random.latency_p99_seconds * 1e3]);
    const row = el("div", { "data-volume": name }, el("h3", {}, name));
    if (seq.length) {
      row.append(chart(`${name} sequential read`, seq,
                       base.sequential ? base.sequential.bytes_per_second : null,
                       (v) => `${bytes(v)}/s`));
    }
    if (rnd.length) {
      row.append(chart(`${name} random read p99`, rnd,
                       base.random ? base.random.latency_p99_seconds * 1e3 : null, (v) => `${v.toFixed(2)} ms`));
    }
    out.push(row);
  }
  box.replaceChildren(...(out.length ? out : [el("p", {}, "No probe results yet.")]));
}

function drawEvents(hist) {
  const list = (hist.events || []).slice(0, 50).map((e) =>
    el("li", { class: `prio-${e.priority}` },
       el("time", {}, new Date(e.timestamp_seconds * 1000).toLocaleString()), e.message));
  $("events").replaceChildren(...(list.length ? list : [el("li", {}, "No events.")]));
}

async function refresh() {
  try {
    const [vols, hist] = await Promise.all([
      fetch("/api/v1/volumes").then((r) => r.json()),
      fetch("/api/v1/history").then((r) => r.json()),
    ]);
    drawTree(vols);
    drawSyncs(vols);
    drawCharts(hist);
    drawEvents(hist);
    document.body.dataset.loaded = "1";
  } catch (err) {
    $("summary").textContent = `cannot reach the daemon: ${err}`;
    $("summary").className = "summary bad";
  }
}

refresh();
setInterval(refresh, 5000);
