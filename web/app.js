// storpulse page, part 2: plain JS, no library, no external resource. Reads /api/v1/volumes
// (the `storpulsectl volumes --json` document) and /api/v1/history (probe samples, baselines,
// the performance verdicts, events) and draws the volume stack with member and performance
// states, the running syncs, the probe charts (chart.js) and the events.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
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
  if (s < 3600) return `${Math.floor(s / 60)} min` + (Math.round(s % 60) ? ` ${Math.round(s % 60)} s` : "");
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

// A member's state as md (or dm-raid) gives it, in words, and how bad it is.
const MEMBER_WORDS = { in_sync: "in sync", write_mostly: "write-mostly", want_replacement: "want replacement" };
function memberClass(st) {
  if (/faulty|missing|blocked|write_error|dead|absent/.test(st)) return "bad";
  if (/rebuilding|spare|replacement|slow|not-in-sync/.test(st)) return "warn";
  return "good";
}

// The members of an array with their states, plus "slow" from the performance verdict.
function memberList(v, perf) {
  const members = v.array_members || Object.entries(v.member_states || {}).map(
    ([name, state]) => ({ name, state }));
  if (!members.length) return null;
  const slow = new Set((perf && perf.slow_members) || []);
  const ul = el("ul", { class: "members", "aria-label": `members of ${v.name}` });
  for (const m of members) {
    const states = String(m.state || "unknown").split(",").map((s) => MEMBER_WORDS[s] || s);
    if (slow.has(m.name)) states.push("slow");
    const li = el("li", { class: `member m-${memberClass(states.join(","))}`,
                          "data-member": m.name, "data-state": states.join(",") },
                  el("span", { class: "mname" }, m.name), " ", states.join(", "));
    if (m.errors) li.append(` (${m.errors} read errors corrected)`);
    ul.append(li);
  }
  return ul;
}

// "performance: degraded (vda slow)" from the detector's verdict, if the daemon judges v.
function perfBadge(perf) {
  if (!perf) return null;
  const bits = [perf.state];
  if (perf.culprit) bits.push(`culprit ${perf.culprit}`);
  if (perf.rebuild_slow) bits.push("rebuild slow");
  return el("span", { class: `perf p-${perf.state}`, "data-perf": perf.state },
            `performance: ${bits.join(", ")}`);
}

function volumeNode(v, ctx, seen) {
  const perf = ctx.perf[v.name];
  const li = el("li", { class: `h-${v.state} e-${v.effective_state || v.state}`, "data-volume": v.name });
  const label = el("span", { class: "vol" }, el("span", { class: "dot", "aria-hidden": "true" }),
                   el("strong", {}, v.name),
                   el("span", { class: "kind" }, [v.kind, v.level, bytes(v.size_bytes), v.state]
                      .filter(Boolean).join(" · ")));
  const badge = perfBadge(perf);
  if (badge) label.append(badge);
  const cause = v.effective_cause;
  if (cause) {
    label.append(el("span", { class: "below-bad" },
                    `${v.effective_state} because of ${cause.volume} below it (${cause.kind} ${cause.state})`));
  }
  if (v.probe_problem) {
    label.append(el("span", { class: "probe-bad" }, `probe: ${v.probe_problem} until a clean probe`));
  }
  li.append(label);
  const ml = memberList(v, perf);
  if (ml) li.append(ml);
  const kids = (v.members || []).map((n) => ctx.byName[n]).filter(Boolean);
  if (kids.length && !seen.has(v.name)) {
    seen.add(v.name);
    const ul = el("ul");
    for (const k of kids) ul.append(volumeNode(k, ctx, seen));
    li.append(ul);
  }
  return li;
}

function drawTree(vols, hist) {
  const byName = Object.fromEntries(vols.map((v) => [v.name, v]));
  const perf = Object.fromEntries(Object.entries(hist.volumes || {})
    .map(([n, h]) => [n, h.performance]));
  const tops = vols.filter((v) => !(v.holders || []).some((h) => byName[h]));
  $("tree").replaceChildren(...tops.map((v) => volumeNode(v, { byName, perf }, new Set())));
  // a problem of its own, of its probes (until a clean probe), from a volume below it, or a
  // performance verdict
  const badState = (st) => st === "degraded" || st === "failed";
  const bad = vols.filter((v) => badState(v.state) || badState(v.effective_state) ||
                          v.probe_problem || (perf[v.name] && perf[v.name].state === "degraded"));
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
              bar(pct, `${v.name} ${v.sync_action} progress`));
  }));
}

