// SPDX-License-Identifier: MIT
// Drive pages in real headless Chromium over the DevTools protocol (Node, the `ws` package) and
// print a JSON array, one entry per visit NAME,WIDTH,URL: the DOM after the page's scripts set
// body[data-loaded], the document's and the viewport's widths (horizontal overflow), a full-page
// PNG screenshot written to OUTDIR/NAME.png, and axe-core's violations (axe.min.js evaluated in
// the page, every rule it runs by default), then the event priorities listed once the severity
// filter is set to "error and worse". One browser serves all visits.
// NOW_MS pins the page's Date.now() (the page's "30 s ago"), so nothing depends on the wall clock.
//   node page-cdp.js CHROMIUM NODE_MODULES OUTDIR NOW_MS NAME,WIDTH,URL...
// Exits 0 with the JSON on stdout, 1 with a message on stderr when Chromium or a page fails.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const [chromium, modules, outdir, nowMs, ...visits] = process.argv.slice(2);
const WebSocket = require(path.join(modules, "ws"));
const axeSource = fs.readFileSync(path.join(modules, "axe-core", "axe.min.js"), "utf8");

// Start Chromium; resolves with the browser's DevTools WebSocket URL from its stderr.
function launch(profile) {
  const args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--hide-scrollbars", "--remote-debugging-port=0", `--user-data-dir=${profile}`,
                "about:blank"];
  const proc = spawn(chromium, args, { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve({ proc, ws: m[1] });
    });
    proc.on("exit", (code) => reject(new Error(`chromium exited ${code}: ${err.slice(-2000)}`)));
  });
}

// A minimal CDP client: send(method, params, sessionId) -> result.
function connect(wsUrl) {
  const ws = new WebSocket(wsUrl, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  const pending = new Map();
  let id = 0;
  ws.on("message", (data) => {
    const msg = JSON.parse(data);
    const p = msg.id && pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
    else p.resolve(msg.result);
  });
  const send = (method, params, sessionId) => new Promise((resolve, reject) => {
    id++;
    pending.set(id, { resolve, reject, method });
    ws.send(JSON.stringify({ id, method, params: params || {}, sessionId }));
  });
  return new Promise((resolve, reject) => {
    ws.on("open", () => resolve({ send, close: () => ws.close() }));
    ws.on("error", reject);
  });
}

async function evaluate(send, session, expression) {
  const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true },
                       session);
  if (r.exceptionDetails) throw new Error(`${expression.slice(0, 60)}: ${r.exceptionDetails.text}`);
  return r.result.value;
}

// One viewport: load, wait for the data (polling the DOM, at most 60 s), measure, shoot, run axe.
async function visit(send, name, width, url) {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId: s } = await send("Target.attachToTarget", { targetId, flatten: true });
  await send("Emulation.setDeviceMetricsOverride",
             { width, height: 900, deviceScaleFactor: 1, mobile: width < 600 }, s);
  await send("Page.enable", {}, s);
  await send("Page.addScriptToEvaluateOnNewDocument",
             { source: `Date.now = () => ${Number(nowMs)};` }, s);
  await send("Page.navigate", { url }, s);
  await evaluate(send, s, `new Promise((ok, fail) => { let n = 0; const t = setInterval(() => {
      if (document.body && document.body.dataset.loaded === "1") { clearInterval(t); ok(1); }
      else if (++n > 600) { clearInterval(t); fail(new Error("page not loaded")); } }, 100); })`);
  const dims = await evaluate(send, s, `({ scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth, height: document.documentElement.scrollHeight })`);
  const shot = await send("Page.captureScreenshot",
                          { format: "png", captureBeyondViewport: true,
                            clip: { x: 0, y: 0, width, height: dims.height, scale: 1 } }, s);
  const file = path.join(outdir, `${name}.png`);
  fs.writeFileSync(file, Buffer.from(shot.data, "base64"));
  const dom = await evaluate(send, s, "document.documentElement.outerHTML");
  await evaluate(send, s, axeSource);
  const axe = await evaluate(send, s, `axe.run(document, { resultTypes: ["violations"] })
      .then((r) => ({ version: axe.version, violations: r.violations.map((v) => ({ id: v.id,
        impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) })),
        passes: r.passes.length }))`);
  // the events' severity filter set to "error and worse": the priorities then listed
  const errorsOnly = await evaluate(send, s, `(() => { const f = document.getElementById("severity");
      f.value = "3"; f.dispatchEvent(new Event("change"));
      return [...document.querySelectorAll("#events li.event")].map((li) => li.dataset.priority); })()`);
  await send("Target.closeTarget", { targetId });
  return { name, width, url, dom, ...dims, screenshot: file, axe, errorsOnly };
}

// Close the browser the way its own UI does (Browser.close waits for its helper processes, so
// the profile can go); SIGTERM if that does not end it within 10 s.
async function shutdown(browser, client) {
  browser.proc.removeAllListeners("exit");
  const exited = new Promise((r) => (browser.proc.exitCode != null ? r() : browser.proc.on("exit", r)));
  if (client) client.send("Browser.close").catch(() => {});
  else browser.proc.kill("SIGTERM");
  const timer = setTimeout(() => browser.proc.kill("SIGTERM"), 10000);
  await exited;
  clearTimeout(timer);
  if (client) client.close();
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "storpulse-page-"));
  let browser, client;
  try {
    browser = await launch(profile);
    client = await connect(browser.ws);
    const out = [];
    for (const v of visits) {
      const [name, width, ...url] = v.split(",");
      out.push(await visit(client.send, name, Number(width), url.join(",")));
    }
    process.stdout.write(JSON.stringify(out));
  } finally {
    if (browser) await shutdown(browser, client);
    // Chromium's helpers may still be writing for a moment after the browser exits
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

main().catch((e) => { console.error(e.message); process.exit(1); });
