// mobilegym-bridge page runtime: turns gestures into events for the simulator server,
// applies the screen HTML it gets back, and reports when the page is idle.
//
// The server owns all state. This runtime only (1) hit-tests gestures with the browser's
// real layout (document.elementFromPoint), (2) posts the resolved event, (3) swaps in the
// returned HTML and restores scroll offsets, and (4) extracts the Android-like UI tree from
// the data-* attributes of the widgets. Gestures arrive either from Python (Playwright
// calls __mgb.tap etc. with CSS coordinates) or, in interactive mode, from a real pointer.
//
// Every coordinate this runtime takes or gives (gestures, tree bounds) is relative to the
// phone screen's top-left corner. On the pool pages the screen fills the viewport, so these
// are viewport coordinates too; on /play the phone sits anywhere on a larger page, and the
// hit tests add the screen's offset before asking the browser what is there.
"use strict";

(() => {
  const STATUS_BAR = 28;
  const NAV_BAR = 44;
  const SWIPE_MIN = 24;
  const screenEl = () => document.getElementById("screen");

  const mgb = {
    instance: null,
    version: -1,
    pending: 0,
    settled: 0,
    lastError: null,
  };

  // ---------------------------------------------------------------- settling
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

  async function settle() {
    // Idle = layout done with every font it asked for loaded, and a frame produced after
    // that (no animations exist, so nothing else can still be moving). Layout is forced
    // first: fonts are only requested by layout, so before it `fonts.ready` means nothing.
    for (;;) {
      void screenEl().offsetHeight;
      await document.fonts.ready;
      await frame();
      if (document.fonts.status === "loaded") break;
    }
    mgb.settled += 1;
  }

  // ---------------------------------------------------------------- swapping
  function applyScroll(scroll) {
    for (const el of document.querySelectorAll("[data-scroll-key]")) {
      el.scrollTop = scroll[el.dataset.scrollKey] || 0;
    }
  }

  async function load(payload) {
    mgb.instance = payload.instance;
    mgb.version = payload.version;
    screenEl().innerHTML = payload.html;
    applyScroll(payload.scroll || {});
    await settle();
    return { version: mgb.version };
  }

  // fetch(url, options) and its JSON body; a failed request throws "HTTP <status>: <detail>"
  // (the server's detail, or the start of a body that is not JSON). The player uses it too.
  async function fetchJson(url, options) {
    const response = await fetch(url, options);
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch (err) {
      body = { detail: text.slice(0, 300) };
    }
    if (!response.ok) {
      const detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
      throw new Error(`HTTP ${response.status}: ${detail}`);
    }
    return body;
  }
  mgb.fetchJson = fetchJson;

  async function post(event) {
    mgb.pending += 1;
    try {
      let body;
      try {
        body = await fetchJson(`/api/instances/${mgb.instance}/page-events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ version: mgb.version, event }),
        });
      } catch (error) {
        mgb.lastError = error.message;
        throw error;
      }
      await load(body);
      return body;
    } finally {
      mgb.pending -= 1;
    }
  }

  // ---------------------------------------------------------------- hit testing
  // The element at screen point (x, y): elementFromPoint takes viewport coordinates.
  function elementAt(x, y) {
    const origin = screenEl().getBoundingClientRect();
    return document.elementFromPoint(origin.left + x, origin.top + y);
  }

  function args(el) {
    const out = {};
    for (const [name, value] of Object.entries(el.dataset)) {
      if (name.startsWith("arg") && name.length > 3) {
        out[name[3].toLowerCase() + name.slice(4)] = value;
      }
    }
    return out;
  }

  function describe(el) {
    if (!el) return null;
    return {
      class: el.dataset.class || el.tagName.toLowerCase(),
      text: (el.dataset.text || el.textContent || "").trim().slice(0, 80),
      desc: el.dataset.desc || "",
      rid: el.dataset.rid || "",
    };
  }

  // The innermost element under (x, y) that reacts to `attr`, or why nothing does.
  function target(x, y, attrs) {
    let el = elementAt(x, y);
    const hit = el;
    while (el && el !== document.body) {
      if (el.dataset) {
        if (el.dataset.enabled === "false") return { hit, el: null, reason: "disabled" };
        for (const attr of attrs) {
          if (el.dataset[attr] !== undefined) return { hit, el, attr };
        }
        if (el.dataset.block !== undefined) return { hit, el: null, reason: "blocked" };
      }
      el = el.parentElement;
    }
    return { hit, el: null, reason: "nothing actionable" };
  }

  function actionEvent(found, kind, x) {
    const el = found.el;
    if (found.attr === "field") {
      return { type: "focus", field: el.dataset.field, submit: el.dataset.submit || null, args: args(el) };
    }
    const a = args(el);
    if (el.dataset.slider !== undefined) {
      const rect = el.getBoundingClientRect();
      const left = rect.left - screenEl().getBoundingClientRect().left;
      a.frac = String(Math.min(1, Math.max(0, (x - left) / rect.width)));
    }
    const action = found.attr === "longAction" ? el.dataset.longAction : el.dataset.action;
    return { type: "action", kind, action, args: a };
  }

  async function gesture(x, y, kind, attrs) {
    const found = target(x, y, attrs);
    const result = { hit: describe(found.el || found.hit), posted: false, reason: found.reason || null };
    if (found.el) {
      await post(actionEvent(found, kind, x));
      result.posted = true;
    } else {
      await settle();
    }
    return result;
  }

  const tap = (x, y) => gesture(x, y, "tap", ["action", "field"]);
  // A long press without a long-press handler is a click on release, as on Android.
  const longPress = (x, y) => gesture(x, y, "long_press", ["longAction", "action", "field"]);

  async function doubleTap(x, y) {
    const first = await tap(x, y);
    const second = await tap(x, y);
    return { ...second, posted: first.posted || second.posted };
  }

  // ---------------------------------------------------------------- swipes
  function scrollContainer(x, y, vertical) {
    let el = elementAt(x, y);
    while (el && el !== document.body) {
      if (el.dataset && el.dataset.scrollKey !== undefined) {
        const room = vertical ? el.scrollHeight - el.clientHeight : el.scrollWidth - el.clientWidth;
        if (room > 0) return el;
      }
      el = el.parentElement;
    }
    return null;
  }

  // A fling glides on as far again as the finger moved (a class, not fling physics: the
  // stroke was classified by its release speed before it got here).
  const FLING_GLIDE = 1;

  // A swipe that scrolls nothing belongs to the innermost view declaring swipe actions,
  // data-swipe-left/-right/-up/-down by the finger's direction (the launcher's pages and
  // its drawer); that view owns every swipe on it, so a direction it does not declare
  // does nothing, as on a pager.
  const SWIPE_ATTRS = ["swipeLeft", "swipeRight", "swipeUp", "swipeDown"];

  function swipeOwner(x, y) {
    let el = elementAt(x, y);
    while (el && el !== document.body) {
      if (el.dataset && SWIPE_ATTRS.some((attr) => el.dataset[attr] !== undefined)) return el;
      el = el.parentElement;
    }
    return null;
  }

  async function swipeAction(x1, y1, dx, dy, vertical) {
    const travel = vertical ? Math.abs(dy) : Math.abs(dx);
    const owner = travel > SWIPE_MIN ? swipeOwner(x1, y1) : null;
    const direction = vertical ? (dy < 0 ? "Up" : "Down") : (dx < 0 ? "Left" : "Right");
    const action = owner ? owner.dataset[`swipe${direction}`] : undefined;
    if (!action) return null;
    await post({ type: "action", kind: "swipe", action, args: args(owner) });
    return { hit: describe(owner), posted: true, reason: null, swiped: direction.toLowerCase() };
  }

  async function swipe(x1, y1, x2, y2, opts) {
    const fling = !!(opts && opts.fling);
    const dx = x2 - x1;
    const dy = y2 - y1;
    const vertical = Math.abs(dy) >= Math.abs(dx);
    const shadeOpen = !!document.querySelector(".shade");
    // where across the status bar the pull starts: HyperOS opens a panel per half
    const across = x1 / screenEl().clientWidth;
    if (vertical && y1 <= STATUS_BAR && dy > SWIPE_MIN) return edge("top", across);
    if (vertical && shadeOpen && dy < -SWIPE_MIN) return edge("shade_up");
    if (vertical && y1 >= screenEl().clientHeight - NAV_BAR && dy < -SWIPE_MIN) return edge("bottom");
    const el = vertical ? scrollContainer(x1, y1, true) : null;
    if (el) {
      const before = el.scrollTop;
      el.scrollTop = Math.round(before - dy * (fling ? 1 + FLING_GLIDE : 1));
      const top = Math.round(el.scrollTop);
      if (top !== before) {
        await post({ type: "scrolled", key: el.dataset.scrollKey, top });
        return { hit: describe(el), posted: true, reason: null, scrolled: top - before };
      }
    }
    const swiped = await swipeAction(x1, y1, dx, dy, vertical);
    if (swiped) return swiped;
    await settle();
    if (el) return { hit: describe(el), posted: false, reason: "already at the end" };
    return { hit: describe(elementAt(x1, y1)), posted: false, reason: "nothing to scroll" };
  }

  async function edge(which, x) {
    const at = x === undefined ? {} : { x: Math.min(1, Math.max(0, x)) };
    await post({ type: "edge", edge: which, ...at });
    return { hit: null, posted: true, reason: null, edge: which };
  }

  // ---------------------------------------------------------------- UI tree
  function clip(rect, box) {
    return {
      left: Math.max(rect.left, box.left),
      top: Math.max(rect.top, box.top),
      right: Math.min(rect.right, box.right),
      bottom: Math.min(rect.bottom, box.bottom),
    };
  }

  function ownText(el) {
    if (el.dataset.text !== undefined) return el.dataset.text;
    if (el.dataset.field !== undefined) {
      return el.dataset.password === "true" ? "•".repeat((el.textContent || "").length) : el.textContent;
    }
    if (el.querySelector("[data-class]")) {
      let text = "";
      for (const child of el.childNodes) if (child.nodeType === Node.TEXT_NODE) text += child.textContent;
      return text.replace(/\s+/g, " ").trim();
    }
    return (el.innerText || el.textContent || "").replace(/[ \t]+/g, " ").trim();
  }

  function flags(el, enabled) {
    const d = el.dataset;
    const editable = d.field !== undefined;
    const clickable = d.action !== undefined || editable;
    return {
      clickable,
      long_clickable: d.longAction !== undefined,
      checkable: d.checkable === "true",
      checked: d.checked === "true",
      editable,
      focusable: clickable || editable,
      focused: d.focused === "true",
      // data-scrollable: a pager (the launcher's workspace) that scrolls by swipe actions
      scrollable: (d.scrollKey !== undefined && el.scrollHeight > el.clientHeight) || d.scrollable === "true",
      enabled,
      selected: d.selected === "true",
      password: d.password === "true",
    };
  }

  function walk(el, box, parent, pkg, enabled, out, counters) {
    for (const child of el.children) {
      const style = getComputedStyle(child);
      if (style.display === "none" || style.visibility === "hidden") continue;
      const childPkg = child.dataset.window || pkg;
      const childEnabled = enabled && child.dataset.enabled !== "false";
      const rect = clip(child.getBoundingClientRect(), box);
      const clips = style.overflowX !== "visible" || style.overflowY !== "visible";
      const innerBox = clips ? rect : box;
      if (child.dataset.class === undefined) {
        walk(child, innerBox, parent, childPkg, childEnabled, out, counters);
        continue;
      }
      if (rect.right <= rect.left || rect.bottom <= rect.top) continue;  // invisible: not dumped
      const id = out.length;
      const index = counters.get(parent) || 0;
      counters.set(parent, index + 1);
      out.push({ id, parent, index, class_name: child.dataset.class, text: ownText(child),
        content_desc: child.dataset.desc || "", hint: child.dataset.hint || "",
        resource_id: resourceId(child.dataset.rid, childPkg),
        package: childPkg, rect, ...flags(child, childEnabled) });
      walk(child, innerBox, id, childPkg, childEnabled, out, counters);
    }
  }

  // An app's own ids are qualified by its package; a framework id keeps its own
  // ("android:id/content" is the content frame of every app window, as on a phone).
  function resourceId(rid, pkg) {
    if (!rid) return "";
    return rid.includes(":") ? rid : `${pkg}:id/${rid}`;
  }

  function tree() {
    const root = screenEl();
    const r = root.getBoundingClientRect();
    const box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    const nodes = [];
    walk(root, box, null, "android", true, nodes, new Map());
    const dpr = window.devicePixelRatio || 1;
    // The screen in device pixels: at a fractional ratio (440 dpi is 2.75) the viewport is
    // a whole number of CSS pixels a fraction wider than the panel, which ends at the floor.
    const limits = [Math.floor(r.width * dpr), Math.floor(r.height * dpr)];
    for (const node of nodes) {
      const rc = node.rect;  // viewport coordinates; bounds are the screen's
      const edges = [rc.left - r.left, rc.top - r.top, rc.right - r.left, rc.bottom - r.top];
      node.bounds_px = edges.map((v, i) => Math.min(Math.round(v * dpr), limits[i % 2]));
      delete node.rect;
    }
    return nodes;
  }

  // ---------------------------------------------------------------- interactive mode
  // A real pointer on the page: strokes are classified as on a phone (moved more than 12
  // px: a swipe; held longer than 500 ms: a long press; else a tap) and handled one at a
  // time, so a quick second click never posts against a version the first one replaced.
  // After each, a `mgb:gesture` event on window carries the result (or the error).
  function interactive() {
    const root = screenEl();
    let down = null;
    let queue = Promise.resolve();
    const local = (e) => {
      const rect = root.getBoundingClientRect();
      return { x: e.clientX - rect.left, y: e.clientY - rect.top };
    };
    const run = (perform) => {
      queue = queue.then(async () => {
        let detail;
        try {
          detail = { result: await perform(), error: null };
        } catch (err) {
          detail = { result: null, error: String(err.message || err) };
          console.error(err);
        }
        window.dispatchEvent(new CustomEvent("mgb:gesture", { detail }));
      });
      return queue;
    };
    root.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      root.setPointerCapture(e.pointerId);  // the release counts even off the phone
      down = { ...local(e), t: e.timeStamp };
    });
    root.addEventListener("pointerup", (e) => {
      if (!down) return;
      const start = down;
      down = null;
      const end = local(e);
      const moved = Math.hypot(end.x - start.x, end.y - start.y);
      const held = e.timeStamp - start.t;
      if (moved > 12) run(() => swipe(start.x, start.y, end.x, end.y));
      else if (held > 500) run(() => longPress(end.x, end.y));
      else run(() => tap(end.x, end.y));
    });
    root.addEventListener("pointercancel", () => { down = null; });
    root.addEventListener("wheel", (e) => {
      e.preventDefault();
      const at = local(e);
      run(() => swipe(at.x, at.y, at.x, at.y - e.deltaY));
    }, { passive: false });
  }

  // The tree as one JSON string: far cheaper to hand to Playwright than nested objects.
  const treeJson = () => JSON.stringify(tree());

  Object.assign(mgb, { load, tap, longPress, doubleTap, swipe, tree, treeJson, settle, post, interactive });
  window.__mgb = mgb;
})();