// The fill's width goes through the CSSOM: the page's CSP forbids style attributes.
function bar(pct, label) {
  const fill = el("div", { class: "fill" });
  fill.style.width = `${pct.toFixed(1)}%`;
  return el("div", { class: "bar", role: "progressbar", "aria-valuemin": "0",
                     "aria-valuemax": "100", "aria-valuenow": pct.toFixed(1),
                     "aria-label": label }, fill);
}

// The charts of one volume: sequential throughput, random IOPS, random p99 latency.
function volumeCharts(name, h) {
  const samples = (h.samples || []).filter((s) => s.phases);
  const base = h.baseline || {};
  const series = [
    ["sequential", "bytes_per_second", "Sequential read", "bytes/s"],
    ["random", "iops", "Random read", "iops"],
    ["random", "latency_p99_seconds", "Random read p99 latency", "seconds"],
  ];
  const figs = [];
  for (const [phase, key, title, kind] of series) {
    const points = samples.filter((s) => s.phases[phase] && s.phases[phase][key] != null)
      .map((s) => [s.timestamp_seconds, s.phases[phase][key]]);
    if (!points.length) continue;
    const b = base[phase];
    const baseline = b && b[key] != null ? { median: b[key], mad: b.mad ? b.mad[key] : null } : null;
    figs.push(chart({ title: `${name} ${title}`, kind, points, baseline }));
  }
  return figs;
}

function drawCharts(hist) {
  const out = [];
  for (const [name, h] of Object.entries(hist.volumes || {})) {
    const figs = volumeCharts(name, h);
    if (figs.length) out.push(el("div", { class: "charts", "data-volume": name }, el("h3", {}, name), ...figs));
  }
  $("charts").replaceChildren(...(out.length ? out : [el("p", {}, "No probe results yet.")]));
}

// syslog levels as the journal names them; 0..3 are errors, 4 warnings
const SEVERITY = ["emergency", "alert", "critical", "error", "warning", "notice", "info", "debug"];
const sevClass = (p) => (p <= 3 ? "sev-bad" : p === 4 ? "sev-warn" : "sev-info");

// by the browser's clock (the snapshot's time is that of the daemon's last change)
function ago(s) {
  return s < 1 ? "just now" : `${duration(s)} ago`;
}

function drawEvents(hist) {
  const events = hist.events || [];
  const min = Number($("severity").value);
  const counts = SEVERITY.map((name, p) => [name, events.filter((e) => e.priority === p).length])
    .filter(([, n]) => n);
  $("severity-counts").textContent = counts.length
    ? counts.map(([name, n]) => `${n} ${name}`).join(" · ") : "";
  const list = events.filter((e) => e.priority <= min).slice(0, 100).map((e) =>
    el("li", { class: `event ${sevClass(e.priority)}`, "data-priority": e.priority },
       el("time", { datetime: isoUtc(e.timestamp_seconds) }, isoTime(e.timestamp_seconds)),
       el("span", { class: "ago" }, ago(Date.now() / 1000 - e.timestamp_seconds)),
       el("span", { class: "sev" }, SEVERITY[e.priority] || `level ${e.priority}`),
       el("span", { class: "msg" }, e.message)));
  $("events").replaceChildren(...(list.length ? list : [el("li", {}, "No events at this severity.")]));
}

let last = null;

async function refresh() {
  try {
    const [vols, hist] = await Promise.all([
      fetch("/api/v1/volumes").then((r) => r.json()),
      fetch("/api/v1/history").then((r) => r.json()),
    ]);
    last = hist;
    drawTree(vols, hist);
    drawSyncs(vols);
    drawCharts(hist);
    drawEvents(hist);
    $("updated").textContent = isoTime(hist.now_timestamp_seconds);
    $("updated").setAttribute("datetime", isoUtc(hist.now_timestamp_seconds));
    document.body.dataset.loaded = "1";
  } catch (err) {
    $("summary").textContent = `cannot reach the daemon: ${err}`;
    $("summary").className = "summary bad";
  }
}

$("severity").addEventListener("change", () => { if (last) drawEvents(last); });
refresh();
setInterval(refresh, 5000);
