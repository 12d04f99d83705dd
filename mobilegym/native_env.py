"""MobileGym's own tasks on our phones, in two directions: ``BenchEnv``, the part of their
``MobileGymEnv`` their task setup and judge call, over one of our
:class:`~mobilegym.page.MobileGymPage` s; and ``NativeEnv``, one of their tasks behind our
``Env`` protocol, so our runner, policies and run format take it.

**BenchEnv.** Their ``BaseTask.setup(env)`` (and ``Controller.setup``, and a task's
``_prepare`` / ``_post_sample`` hooks) call on ``env``: ``stopwatch``,
``supports_state_injection``, ``reset``, ``warm_apps``, ``open_app``, ``get_state``,
``set_state``, ``get_observation`` and, for tasks that seed files, ``page.evaluate``. Their
judge needs ``get_state`` and ``get_route``. That is the whole surface here: our page owns the
browser context, so their driver never launches a browser of its own.

Where their driver sleeps a fixed time (0.3 s after opening an app, after warming), we wait
for the page to settle. State is read as their driver reads it — ``JSON.stringify`` of
``__SIM__.getState()`` with functions, symbols and DOM nodes dropped — so their judge sees
the same values (Playwright's own serialization would keep ``undefined`` fields as None).
Unlike their driver, a failed write raises instead of logging a warning.

**NativeEnv.** A task's parameters are sampled by their setup from the phone's state, so the
instance a policy is given exists only once the phone is posed: ``reset`` takes a task id,
seed and language (:func:`unposed_instance`) and :attr:`NativeEnv.task` is then what their
setup sampled (:func:`posed_instance`). The episode starts on the screen their setup leaves
(an app's own task inside the app), as in their runner. Steps and observations are
:class:`~mobilegym.env.MobileGymEnv`'s; the verdict is their judge's, the agent's answer
given to it as their ``ANSWER`` text (the fields' values in field order, joined by ``, `` as
their own runner joins an AnswerSheet's).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from bridge.errors import EnvUsageError
from bridge.records import TaskInstance
from bridge.schema import Observation, ObservedState, Verdict
from mobilegym.env import MobileGymEnv, posed_again
from mobilegym.errors import MobileGymFailed, NativeTaskError
from mobilegym.native_harness import Harness
from mobilegym.native_verdict import answer_fields, answer_text
from mobilegym.page import MobileGymPage

if TYPE_CHECKING:
    from mobilegym.native import NativePosed, NativeTaskInfo, NativeTasks
    from mobilegym.world import MobileGym

__all__ = ["BenchEnv", "NativeEnv", "posed_instance", "unposed_instance"]

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

_INSTALLED = "() => window.__SIM__.getState().os.installedApps.map((app) => app.id)"
"""The ids of the apps the build has."""

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
        gym_page: The phone (it keeps its browser context).
        harness: The checkout's harness: the app names ``open_app`` takes, their
            ``Observation`` and ``StopWatch`` (their setup times its phases on it).
        clock_ms: Where :meth:`reset` stands the page's clock; None keeps it where it
            stands (the page must then be loaded).
    """

    supports_state_injection = True
    """Their setup samples parameters from state and writes its start state."""

    def __init__(
        self, gym_page: MobileGymPage, harness: Harness, *, clock_ms: int | None = None
    ) -> None:
        self._gym = gym_page
        self._clock_ms = clock_ms
        self._app_names = harness.app_names
        self._observation = harness.observation
        self.stopwatch: Any = harness.stopwatch()

    @property
    def page(self) -> Page:
        """The Playwright page (a few tasks seed files with ``env.page.evaluate``)."""
        return self._gym.page

    async def reset(self, app_ids: list[str] | None = None) -> None:
        """Their reset: clear every store, storage and file, and load the build again (a
        page not loaded yet is only loaded); the clock stands where this env was told, else
        where it stood (every app's data is awaited, not only ``app_ids``').

        Raises:
            EnvUsageError: the page is not loaded and this env was given no clock.
        """
        gym = self._gym
        if self._clock_ms is None and not gym.loaded:
            raise EnvUsageError("BenchEnv.reset: the page is not loaded; give clock_ms")
        clock_ms = self._clock_ms if self._clock_ms is not None else await gym.clock()
        if gym.loaded:
            await gym.wipe()
        await gym.load(clock_ms)

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
            MobileGymFailed: the build has no such app (their driver would wait in vain), or
                it did not come to the front within ``timeout_ms``.
        """
        app_id = self._app_names.get(app_name)
        if app_id is None and app_name.lower() in self._app_names.values():
            app_id = app_name.lower()
        if app_id is None:
            return
        installed = await self._gym.call(_INSTALLED)
        if app_id not in installed:
            raise MobileGymFailed(
                f"this MobileGym build has no {app_id} app (its apps: "
                f"{', '.join(sorted(installed))})"
            )
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


# --------------------------------------------------------------------------- NativeEnv

_Level = Literal["L1", "L2", "L3", "L4"]


def _level(theirs: str) -> _Level | None:
    for level in get_args(_Level):
        if theirs == level:
            return level  # type: ignore[no-any-return]
    return None


def posed_instance(posed: NativePosed) -> TaskInstance:
    """The task instance their setup sampled: what a policy is given and a run records."""
    return TaskInstance(
        task_id=posed.task_id,
        seed=posed.seed,
        params=dict(posed.params),
        instruction=posed.instruction,
        lang=posed.lang,
        level=_level(posed.level),
        max_steps=posed.max_steps,
        answer_fields=answer_fields(posed.answer_fields or []),
    )


def unposed_instance(info: NativeTaskInfo, seed: int, lang: str) -> TaskInstance:
    """What :meth:`NativeEnv.reset` is given before their setup samples anything: the task
    id, seed and language, and their instruction template unfilled (what a record says was
    asked when posing failed).

    Raises:
        NativeTaskError: the task has no instruction in ``lang``.
    """
    found = next((offered for offered in info.templates if offered == lang), None)
    if found is None:
        raise NativeTaskError(
            f"{info.task_id} has no {lang} instruction (its templates are in "
            f"{', '.join(sorted(info.templates))})"
        )
    return TaskInstance(
        task_id=info.task_id,
        seed=seed,
        instruction=info.templates[found][0],
        lang=found,
        level=_level(info.level),
        max_steps=info.max_steps,
    )


class NativeEnv(MobileGymEnv):
    """One of MobileGym's own tasks on one of our phones, as a bridge ``Env`` (see the
    module doc): posed by their setup, stepped and observed as :class:`MobileGymEnv` steps
    and observes, judged by their judge.

    Args:
        gym: The world the phone belongs to (its clock is where every reset stands it).
        page: The phone (loaded by the first reset).
        native: Their tasks, from the user's checkout.
        **options: :class:`MobileGymEnv`'s (timeouts, screenshot format).
    """

    def __init__(
        self, gym: MobileGym, page: MobileGymPage, native: NativeTasks, **options: Any
    ) -> None:
        super().__init__(gym, page, **options)
        self.native = native
        self._options = options
        self._posed: NativePosed | None = None

    @classmethod
    async def open(cls, gym: MobileGym, native: NativeTasks, **options: Any) -> NativeEnv:
        """A native env on a new phone of ``gym``."""
        return cls(gym, await gym.page(load=False), native, **options)

    @property
    def task(self) -> TaskInstance | None:
        """The task as their setup sampled it at the last reset (None before one)."""
        return self._task

    async def reset(self, task: TaskInstance) -> Observation:
        """Pose ``task.task_id`` with ``task.seed`` in ``task.lang`` by their setup and
        observe (the rest of ``task`` is not read: :attr:`task` is what was sampled).

        Raises:
            NativeTaskError: no such task in the checkout, or none of its instructions is
                in ``task.lang`` (misuse: the ids are checked before a run).
            MobileGymFailed: their setup failed on this page.
        """
        self._check_open()
        return await self._within(self._pose(task), self.reset_timeout_s, "reset")

    async def _pose(self, task: TaskInstance) -> Observation:
        self._task, self._posed, self._answer, self._last = None, None, None, None
        posed = await self.native.pose(
            task.task_id, task.seed, task.lang, self.page, clock_ms=self.gym.clock_ms
        )
        self._backend = await self._backend_info()
        self._posed, self._task = posed, posed_instance(posed)
        stable = await self.page.settle(self.settle_timeout_s)
        return await self._observe(0, stable, None)

    async def verdict(self) -> Verdict:
        """Their judge's verdict on the phone now (:meth:`NativeTasks.judge`)."""
        self._check_open()
        if self._posed is None or self._task is None:
            raise EnvUsageError("no task to judge: call reset(task) first")
        answer = answer_text(self._task.answer_fields, self._answer)
        return await self.native.judge(self._posed, self.page, answer)

    def start_state(self) -> ObservedState | None:
        """None: their tasks are posed by their setup, not from facts we observe."""
        return None

    async def fork(self, n: int) -> Sequence[NativeEnv]:
        """``n`` new phones posed with this episode's task by their setup (which samples the
        same instance from the same seed). Only before the first step.

        Raises:
            EnvUsageError: no episode, or it has taken a step (MobileGym cannot copy a page).
        """
        self._check_open()
        task = self._task
        at_start = task is not None and self._last is not None and self._last.step == 0

        async def new_phone() -> NativeEnv:
            return await NativeEnv.open(self.gym, self.native, **self._options)

        return await posed_again(n, task if at_start else None, new_phone)
