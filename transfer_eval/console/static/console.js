// mgb console: follows the session's state (long poll), shows the live screen, draws the
// proposal and the tree on the frozen frame, and sends the person's decisions.
"use strict";

const token = new URLSearchParams(location.search).get("token");
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const KINDS = ["tap", "double_tap", "long_press", "swipe", "scroll", "type", "key", "open_app",
  "wait", "answer", "finish"];

let state = null;
let stateSeen = false;  // the first state: a console where you are the policy starts in override
let selected = null;   // node id chosen by a click on the frame or in the tree
let hovered = null;    // node id under the mouse in the tree
let frozenStep = -1;

function url(path) {
  if (!token) return path;
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
}

function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

// ---- talking to the console
async function post(path, body) {
  const response = await fetch(url(path), {
    method: "POST", headers: {"Content-Type": "application/json"},
    body: body === undefined ? "{}" : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({detail: response.statusText}));
  if (!response.ok) { showNotice(data.detail || String(response.status), true); return; }
  render(data);
}

async function followState() {
  let version = -1;
  for (;;) {
    try {
      const response = await fetch(url(`/api/state?after=${version}`));
      if (!response.ok) throw new Error(`state: HTTP ${response.status}`);
      const data = await response.json();
      version = data.version;
      render(data);
    } catch (error) {
      showNotice(`lost the console (${error.message}); retrying`, true);
      await new Promise((resolve) => setTimeout(resolve, 1000));  // back off, then retry
    }
  }
}

async function followLive() {
  let seq = 0;
  const times = [];
  let receivedAt = 0, ageAtReceipt = 0;
  setInterval(() => {  // display only: the age keeps growing until the next frame
    if (!receivedAt) return;
    const age = ageAtReceipt + (performance.now() - receivedAt);
    const fps = times.length > 1 ? (times.length - 1) / ((times.at(-1) - times[0]) / 1000) : 0;
    $("live-meta").textContent = `${fps.toFixed(1)} fps · frame age ${Math.round(age)} ms`;
  }, 200);
  for (;;) {
    try {
      const response = await fetch(url(`/api/live?after=${seq}`));
      if (response.status === 404) { $("live-meta").textContent = "no live view"; return; }
      if (!response.ok) throw new Error((await response.json()).detail);
      const next = Number(response.headers.get("X-Frame-Seq"));
      const blob = await response.blob();
      if (next !== seq) {
        seq = next;
        const previous = $("live").src;
        $("live").src = URL.createObjectURL(blob);
        if (previous.startsWith("blob:")) URL.revokeObjectURL(previous);
        receivedAt = performance.now();
        ageAtReceipt = Number(response.headers.get("X-Frame-Age-Ms"));
        times.push(receivedAt);
        if (times.length > 20) times.shift();
        window.liveFrames = (window.liveFrames || 0) + 1;
      }
      $("live-error").hidden = true;
    } catch (error) {
      $("live-error").hidden = false;
      $("live-error").textContent = `live view: ${error.message}`;
      await new Promise((resolve) => setTimeout(resolve, 1000));  // back off, then retry
    }
  }
}

// ---- rendering
function showNotice(text, isError) {
  const box = $("notice");
  box.hidden = !text;
  box.textContent = text || "";
  box.className = "notice" + (isError ? " error" : "");
}

function describeAction(action) {
  if (!action) return "(no action)";
  const rest = Object.assign({}, action);
  delete rest.type;
  return `${action.type} ${JSON.stringify(rest)}`;
}

function render(data) {
  if (state && data.version < state.version) return;  // an older answer arrived late
  state = data;
  window.renderedVersion = data.version;
  window.renderedBusy = !!data.busy;
  const world = data.world || {};
  $("world").textContent = `${world.kind || "?"}${world.model ? " · " + world.model : ""}` +
    `${world.serial ? " · " + world.serial : ""}`;
  $("world").className = "chip " + (world.kind || "");
  $("policy").textContent = !data.policy ? "no policy (you drive)"
    : data.proposes ? `policy ${data.policy}` : `policy ${data.policy} (you decide every step)`;
  if (!stateSeen && data.policy && !data.proposes) setOverrideMode(true);  // you are the policy
  stateSeen = true;
  $("mode").textContent = data.mode === "run" ? "running" : "step mode";
  $("mode").className = "chip " + data.mode;
  const episode = data.episode;
  $("episode").textContent = episode.id ? `${episode.id} · ${episode.steps} steps`
    : `episode over: ${episode.outcome} (${episode.termination})`;
  $("busy").hidden = !data.busy;
  $("busy").textContent = data.busy ? `⏳ ${data.busy}…` : "";
  $("rundir").textContent = `recording to ${data.run_dir}`;
  showNotice(data.notice, data.notice && data.notice.startsWith("error"));
  renderControls(data);
  renderFrozen(data);
  renderProposal(data);
  renderTask(data);
  renderHistory(data);
  renderBreakpoints(data);
}

function renderControls(data) {
  const over = data.episode.over, busy = !!data.busy && data.mode !== "run";
  $("b-step").disabled = over || busy || !data.proposes || data.mode === "run";
  $("b-approve").disabled = over || busy || !data.proposes || data.mode === "run" ||
    (data.proposal && !data.proposal.action);
  $("b-run").disabled = over || !data.proposes;
  $("b-run").innerHTML = data.mode === "run" ? "Pause <kbd>R</kbd>" : "Run <kbd>R</kbd>";
  $("b-run").className = data.mode === "run" ? "pause" : "";
  $("b-finish").disabled = over || busy;
  $("b-reset").disabled = busy;
  for (const button of document.querySelectorAll(".override-tools button, #b-reask")) {
    button.disabled = over || busy;
  }
  const select = $("open-app");
  if (select.options.length === 1) {
    for (const app of data.apps || []) select.append(el("option", {value: app, text: app}));
  }
}

function renderFrozen(data) {
  const frozen = data.frozen;
  if (!frozen) return;
  if (frozen.step !== frozenStep || $("frozen").dataset.version !== String(frozen.taken_at)) {
    frozenStep = frozen.step;
    $("frozen").dataset.version = String(frozen.taken_at);
    $("frozen").src = url(`/api/frozen?t=${frozen.taken_at}`);
    selected = hovered = null;  // a new frame has a new tree: ids mean other nodes now
    $("node-info").hidden = true;
    renderTree(frozen);
  }
  frozenMeta();
  drawOverlay();
}

function frozenMeta() {
  const frozen = state.frozen;
  const age = Math.max(0, Date.now() / 1000 - frozen.taken_at);
  const fg = frozen.foreground;
  $("frozen-meta").textContent = `step ${state.episode.steps} · ${fg.package || "?"}` +
    ` · tree ${frozen.ui_status}${frozen.stable ? "" : " (not settled)"} · taken ${age.toFixed(0)} s ago`;
}
setInterval(() => { if (state && state.frozen) frozenMeta(); }, 1000);  // display only

function box(bounds, attrs) {
  const [l, t, r, b] = bounds;
  return el("svg:rect", Object.assign({x: l, y: t, width: Math.max(0, r - l),
    height: Math.max(0, b - t)}, attrs));
}

function label(x, y, text, color) {
  const group = el("svg:g");
  const t = el("svg:text", {x, y, fill: "#fff", "font-size": 52, "font-family": "sans-serif",
    "font-weight": "bold", "paint-order": "stroke", stroke: color, "stroke-width": 12,
    "text-anchor": "middle", text});
  group.append(t);
  return group;
}

function drawOverlay() {
  const svg = $("overlay");
  const frozen = state && state.frozen;
  if (!frozen) return;
  const [w, h] = frozen.screen;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.replaceChildren();
  const defs = el("svg:defs");
  const marker = el("svg:marker", {id: "arrow", markerWidth: 4, markerHeight: 4, refX: 2, refY: 2,
    orient: "auto"});
  marker.append(el("svg:path", {d: "M0,0 L4,2 L0,4 z", fill: "#ff2d55"}));
  defs.append(marker);
  svg.append(defs);
  const nodes = frozen.nodes;
  if (hovered !== null && nodes[hovered]) {
    svg.append(box(nodes[hovered].bounds, {fill: "rgba(47,111,237,.18)", stroke: "#2f6fed",
      "stroke-width": 6, class: "hover-box"}));
  }
  if (selected !== null && nodes[selected]) {
    svg.append(box(nodes[selected].bounds, {fill: "none", stroke: "#ffb300", "stroke-width": 8,
      "stroke-dasharray": "18 10", class: "selected-box"}));
  }
  const proposal = state.proposal;
  if (!proposal || !proposal.action) return;
  const color = proposal.guard ? "#b86e00" : "#ff2d55";
  const group = el("svg:g", {class: "proposal-mark", "data-type": proposal.action.type});
  if (proposal.element !== null && nodes[proposal.element]) {
    group.append(box(nodes[proposal.element].bounds, {fill: "none", stroke: color,
      "stroke-width": 5}));
  }
  const action = proposal.action;
  if (proposal.point_px) {
    const [x, y] = proposal.point_px;
    group.append(el("svg:circle", {cx: x, cy: y, r: 44, fill: "none", stroke: color,
      "stroke-width": 12}));
    if (action.type === "double_tap") {
      group.append(el("svg:circle", {cx: x, cy: y, r: 66, fill: "none", stroke: color,
        "stroke-width": 6}));
    }
    if (proposal.end_px) {
      const [ex, ey] = proposal.end_px;
      group.append(el("svg:line", {x1: x, y1: y, x2: ex, y2: ey, stroke: color,
        "stroke-width": 12, "marker-end": "url(#arrow)"}));
    }
    let text = null;
    if (action.type === "long_press") text = `hold ${action.duration_ms} ms`;
    if (action.type === "type") text = `type “${action.text}”`;
    if (text) group.append(label(x, Math.max(50, y - 70), text, color));
  } else {
    let text = action.type;
    if (action.type === "key") text = `key ${action.key}`;
    if (action.type === "open_app") text = `open ${action.app}`;
    if (action.type === "type") text = `type “${action.text}”`;
    if (action.type === "wait") text = `wait ${action.seconds} s`;
    if (action.type === "finish") text = `finish (${action.status})`;
    if (action.type === "answer") text = `answer ${JSON.stringify(action.fields)}`;
    group.append(label(w / 2, h * 0.5, text, color));
  }
  svg.append(group);
}

function renderProposal(data) {
  const box = $("proposal");
  const proposal = data.proposal;
  box.replaceChildren();
  box.className = "";
  if (!proposal) {
    box.className = "muted";
    box.textContent = data.episode.over ? "the episode is over: Reset starts it again"
      : data.proposes ? "press Step to ask the policy"
      : data.policy ? "you are the policy: act on the frame or with the controls below"
      : "no policy: act on the frame yourself";
    return;
  }
  box.append(el("div", {class: "action", text: describeAction(proposal.action)}));
  if (proposal.guard) box.append(el("div", {class: "warn", text: `⚠ ${proposal.guard}`}));
  if (proposal.problem) box.append(el("div", {class: "error", text: proposal.problem}));
  if (proposal.error) box.append(el("div", {class: "error", text: proposal.error}));
  if (proposal.thought) box.append(el("div", {class: "thought", text: proposal.thought}));
  const where = [];
  if (proposal.point_px) where.push(`at (${proposal.point_px.join(", ")}) px`);
  if (proposal.end_px) where.push(`to (${proposal.end_px.join(", ")}) px`);
  if (proposal.element !== null) {
    const node = data.frozen.nodes[proposal.element];
    where.push(`element ${proposal.element}` + (node ? ` ${shortNode(node)}` : ""));
  }
  where.push(`policy ${proposal.policy_ms} ms`);
  box.append(el("div", {class: "muted", text: where.join(" · ")}));
  const details = el("details", {}, el("summary", {text: "parsed action and raw output"}));
  details.append(el("pre", {text: JSON.stringify(proposal.action, null, 1)}));
  if (proposal.raw_text) details.append(el("pre", {text: proposal.raw_text}));
  box.append(details);
}

function shortNode(node) {
  const name = node.class.split(".").at(-1);
  const text = node.text || node.desc || node.rid.split("/").at(-1);
  return text ? `${name} “${text.slice(0, 40)}”` : name;
}

function renderTask(data) {
  const task = data.task;
  $("task-id").textContent = `${task.id} · seed ${task.seed} · ${task.lang}`;
  if (document.activeElement !== $("instruction")) $("instruction").value = task.instruction;
  const verdict = data.verdict;
  const box = $("verdict");
  box.replaceChildren();
  if (!task.judged) {
    box.append(el("div", {class: "muted", text: "no task: nothing is judged (start with --task ID)"}));
    return;
  }
  if (!verdict) return;
  box.append(el("div", {},
    el("span", {class: `badge ${verdict.success ? "success" : "failure"}`,
      text: verdict.success ? "success" : "not yet"}),
    el("span", {class: "muted", text: ` progress ${(verdict.progress * 100).toFixed(0)}%` +
      ` · clean ${verdict.clean}`})));
  const table = el("table", {class: "checks"},
    el("tr", {}, el("th", {text: "check"}), el("th", {text: "expected"}),
      el("th", {text: "actual"}), el("th")));
  for (const check of verdict.checks) {
    table.append(el("tr", {}, el("td", {text: check.name + (check.guard ? " (guard)" : "")}),
      el("td", {text: JSON.stringify(check.expected)}), el("td", {text: JSON.stringify(check.actual)}),
      el("td", {class: check.passed ? "pass" : "fail", text: check.passed ? "pass" : "FAIL"})));
  }
  box.append(table);
}

function renderHistory(data) {
  const list = $("history");
  list.replaceChildren();
  for (const step of data.history) {
    const item = el("li", {}, el("span", {class: `badge ${step.decided_by}`, text: step.decided_by}),
      " ", el("span", {class: "action", text: describeAction(step.action)}));
    if (step.proposal) item.append(el("div", {class: "muted",
      text: `policy proposed: ${describeAction(step.proposal)}`}));
    if (step.error) item.append(el("div", {class: "error", text: step.error}));
    list.append(item);
  }
  list.scrollTop = list.scrollHeight;
  const t = data.timing;
  $("timing").textContent = t.approve_to_frozen_ms === null ? "" :
    `last step: action to next decision frame ${t.approve_to_frozen_ms} ms` +
    (t.live_capture_ms !== null ? ` · live capture ${t.live_capture_ms} ms` : "");
}

function renderBreakpoints(data) {
  const kinds = $("bp-kinds");
  if (!kinds.children.length) {
    for (const kind of KINDS) {
      kinds.append(el("label", {}, el("input", {type: "checkbox", value: kind}), ` ${kind}`));
    }
  }
  if (!$("bp-form").contains(document.activeElement)) {
    for (const box of kinds.querySelectorAll("input")) {
      box.checked = data.breakpoints.kinds.includes(box.value);
    }
    $("bp-app").checked = data.breakpoints.app_change;
    $("bp-step").value = data.breakpoints.at_step ?? "";
  }
  const guard = data.guard;
  $("guard").textContent = !guard ? "guard: off" :
    `guard: stays in ${[...guard.apps, ...guard.packages].join(", ") || "any app"}` +
    (guard.sensitive ? "; asks before sending, calling, paying, deleting, installing" : "");
}

// ---- the tree, linked both ways with the frame
function renderTree(frozen) {
  const container = $("tree");
  container.replaceChildren();
  $("tree-meta").textContent = `${frozen.nodes.length} nodes`;
  const children = new Map();
  for (const node of frozen.nodes) {
    const key = node.parent === null ? -1 : node.parent;
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(node);
  }
  const build = (node, depth) => {
    const kids = children.get(node.id) || [];
    const text = [el("span", {class: "cls", text: node.class.split(".").at(-1) || "node"})];
    if (node.text) text.push(" ", el("span", {class: "txt", text: `“${node.text.slice(0, 40)}”`}));
    else if (node.desc) text.push(" ", el("span", {class: "txt", text: `[${node.desc.slice(0, 40)}]`}));
    if (node.rid) text.push(" ", el("span", {class: "rid", text: node.rid.split("/").at(-1)}));
    let item;
    if (kids.length) {
      item = el("details", {"data-node": node.id}, el("summary", {}, ...text));
      if (depth < 4) item.open = true;
      for (const kid of kids) item.append(build(kid, depth + 1));
    } else {
      item = el("div", {class: "leaf", "data-node": node.id}, ...text);
    }
    return item;
  };
  for (const root of children.get(-1) || []) container.append(build(root, 0));
  markTree();
}

function treeItem(id) {
  return $("tree").querySelector(`[data-node="${id}"]`);
}

function markTree() {
  for (const item of $("tree").querySelectorAll(".hot, .sel")) item.classList.remove("hot", "sel");
  if (hovered !== null && treeItem(hovered)) treeItem(hovered).classList.add("hot");
  if (selected !== null && treeItem(selected)) treeItem(selected).classList.add("sel");
}

function nodeFromEvent(event) {
  const item = event.target.closest("[data-node]");
  return item ? Number(item.dataset.node) : null;
}

$("tree").addEventListener("mouseover", (event) => {
  const id = nodeFromEvent(event);
  if (id === hovered) return;
  hovered = id;
  markTree();
  drawOverlay();
});
$("tree").addEventListener("mouseleave", () => { hovered = null; markTree(); drawOverlay(); });
$("tree").addEventListener("click", (event) => {
  const id = nodeFromEvent(event);
  if (id !== null) selectNode(id, false);
});

async function selectNode(id, reveal) {
  selected = id;
  const node = state.frozen.nodes[id];
  if (reveal) {
    for (let item = treeItem(id); item; item = item.parentElement.closest("details")) {
      if (item.tagName === "DETAILS") item.open = true;
    }
    treeItem(id).scrollIntoView({block: "center"});
  }
  markTree();
  drawOverlay();
  const info = $("node-info");
  info.hidden = false;
  const rows = [["id", node.id], ["class", node.class], ["text", node.text], ["content-desc", node.desc],
    ["resource-id", node.rid], ["package", node.package], ["bounds", JSON.stringify(node.bounds)],
    ["flags", node.flags.join(", ")]];
  const table = el("table");
  for (const [key, value] of rows) {
    if (value === "" || value === undefined) continue;
    table.append(el("tr", {}, el("td", {text: key}), el("td", {text: String(value)})));
  }
  const code = el("code", {id: "xpath", text: "…"});
  const copy = el("button", {text: "copy", onclick: () => navigator.clipboard?.writeText(code.textContent)});
  info.replaceChildren(el("h3", {text: "Selected node"}), table, el("div", {class: "xpath"}, code, copy));
  const response = await fetch(url(`/api/xpath/${id}`));
  code.textContent = response.ok ? (await response.json()).xpath : "(no XPath)";
}

// ---- the frame: inspect, or override with a click, a drag, a long press
function framePoint(event) {
  const rect = $("frozen").getBoundingClientRect();
  const [w, h] = state.frozen.screen;
  const nx = Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
  const ny = Math.min(1, Math.max(0, (event.clientY - rect.top) / rect.height));
  return {nx, ny, x: nx * w, y: ny * h};
}

function hitTest(x, y) {
  let best = null, bestClickable = null;
  for (const node of state.frozen.nodes) {
    const [l, t, r, b] = node.bounds;
    if (!(l <= x && x < r && t <= y && y < b)) continue;
    const area = (r - l) * (b - t);
    if (area <= 0) continue;
    if (!best || area <= best.area) best = {node, area};
    const clickable = node.flags.includes("clickable") || node.flags.includes("long_clickable");
    if (clickable && (!bestClickable || area <= bestClickable.area)) bestClickable = {node, area};
  }
  return (bestClickable || best)?.node ?? null;
}

let press = null;
$("frozen-wrap").addEventListener("pointerdown", (event) => {
  if (!state || !state.frozen) return;
  press = {start: framePoint(event), at: performance.now()};
  event.preventDefault();
});
$("frozen-wrap").addEventListener("pointerup", (event) => {
  if (!press) return;
  const start = press.start, end = framePoint(event), held = performance.now() - press.at;
  press = null;
  const moved = Math.hypot(end.x - start.x, end.y - start.y);
  if (!$("override-mode").checked) {
    const node = hitTest(start.x, start.y);
    if (node) selectNode(node.id, true);
    return;
  }
  const round = (v) => Math.round(v * 10000) / 10000;
  let action;
  if (moved > 30) {
    action = {type: "swipe", start: {x: round(start.nx), y: round(start.ny)},
      end: {x: round(end.nx), y: round(end.ny)}, duration_ms: Math.max(100, Math.round(held))};
  } else if (held > 600) {
    action = {type: "long_press", target: {point: {x: round(start.nx), y: round(start.ny)}},
      duration_ms: Math.round(held)};
  } else {
    action = {type: "tap", target: {point: {x: round(start.nx), y: round(start.ny)}}};
  }
  post("/api/override", {action});
});

function setOverrideMode(on) {
  $("override-mode").checked = on;
  $("frozen-wrap").classList.toggle("override", on);
  $("frame-hint").textContent = on ? "click: tap · drag: swipe · hold: long press — executed now"
    : "click: inspect the node under the pointer";
}
$("override-mode").addEventListener("change", () => setOverrideMode($("override-mode").checked));

// ---- controls
$("b-step").onclick = () => post("/api/propose");
$("b-approve").onclick = () => post("/api/approve");
$("b-run").onclick = () => post("/api/mode", {mode: state.mode === "run" ? "step" : "run"});
$("b-reset").onclick = () => post("/api/reset");
$("b-finish").onclick = () => post("/api/finish");
$("wait").onclick = () => post("/api/override", {action: {type: "wait", seconds: 1}});
for (const button of document.querySelectorAll("[data-key]")) {
  button.onclick = () => post("/api/override", {action: {type: "key", key: button.dataset.key}});
}
$("open-app").onchange = () => {
  const app = $("open-app").value;
  $("open-app").value = "";
  if (app) post("/api/override", {action: {type: "open_app", app}});
};
$("type-form").onsubmit = (event) => {
  event.preventDefault();
  const text = $("type-text").value;
  if (!text) return;
  const action = {type: "type", text};
  if (selected !== null && state.frozen.nodes[selected]?.flags.includes("editable")) {
    action.target = {element: selected};
  }
  $("type-text").value = "";
  post("/api/override", {action});
};
$("instruction-form").onsubmit = (event) => {
  event.preventDefault();
  post("/api/instruction", {text: $("instruction").value});
};
$("bp-form").onsubmit = (event) => {
  event.preventDefault();
  const kinds = [...$("bp-kinds").querySelectorAll("input:checked")].map((box) => box.value);
  const step = $("bp-step").value;
  post("/api/breakpoints", {kinds, app_change: $("bp-app").checked,
    at_step: step === "" ? null : Number(step)});
  document.activeElement.blur();
};

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select") || event.ctrlKey || event.metaKey) return;
  const key = event.key.toLowerCase();
  const click = (id) => { if (!$(id).disabled) $(id).click(); };
  if (key === "s") click("b-step");
  else if (key === "a") click("b-approve");
  else if (key === "r") click("b-run");
  else if (key === "f") click("b-finish");
  else if (key === "o") setOverrideMode(!$("override-mode").checked);
  else if (key === "escape") { selected = null; $("node-info").hidden = true; markTree(); drawOverlay(); }
  else return;
  event.preventDefault();
});

followState();
followLive();
