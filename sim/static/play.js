// The player page (/play/ID): the phone driven by the mouse (runtime.js, interactive mode)
// and a panel that poses a task on the instance and shows its instruction, its checks and
// the verdict, judged by the server after every gesture (the same judge as SimEnv.verdict).
"use strict";

(() => {
  const instance = document.body.dataset.instance;
  const $ = (id) => document.getElementById(id);
  const api = `/api/instances/${encodeURIComponent(instance)}`;
  let gestures = 0;
  let tasks = [];

  const json = (url, options) => window.__mgb.fetchJson(url, options);  // runtime.js

  function showError(message) {
    $("error").textContent = message || "";
    $("error").hidden = !message;
  }

  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // ------------------------------------------------------------------ the phone
  async function reloadScreen() {
    await window.__mgb.load(await json(`${api}/screen`));
  }

  // ------------------------------------------------------------------ task picker
  const lang = () => document.querySelector("input[name=lang]:checked").value;

  async function loadTasks(selected) {
    tasks = await json(`/api/tasks?lang=${lang()}`);
    const select = $("task-id");
    select.replaceChildren(el("option", "", "choose a task…"));
    select.firstChild.value = "";
    const groups = new Map();
    for (const task of tasks) {
      const app = task.apps.join(" + ");
      if (!groups.has(app)) groups.set(app, el("optgroup"));
      groups.get(app).label = app;
      const option = el("option", "", `${task.id} · ${task.level}`);
      option.value = task.id;
      groups.get(app).append(option);
    }
    select.append(...groups.values());
    select.value = selected || "";
    preview();
  }

  function preview() {
    const task = tasks.find((t) => t.id === $("task-id").value);
    $("task-preview").textContent = task
      ? `${task.level} · ${task.kind} · up to ${task.max_steps} steps. Seed 0: “${task.instruction}”`
      : "";
  }

  async function pose(event) {
    event.preventDefault();
    const button = $("pose-button");
    button.disabled = true;
    showError("");
    try {
      const body = { task_id: $("task-id").value, seed: Number($("seed").value), lang: lang() };
      const status = await json(`${api}/task`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      gestures = 0;
      await reloadScreen();
      render(status);
    } catch (err) {
      showError(`Could not pose the task: ${err.message}`);
    } finally {
      button.disabled = false;
    }
  }

  // ------------------------------------------------------------------ verdict
  // Settings are strings on Android ("0"): shown bare, as `settings get` prints them.
  function shown(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "string") return value === "" ? "(empty)" : value;
    if (Array.isArray(value)) return value.length ? value.map(shown).join(", ") : "(none)";
    return JSON.stringify(value);
  }

  function checkItem(check) {
    const item = el("li", check.passed ? "pl-pass" : "");
    item.dataset.check = check.name;
    item.dataset.passed = String(check.passed);
    item.append(el("span", "pl-mark", check.passed ? "✓" : "✗"));
    const name = el("div", "pl-check-name", check.name);
    if (check.guard) {
      const tag = el("span", "pl-tag", "guard");
      tag.title = "must still hold at the end; not a step of progress";
      name.append(tag);
    }
    const values = el("div", "pl-check-values");
    values.append("expected ", el("b", "", shown(check.expected)), " · now ", el("b", "", shown(check.actual)));
    item.append(name, values);
    if (check.evidence) item.append(el("div", "pl-evidence pl-mono", check.evidence));
    return item;
  }

  function renderVerdict(verdict) {
    const badge = $("badge");
    $("empty").hidden = !!verdict;
    $("progress").hidden = !verdict;
    $("checks").replaceChildren(...(verdict ? verdict.checks.map(checkItem) : []));
    $("effects").textContent = "";
    if (!verdict) {
      $("verdict").classList.remove("pl-solved");
      $("solved").hidden = true;
      badge.className = "pl-badge pl-idle";
      badge.textContent = "no task";
      return;
    }
    const passed = verdict.checks.filter((c) => c.passed).length;
    badge.className = `pl-badge ${verdict.success ? "pl-success" : "pl-pending"}`;
    badge.textContent = verdict.success ? "success" : `${passed} of ${verdict.checks.length} checks pass`;
    $("progress").classList.toggle("pl-done", verdict.success);
    $("verdict").classList.toggle("pl-solved", verdict.success);
    $("solved").hidden = !verdict.success;
    $("solved").textContent = `Task complete after ${gestures} gesture${gestures === 1 ? "" : "s"}.`;
    $("progress-bar").style.width = `${Math.round(verdict.progress * 100)}%`;
    if (verdict.clean === false) {
      $("effects").textContent = `Side effects the task did not ask for: ${verdict.side_effects.join(", ")}`;
    } else if (verdict.clean === null) {
      $("effects").textContent = `Side effects not judged: ${verdict.clean_reason || "unobservable here"}`;
    } else {
      $("effects").textContent = "No side effects.";
    }
  }

  function renderTask(task) {
    $("task").hidden = !task;
    if (!task) return;
    $("instruction").textContent = task.instruction;
    $("task-meta").textContent =
      `${task.task_id} · seed ${task.seed} · ${task.lang} · ${task.level || "?"} · up to ${task.max_steps} steps`;
    $("answer-note").hidden = !(task.answer_fields && task.answer_fields.length);
  }

  function render(status) {
    renderTask(status.task);
    renderVerdict(status.verdict);
    const front = status.foreground.app
      ? `in front: ${status.foreground.app}${status.route ? " " + status.route : ""}`
      : "home screen";
    $("where").textContent = front;
    const budget = status.task ? ` · budget ${status.task.max_steps} steps` : "";
    $("gestures").textContent = `${gestures} gesture${gestures === 1 ? "" : "s"}${budget}`;
    document.body.dataset.version = String(status.version);
    document.body.dataset.success = status.verdict ? String(status.verdict.success) : "";
  }

  async function refresh() {
    render(await json(`${api}/task`));
  }

  // ------------------------------------------------------------------ wiring
  async function onGesture(event) {
    gestures += 1;
    try {
      if (event.detail.error) {
        showError(`The gesture failed (${event.detail.error}); the screen was reloaded.`);
        await reloadScreen();
      } else {
        showError("");
      }
      await refresh();
    } catch (err) {
      showError(err.message);
    }
  }

  async function start() {
    await reloadScreen();
    window.__mgb.interactive();
    window.addEventListener("mgb:gesture", onGesture);
    const status = await json(`${api}/task`);
    if (status.task) {
      $("seed").value = String(status.task.seed);
      document.querySelector(`input[name=lang][value=${status.task.lang}]`).checked = true;
    }
    render(status);
    await loadTasks(status.task ? status.task.task_id : "");
    $("task-id").addEventListener("change", preview);
    for (const radio of document.querySelectorAll("input[name=lang]")) {
      radio.addEventListener("change", () => loadTasks($("task-id").value).catch((e) => showError(e.message)));
    }
    $("pose").addEventListener("submit", pose);
    document.body.dataset.ready = "true";
  }

  start().catch((err) => showError(`The player could not start: ${err.message}`));
})();
