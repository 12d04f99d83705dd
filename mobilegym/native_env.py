"""``BenchEnv``: the part of MobileGym's ``MobileGymEnv`` that their task setup calls,
implemented over one of our :class:`~mobilegym.page.MobileGymPage` s.

Their ``BaseTask.setup(env)`` (and ``Controller.setup``, and a task's ``_prepare`` /
``_post_sample`` hooks) call on ``env``: ``stopwatch``, ``supports_state_injection``,
``reset``, ``warm_apps``, ``open_app``, ``get_state``, ``set_state``, ``get_observation``
and, for tasks that seed files, ``page.evaluate``. Their judge needs ``get_state`` and
``get_route``. That is the whole surface here: our page owns the browser context, so their
driver never launches a browser of its own.

Where their driver sleeps a fixed time (0.3 s after opening an app, after warming), we wait
for the page to settle. State is read as their driver reads it — ``JSON.stringify`` of
``__SIM__.getState()`` with functions, symbols and DOM nodes dropped — so their judge sees
the same values (Playwright's own serialization would keep ``undefined`` fields as None).
Unlike their driver, a failed write raises instead of logging a warning.
"""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from bridge.errors import EnvUsageError
from mobilegym.errors import MobileGymFailed
from mobilegym.native_harness import Harness
from mobilegym.page import MobileGymPage

__all__ = ["BenchEnv"]

_SETTLE_S = 5.0
"""How long a setup step waits for the page to settle before going on."""
_STORES_S = 10.0
"""How long ``get_state(required_apps=...)`` waits for those apps' stores."""

_STATE_JSON = """() => {
  const keep = (k, v) => {
    if (typeof v === 'function' || typeof v === 'symbol') return undefined;
    if (v instanceof Node || v instanceof Window) return undefined;
    if (v instanceof Error) return {message: v.message, name: v.name};
    return v;
  };
  const state = window.__SIM__.getState();
  try { return JSON.stringify(state, keep); } catch (e) {
    const seen = new WeakSet();
    return JSON.stringify(state, (k, v) => {
      v = keep(k, v);
      if (v && typeof v === 'object') { if (seen.has(v)) return '[Circular]'; seen.add(v); }
      return v;
    });
  }
}"""
"""``__SIM__.getState()`` as JSON, the way their ``MobileGymEnv._get_state`` makes it."""

_HAS_STORES = """(ids) => {
  const apps = window.__SIM__.getState().apps || {};
  return ids.every((id) => id in apps);
}"""

_WARM = """async ({appIds, settleMs}) => {
  try { await window.__SIM__.preloadAppStores?.(appIds); } catch {}
  for (const id of appIds) {
    window.__OS__.openApp(id);
    await new Promise((r) => setTimeout(r, settleMs));
  }
  window.__OS__.goHome?.();
}"""
"""Open each app so its store is created, then go home (their ``warm_apps``)."""


class BenchEnv:
    """What MobileGym's task setup and judge call on their env, over our page.

    Args:
        gym_page: The phone (loaded; it keeps its browser context).
        harness: The checkout's harness: the app names ``open_app`` takes, their
            ``Observation`` and ``StopWatch`` (their setup times its phases on it).
    """

    supports_state_injection = True
    """Their setup samples parameters from state and writes its start state."""

    def __init__(self, gym_page: MobileGymPage, harness: Harness) -> None:
        self._gym = gym_page
        self._app_names = harness.app_names
        self._observation = harness.observation
        self.stopwatch: Any = harness.stopwatch()

    @property
    def page(self) -> Page:
        """The Playwright page (a few tasks seed files with ``env.page.evaluate``)."""
        return self._gym.page

    async def reset(self, app_ids: list[str] | None = None) -> None:
        """Their reset: clear every store, storage and file, and load the build again; the
        page's clock stands where it stood (every app's data is awaited, not only
        ``app_ids``')."""
        clock_ms = await self._gym.clock()
        await self._gym.wipe()
        await self._gym.load(clock_ms)

    async def warm_apps(self, app_ids: list[str], settle_ms: int = 300) -> None:
        """Open each app in turn (so its store exists), then go home."""
        await self._gym.call(_WARM, {"appIds": list(app_ids), "settleMs": settle_ms})
        await self._gym.settle(_SETTLE_S)

    async def open_app(
        self, app_name: str, timeout_ms: int = 8000, wait_stable: bool = False
    ) -> None:
        """Open an app by one of their names or ids; an unknown name does nothing, as in
        their driver.

        Raises:
            MobileGymFailed: the app did not come to the front within ``timeout_ms``.
        """
        app_id = self._app_names.get(app_name)
        if app_id is None and app_name.lower() in self._app_names.values():
            app_id = app_name.lower()
        if app_id is None:
            return
        await self._gym.call("(id) => { window.__OS__.openApp(id); }", app_id)
        try:
            await self.page.wait_for_function(
                "() => !!(window.__OS__.getAppRoute() || {}).app", timeout=timeout_ms
            )
        except PlaywrightError as exc:
            raise MobileGymFailed(
                f"MobileGym did not bring {app_id} to the front within {timeout_ms} ms"
            ) from exc
        if wait_stable:
            await self._gym.settle(_SETTLE_S)

    async def get_state(self, *, required_apps: list[str] | None = None) -> dict[str, Any]:
        """``{os, apps}`` as their judge reads it, once ``required_apps``' stores exist.

        Raises:
            MobileGymFailed: a required app's store did not appear in time.
        """
        if required_apps:
            try:
                await self.page.wait_for_function(
                    _HAS_STORES, arg=list(required_apps), timeout=_STORES_S * 1000, polling=50
                )
            except PlaywrightError as exc:
                raise MobileGymFailed(
                    f"MobileGym's stores of {', '.join(required_apps)} did not appear within "
                    f"{_STORES_S:g} s"
                ) from exc
        state = json.loads(await self._gym.call(_STATE_JSON))
        if not isinstance(state, dict) or "os" not in state:
            raise MobileGymFailed("__SIM__.getState() gave no {os, apps}")
        return state

    async def set_state(
        self, patch: dict[str, Any], *, deep: bool = True, reload: bool = False
    ) -> None:
        """``__SIM__.setState(patch, {deep})``.

        Raises:
            EnvUsageError: ``reload=True``; no task of theirs asks for it, and a reload
                would restart the page (and its clock) behind our back.
        """
        if reload:
            raise EnvUsageError("set_state(reload=True) is not supported over our page")
        await self._gym.call(
            "(a) => window.__SIM__.setState(a.patch, {deep: a.deep, reload: false})",
            {"patch": patch, "deep": deep},
        )

    async def get_route(self) -> dict[str, Any]:
        """``__OS__.getAppRoute()`` (``{app, path}``), ``{}`` on the launcher."""
        route = await self._gym.call("() => window.__OS__.getAppRoute() || null")
        return dict(route) if isinstance(route, dict) else {}

    async def get_observation(self) -> Any:
        """Their ``Observation`` of the page now, with route and state and no screenshot:
        their state judge never reads it, and our env takes its own."""
        return self._observation(
            route=await self.get_route(), state=await self.get_state(), step_idx=0
        )
