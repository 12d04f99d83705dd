// Installed before MobileGym's own scripts (a Playwright init script): what settling needs
// to know and a page does not say by itself — when the DOM last changed. Requests in flight
// are counted on the Python side from Playwright's network events (module scripts and
// images included), and running animations come from document.getAnimations().
(() => {
  if (window.__mgbSettle) return;
  const state = { lastChange: performance.now() };
  window.__mgbSettle = state;
  const mark = () => { state.lastChange = performance.now(); };
  // An action counts as a change: what it causes (a React render, an app's chunk loading)
  // starts a frame or more later, and quiet is measured from the later of the two.
  state.mark = mark;
  // Short timers pending: MobileGym waits out some taps on a timer that changes nothing
  // while it runs (200 ms where a double tap is also handled; a launch splash's 300 ms), so
  // a still DOM is not yet a settled screen. Timers up to SHORT_MS count; longer ones (a
  // clock's tick) are not the consequence of an action a step waits for.
  const SHORT_MS = 600;
  const pending = new Set();
  const setTimer = window.setTimeout.bind(window);
  const clearTimer = window.clearTimeout.bind(window);
  window.setTimeout = function (fn, delay, ...args) {
    const ms = Number(delay) || 0;
    if (typeof fn !== 'function' || ms <= 0 || ms > SHORT_MS) return setTimer(fn, delay, ...args);
    let id;
    const run = function (...given) { pending.delete(id); return fn.apply(this, given); };
    id = setTimer(run, delay, ...args);
    pending.add(id);
    return id;
  };
  window.clearTimeout = function (id) { pending.delete(id); return clearTimer(id); };
  new MutationObserver(mark).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  // One frame after the next, then: how long the DOM has been still, and how many finite
  // animations (CSS transitions, keyframes, Web Animations) are still running. Infinite ones
  // (a spinner, a caret) never end and do not count.
  state.probe = () => new Promise((resolve) => {
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const running = document.getAnimations().filter((a) => {
        if (a.playState !== 'running') return false;
        const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
        return !timing || Number.isFinite(timing.endTime);
      }).length;
      // MobileGym's app-launch splash stands still for ~300 ms between its mutations: an
      // app is not shown until it has gone.
      const splash = document.querySelector('[data-app-launch-splash]');
      if (splash) mark();
      if (pending.size) mark();
      resolve({
        quietMs: performance.now() - state.lastChange, running, splash: !!splash,
        timers: pending.size,
      });
    }));
  });
})();
