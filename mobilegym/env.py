"""``MobileGymEnv``: one MobileGym phone behind the bridge ``Env`` protocol.

``reset(task)`` wipes the phone with MobileGym's own reset and loads the build again (a fresh
phone, its clock at the world's start), switches its UI to the task's language, poses the
task's bound spec with :func:`bridge.judge.pose` over
:class:`~mobilegym.android_state.MobileGymAndroidState` (a spec MobileGym cannot pose is
refused before anything is written: :func:`mobilegym.poseable.mobilegym_refusal`), goes home
and observes. ``step`` acts through MobileGym's input API (:mod:`mobilegym.actuate`) on the
observation the policy saw, waits until the page settles (a condition, never a sleep) and
observes again. ``verdict`` is :func:`bridge.judge.judge` over the same state: the judge that
judges the simulator and phones.

An observation is what a phone would give: the screenshot, the foreground package (from the
app MobileGym has in front), the keyboard, and a UI tree derived from the page
(:mod:`mobilegym.tree`), marked ``ui_derived="page"`` because MobileGym has none of its own.

A fork is a new phone posed with the same task (MobileGym cannot copy a live page), so
:meth:`fork` is offered at the start of an episode only.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from bridge.actuate import perform
from bridge.app_catalog import app_catalog
from bridge.env import Env
from bridge.errors import EnvTimeout, EnvUsageError, TaskNotPosed
from bridge.judge import StartRecord, judge, pose
from bridge.records import TaskInstance
from bridge.retail import NO_SPEC
from bridge.schema import (
    Action,
    AnswerAction,
    AnswerValue,
    BackendInfo,
    Foreground,
    Observation,
    ObservedState,
    Screenshot,
    ScreenSpec,
    StepResult,
    StepTimings,
    UINode,
    UIStatus,
    Verdict,
)
from bridge.taskspec import TaskSpec
from mobilegym.actuate import MobileGymActuator
from mobilegym.android_state import MobileGymAndroidState
from mobilegym.android_state.settings import follower_globs
from mobilegym.page import DENSITY_DPI, SCREEN_PX, MobileGymPage
from mobilegym.poseable import mobilegym_refusal
from mobilegym.tree import derived_tree

if TYPE_CHECKING:
    from mobilegym.world import MobileGym

__all__ = ["MobileGymEnv", "posed_again"]

_T = TypeVar("_T")

_LANGUAGES = {"en": "en", "zh": "zh-Hans"}
"""A task's language as MobileGym's ``__OS__.locale`` takes it."""


class MobileGymEnv:
    """A MobileGym phone as a bridge ``Env`` (see the module docstring).

    Args:
        gym: The world the phone belongs to (its forks open pages there).
        page: The phone (loaded).
        settle_timeout_s: How long a step waits for the page to settle before observing it
            as unstable.
        step_timeout_s: The budget of one step, acting, settling and observing.
        reset_timeout_s: The budget of one reset.
        image_format: Screenshot encoding; ``quality`` applies to JPEG.
    """

    def __init__(
        self,
        gym: MobileGym,
        page: MobileGymPage,
        *,
        settle_timeout_s: float = 5.0,
        step_timeout_s: float = 60.0,
        reset_timeout_s: float = 120.0,
        image_format: Literal["jpeg", "png"] = "jpeg",
        quality: int = 80,
        screenshot: bool = True,
    ) -> None:
        self.gym = gym
        self.page = page
        self.settle_timeout_s = settle_timeout_s
        self.step_timeout_s = step_timeout_s
        self.reset_timeout_s = reset_timeout_s
        self.image_format = image_format
        self.quality = quality
        self.screenshot_wanted = screenshot
        self.state = MobileGymAndroidState(page, timezone=gym.timezone)
        self.actuator = MobileGymActuator(page, self.state, self._tree_now)
        self._backend: BackendInfo | None = None
        self._task: TaskInstance | None = None
        self._start: StartRecord | None = None
        self._answer: dict[str, AnswerValue] | None = None
        self._last: Observation | None = None
        self._closed = False

    # ---- bridge.Env
    async def reset(self, task: TaskInstance) -> Observation:
        """Pose ``task`` on a fresh phone and observe its home screen."""
        self._check_open()
        spec = _spec_of(task)
        refusal = mobilegym_refusal(spec)
        if refusal is not None:
            raise TaskNotPosed(f"{task.task_id} cannot be posed in MobileGym: {refusal}")
        return await self._within(self._reset(task, spec), self.reset_timeout_s, "reset")

    async def _reset(self, task: TaskInstance, spec: TaskSpec) -> Observation:
        page = self.page
        if page.loaded:
            await page.wipe()
        await page.load(self.gym.clock_ms)
        await page.call("(lang) => window.__OS__.locale.setLocale(lang)", _LANGUAGES[task.lang])
        self._backend = await self._backend_info()
        self._task, self._answer, self._start, self._last = task, None, None, None
        self._start = await pose(spec, self.state)
        await page.act("() => window.__OS__.goHome()")
        stable = await page.settle(self.settle_timeout_s)
        return await self._observe(0, stable, None)

    async def _backend_info(self) -> BackendInfo:
        build = await self.page.call("() => window.__SIM__.getState().os.build")
        android = build.get("androidVersion") if isinstance(build, dict) else None
        return BackendInfo(
            kind="mobilegym", model="MobileGym", android_version=str(android) if android else None
        )

    async def step(self, action: Action) -> StepResult:
        """Carry out ``action``, wait for the page to settle, and observe."""
        self._check_open()
        if self._last is None or self._task is None:
            raise EnvUsageError("no episode: call reset(task) first")
        work = self._step(action, self._last)
        return await self._within(work, self.step_timeout_s, f"step ({action.type})")

    async def _step(self, action: Action, seen: Observation) -> StepResult:
        started = time.perf_counter()
        outcome = await perform(self.actuator, action, seen)
        if isinstance(action, AnswerAction):
            self._answer = dict(action.fields)
        acted = time.perf_counter()
        stable = await self.page.settle(self.settle_timeout_s) if outcome.touched else True
        settled = time.perf_counter()
        obs = await self._observe(seen.step + 1, stable, outcome.error)
        done = time.perf_counter()
        return StepResult(
            observation=obs,
            executed=outcome.executed,
            error=outcome.error,
            done=outcome.done,
            timings=StepTimings(
                act_ms=(acted - started) * 1000,
                settle_ms=(settled - acted) * 1000,
                observe_ms=(done - settled) * 1000,
                total_ms=(done - started) * 1000,
            ),
        )

    async def verdict(self) -> Verdict:
        """The spec's verdict from MobileGym's state and the agent's answer."""
        self._check_open()
        if self._task is None or self._start is None:
            raise EnvUsageError("no task to judge: call reset(task) first")
        spec = _spec_of(self._task)
        # MobileGym moves some settings along with others where Android does not (Do not
        # disturb silences the ringer): the goal's own followers are not side effects.
        followers = follower_globs(spec.expected.settings)
        return await judge(spec, self.state, self._start, answer=self._answer, volatile=followers)

    def start_state(self) -> ObservedState | None:
        """The observable state the task was posed in (``bridge.env.StartObserving``)."""
        return self._start.observed if self._start is not None else None

    async def fork(self, n: int) -> Sequence[MobileGymEnv]:
        """``n`` new phones posed with this episode's task: the same start state, since the
        spec is posed the same way on a fresh phone. Only before the first step.

        Raises:
            EnvUsageError: no episode, or it has taken a step (MobileGym cannot copy a page).
        """
        self._check_open()
        task = self._task
        at_start = task is not None and self._last is not None and self._last.step == 0

        async def new_phone() -> MobileGymEnv:
            return await self.gym.env(
                settle_timeout_s=self.settle_timeout_s,
                step_timeout_s=self.step_timeout_s,
                reset_timeout_s=self.reset_timeout_s,
                image_format=self.image_format,
                quality=self.quality,
                screenshot=self.screenshot_wanted,
            )

        return await posed_again(n, task if at_start else None, new_phone)

    async def screenshot(self) -> Screenshot:
        """The screen now (``bridge.env.LiveScreen``)."""
        self._check_open()
        width, height = SCREEN_PX
        data = await self.page.screenshot(self.image_format, self.quality)
        return Screenshot(format=self.image_format, width=width, height=height, data=data)

    async def close(self) -> None:
        """Close the phone's page and context; idempotent."""
        if self._closed:
            return
        self._closed = True
        await self.page.close()

    async def __aenter__(self) -> MobileGymEnv:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- observing
    async def _tree_now(self) -> list[UINode]:
        app, _ = await self.page.route()
        return await derived_tree(self.page, await self._package(app) or "")

    async def _package(self, app: str | None) -> str | None:
        """The package of MobileGym's app ``app`` (None on its launcher, which is its OS
        shell and has no package)."""
        return None if app is None else (await self.state.packages()).get(app)

    async def _observe(self, step: int, stable: bool, error: str | None) -> Observation:
        page = self.page
        app, _ = await page.route()
        package = await self._package(app)
        ours = app_catalog().by_package(package) if package is not None else None
        # the screen is drawn by the browser while its page walks the DOM: at once
        nodes, keyboard, shot = await asyncio.gather(
            derived_tree(page, package or ""), page.keyboard_visible(), self._shot()
        )
        assert self._backend is not None
        width, height = SCREEN_PX
        obs = Observation(
            step=step,
            screenshot=shot,
            screen=ScreenSpec(width_px=width, height_px=height, density_dpi=DENSITY_DPI),
            ui=nodes,
            ui_status=UIStatus.OK if nodes else UIStatus.UNAVAILABLE,
            ui_derived="page",
            foreground=Foreground(app=ours, package=package),
            keyboard_visible=keyboard,
            stable=stable,
            last_action_error=error,
            backend=self._backend,
        )
        self._last = obs
        return obs

    async def _shot(self) -> Screenshot | None:
        return await self.screenshot() if self.screenshot_wanted else None

    # ---- helpers
    def _check_open(self) -> None:
        if self._closed:
            raise EnvUsageError("the env is closed; open a new one with MobileGym.env()")

    @staticmethod
    async def _within(work: Awaitable[_T], timeout_s: float, what: str) -> _T:
        try:
            return await asyncio.wait_for(work, timeout_s)
        except asyncio.TimeoutError as exc:
            raise EnvTimeout(
                f"MobileGym: {what} did not finish within {timeout_s:g} s; its page may hang"
            ) from exc


_Env = TypeVar("_Env", bound=Env)


async def posed_again(
    n: int, task: TaskInstance | None, new_phone: Callable[[], Awaitable[_Env]]
) -> list[_Env]:
    """The fork of a MobileGym env, which cannot copy its page: ``n`` new phones from
    ``new_phone``, each posed with ``task`` (the episode's, given only at its start); a phone
    that fails to pose is closed, with every one made before it.

    Raises:
        EnvUsageError: no task (not at the start of an episode).
        ValueError: ``n`` < 1.
    """
    if task is None:
        raise EnvUsageError(
            "a MobileGym env forks by posing its task again on new phones: fork at the "
            "start of an episode (after reset, before any step)"
        )
    if n < 1:
        raise ValueError(f"fork needs n >= 1, got {n}")
    forks: list[_Env] = []
    try:
        for _ in range(n):
            forks.append(await new_phone())
            await forks[-1].reset(task)
    except BaseException:
        for fork in forks:
            await fork.close()
        raise
    return forks


def _spec_of(task: TaskInstance) -> TaskSpec:
    if task.spec is None:
        raise TaskNotPosed(f"{task.task_id} {NO_SPEC}")
    return task.spec
