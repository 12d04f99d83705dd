"""``AndroidEnv``: a phone (real or virtual) behind the bridge Env protocol.

``reset(task)`` force-stops the task's apps, poses its bound spec (``task.spec``) with
:func:`bridge.judge.pose` over ``adb shell`` (:class:`~device.android_state.AdbAndroidState`),
checks that the UI took the task's language, goes home and observes. ``step`` acts on the
observation the policy saw, waits for the screen to settle (screenshot differences, not
sleeps) and observes again, within a per-step time budget. ``verdict`` is
:func:`bridge.judge.judge` over the same shell, with the agent's answer and the UI XML of
every observation of the episode: the very code that judges the simulator.

Failures of the phone raise :class:`~device.errors.DeviceError` (an ``EnvError``: the runner
records ``infra_error``); agent mistakes come back as ``StepResult.error``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from bridge.actuate import perform
from bridge.app_catalog import app_catalog
from bridge.errors import EnvUsageError, TaskNotPosed
from bridge.judge import StartRecord, judge, pose
from bridge.records import TaskInstance
from bridge.restore import Found, put_back, remember
from bridge.retail import NO_SPEC, retail_can_pose, retail_refusal
from bridge.schema import (
    Action,
    AnswerAction,
    BackendInfo,
    Foreground,
    Observation,
    ObservedState,
    Restoration,
    Screenshot,
    StepResult,
    StepTimings,
    UINode,
    UIStatus,
    Verdict,
)
from bridge.taskspec import TaskSpec
from device.actuate import PhoneActuator
from device.adb import AdbTarget
from device.android_state import AdbAndroidState
from device.driver import AndroidDriver, DeviceLink, Dump, Frame, ScreenFacts, SettleConfig
from device.errors import DeviceError, DeviceTimeout, TaskUnsupported
from device.profiles import (
    DeviceProfile,
    DeviceProps,
    ProfileChoice,
    locale_language,
    select_profile,
)
from device.session import AdbSession, ReconnectPolicy
from device.shell import Shell

__all__ = ["AndroidEnv", "AndroidEnvConfig", "read_props", "ui_locale"]

_T = TypeVar("_T")

_PROPS = {
    "model": "ro.product.model",
    "brand": "ro.product.brand",
    "manufacturer": "ro.product.manufacturer",
    "device": "ro.product.device",
    "android_version": "ro.build.version.release",
    "sdk": "ro.build.version.sdk",
}


class AndroidEnvConfig(BaseModel):
    """Which phone, which profile, and the time budgets of an :class:`AndroidEnv`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: AdbTarget = Field(default_factory=AdbTarget)
    profile: str | None = Field(default=None, description="a profile name; None: by getprop")
    step_timeout_s: float = Field(default=60.0, gt=0)
    reset_timeout_s: float = Field(default=180.0, gt=0)
    call_timeout_s: float = Field(default=30.0, gt=0)
    settle: SettleConfig = Field(default_factory=SettleConfig)
    reconnect: ReconnectPolicy = Field(default_factory=ReconnectPolicy)
    screenshot: bool = True
    u2_port: int = Field(default=9008, ge=1, le=65535)


async def ui_locale(shell: Shell) -> str:
    """The locale the phone's UI uses: ``persist.sys.locale`` (what Settings last chose),
    else the factory ``ro.product.locale``."""
    chosen = (await shell("getprop persist.sys.locale")).strip()
    return chosen or (await shell("getprop ro.product.locale")).strip()


async def read_props(link: DeviceLink, serial: str) -> DeviceProps:
    """What the phone says about itself (``getprop``), ``ro.mgb.virtual`` and the profile a
    virtual phone plays (``ro.mgb.profile``) included."""
    values = {name: (await link.shell(f"getprop {key}")).strip() for name, key in _PROPS.items()}
    virtual = (await link.shell("getprop ro.mgb.virtual")).strip() == "1"
    plays = (await link.shell("getprop ro.mgb.profile")).strip() if virtual else ""
    locale = await ui_locale(link.shell)
    return DeviceProps(serial=serial, virtual=virtual, plays=plays, locale=locale, **values)


class AndroidEnv:
    """A bridge ``Env`` on one adb device; an async context manager, ``close`` idempotent."""

    def __init__(
        self,
        config: AndroidEnvConfig,
        *,
        link: DeviceLink | None = None,
    ) -> None:
        """``link`` replaces the adb session (tests); otherwise one is opened on first use."""
        self.config = config
        self._link = link
        self._owns_link = link is None
        self._driver: AndroidDriver | None = None
        self._choice: ProfileChoice | None = None
        self._backend: BackendInfo | None = None
        self._facts: ScreenFacts | None = None
        self._task: TaskInstance | None = None
        self._start: StartRecord | None = None
        self._found: Found | None = None
        self._opened: set[str] = set()
        """Packages seen in front during the episode (stopped when it is put back)."""
        self._answer: dict[str, Any] | None = None
        self._trees: list[str] = []
        self._last: Observation | None = None
        self._closed = False

    # ---- connection
    async def open(self) -> BackendInfo:
        """Connect (if not yet), read the phone's props, pick its profile; idempotent."""
        self._check_open()
        if self._backend is not None:
            return self._backend
        if self._link is None:
            session = AdbSession(
                self.config.target,
                reconnect=self.config.reconnect,
                u2_port=self.config.u2_port,
                call_timeout_s=self.config.call_timeout_s,
            )
            await session.open()
            self._link = session
        serial = self.config.target.serial or getattr(self._link, "serial", "") or "unknown"
        props = await read_props(self._link, serial)
        self._choice = select_profile(props, self.config.profile)
        self._driver = AndroidDriver(self._link, settle=self._settle(self._choice.profile))
        self._facts = await self._driver.screen()
        self._backend = BackendInfo(
            kind="virtual" if props.virtual else "device",
            model=props.model or None,
            android_version=props.android_version or None,
            serial=serial,
        )
        return self._backend

    def _settle(self, profile: DeviceProfile) -> SettleConfig:
        """The config's settling, with the profile's interval unless the config set its own."""
        if "settle" in self.config.model_fields_set or profile.settle_interval_s is None:
            return self.config.settle
        return self.config.settle.model_copy(update={"interval_s": profile.settle_interval_s})

    @property
    def profile(self) -> DeviceProfile:
        """The device profile in use (after :meth:`open`)."""
        if self._choice is None:
            raise EnvUsageError("the env is not open: call open() or reset() first")
        return self._choice.profile

    @property
    def profile_choice(self) -> ProfileChoice | None:
        """Which profile was picked and why (None before :meth:`open`)."""
        return self._choice

    @property
    def backend(self) -> BackendInfo | None:
        """Which world this is (None before :meth:`open`)."""
        return self._backend

    @property
    def session(self) -> AdbSession | None:
        """The adb session this env opened (None before :meth:`open` or with a given link)."""
        return self._link if isinstance(self._link, AdbSession) else None

    @property
    def driver(self) -> AndroidDriver:
        """The device-level driver (after :meth:`open`)."""
        if self._driver is None:
            raise EnvUsageError("the env is not open: call open() or reset() first")
        return self._driver

    # ---- bridge.Env
    async def reset(self, task: TaskInstance) -> Observation:
        """Pose ``task`` on the phone (force-stop its apps, pose its spec, home) and observe."""
        self._check_open()
        spec = _spec_of(task)
        return await self._within(self._reset(task, spec), self.config.reset_timeout_s, "reset")

    @property
    def android_state(self) -> AdbAndroidState:
        """The phone's Android state over this env's shell (what tasks are judged on)."""
        profile = self._choice.profile if self._choice else None
        volatile = frozenset(profile.volatile_settings) if profile else frozenset()
        clock = profile.package("clock") if profile else None
        return AdbAndroidState(self._shell, volatile_settings=volatile, clock_package=clock)

    async def _reset(self, task: TaskInstance, spec: TaskSpec) -> Observation:
        backend = await self.open()
        refusal = retail_refusal(task) if backend.kind == "device" else None
        if refusal is not None:
            raise TaskUnsupported(
                f"{task.task_id} runs only in the simulator and on the virtual phone ({refusal})"
            )
        driver = self.driver
        for app_id in spec.apps:
            package = self.profile.package(app_id)
            if package is not None:
                await driver.force_stop(package)
        self._task, self._answer, self._trees, self._opened = task, None, [], set()
        self._start = self._found = None
        state = self.android_state
        self._found = await remember(spec, state)
        try:
            self._start = await pose(spec, state)
        except TaskNotPosed as exc:
            raise TaskNotPosed(_with_leftovers(str(exc), backend.serial)) from exc
        if retail_can_pose(task):  # the others may pose a locale themselves (SetLanguage-v1)
            await self._check_language(task)
        await driver.key("home")
        await self._dismiss_system_dialogs()
        settled = await driver.settle()
        return await self._observe(0, settled.frame, settled.stable, None)

    async def _check_language(self, task: TaskInstance) -> None:
        """Most phones apply a language only through Settings (or at the next boot): the
        spec wrote it; this checks it took, never assumes it.

        Raises:
            DeviceError: the UI is not in the task's language.
        """
        shown = await ui_locale(self._shell)
        if shown and locale_language(shown) != task.lang:
            raise DeviceError(
                f"the phone's UI language is {shown} but {task.task_id} is posed in "
                f"{task.lang}; a phone changes language through Settings > System > Languages "
                f"(or after a reboot), so switch it there, or run the task in the phone's "
                "language (--lang)"
            )

    async def _dismiss_system_dialogs(self, attempts: int = 3) -> None:
        """BACK while a system dialog ("Battery low", "… isn't responding") is up: one left
        from an earlier episode survives HOME and would sit over the whole next episode."""
        for _ in range(attempts):
            dump = await self.driver.hierarchy()
            if dump.tree is None or not any(_is_system_dialog(n) for n in dump.tree.nodes):
                return
            await self.driver.key("back")
            await self.driver.settle()

    async def step(self, action: Action) -> StepResult:
        """Carry out ``action``, wait for the screen to settle, and observe."""
        self._check_open()
        if self._last is None or self._task is None:
            raise EnvUsageError("no episode: call reset(task) first")
        budget = self.config.step_timeout_s
        return await self._within(self._step(action, self._last), budget, f"step ({action.type})")

    async def _step(self, action: Action, seen: Observation) -> StepResult:
        started = time.perf_counter()
        outcome = await perform(PhoneActuator(self.driver, self.profile), action, seen)
        if isinstance(action, AnswerAction):
            self._answer = dict(action.fields)
        acted = time.perf_counter()
        frame, stable, ui = None, True, None
        if outcome.touched:
            settled = await self.driver.settle(meanwhile=self._read_ui)
            frame, stable, ui = settled.frame, settled.stable, settled.meanwhile
        settled_at = time.perf_counter()
        obs = await self._observe(seen.step + 1, frame, stable, outcome.error, ui)
        done = time.perf_counter()
        timings = StepTimings(
            act_ms=(acted - started) * 1000,
            settle_ms=(settled_at - acted) * 1000,
            observe_ms=(done - settled_at) * 1000,
            total_ms=(done - started) * 1000,
        )
        return StepResult(
            observation=obs,
            executed=outcome.executed,
            error=outcome.error,
            done=outcome.done,
            timings=timings,
        )

    async def verdict(self) -> Verdict:
        """The spec's verdict from the phone's state, the answer and the episode's trees."""
        self._check_open()
        if self._task is None or self._start is None:
            raise EnvUsageError("no task to judge: call reset(task) first")
        state = self.android_state
        return await judge(
            _spec_of(self._task),
            state,
            self._start,
            answer=self._answer,
            trees=list(self._trees),
            volatile=state.volatile_settings,
        )

    def start_state(self) -> ObservedState | None:
        """The observable state the task was posed in (``bridge.env.StartObserving``)."""
        return self._start.observed if self._start is not None else None

    async def put_back(self) -> Restoration:
        """Leave the phone as the episode found it (``bridge.env.RestoringEnv``): stop the
        apps it opened, go home, and write back what it changed (:func:`bridge.restore.
        put_back`); what could not be is remembered for this phone, and the next pose that
        fails names it."""
        self._check_open()
        if self._task is None or self._found is None:
            return Restoration()
        spec, driver = _spec_of(self._task), self.driver
        stopped = []
        for package in sorted(self._opened | self._task_packages(spec)):
            await driver.force_stop(package)
            stopped.append(f"app {package} stopped")
        state = self.android_state
        done = await put_back(state, self._found, state.volatile_settings)
        await driver.key("home")
        self._found = None
        serial = self._backend.serial if self._backend is not None else None
        _LEFTOVERS[serial or ""] = list(done.not_restored)
        return done.model_copy(update={"restored": [*stopped, *done.restored]})

    def _task_packages(self, spec: TaskSpec) -> set[str]:
        packages = (self.profile.package(app_id) for app_id in spec.apps)
        return {package for package in packages if package is not None}

    async def close(self) -> None:
        """Release the adb session (if this env opened it); idempotent."""
        if self._closed:
            return
        self._closed = True
        link, self._link = self._link, None
        close = getattr(link, "close", None)
        if self._owns_link and close is not None:
            await close()

    async def __aenter__(self) -> AndroidEnv:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- observing
    async def observe(self) -> Observation:
        """Observe the phone without acting (after reset)."""
        self._check_open()
        step = self._last.step if self._last is not None else 0
        return await self._observe(step, None, True, None)

    async def screenshot(self) -> Screenshot:
        """The screen now, without a tree dump (``bridge.env.LiveScreen``); opens the env."""
        self._check_open()
        await self.open()
        return _screenshot(await self.driver.screenshot())

    async def _read_ui(self) -> _UI:
        """What an observation reads besides pixels: the tree, the foreground, the keyboard."""
        driver = self.driver
        dump = await driver.hierarchy()
        foreground, keyboard = await asyncio.gather(driver.foreground(), driver.keyboard_visible())
        return _UI(dump, foreground, keyboard)

    async def _observe(
        self,
        step: int,
        frame: Frame | None,
        stable: bool,
        error: str | None,
        ui: _UI | None = None,
    ) -> Observation:
        """The observation: ``frame`` (else a screenshot now) and ``ui`` (else read now,
        after the frame; settling reads it between two frames that agree)."""
        driver = self.driver
        if frame is None:
            frame = await driver.screenshot()
        dump, (package, activity), keyboard = ui if ui is not None else await self._read_ui()
        status = dump.status
        if dump.tree is not None and frame.is_black():
            status = UIStatus.SECURE_WINDOW  # FLAG_SECURE: black pixels, the tree still works
        rotation = dump.tree.rotation * 90 if dump.tree is not None else await driver.rotation()
        assert self._facts is not None and self._backend is not None
        facts = self._facts.model_copy(update={"rotation": rotation})
        if dump.xml is not None:
            self._trees.append(dump.xml)
        if package is not None and package not in (self.profile.launcher, *_SYSTEM_PACKAGES):
            self._opened.add(package)
        obs = Observation(
            step=step,
            screenshot=_screenshot(frame) if self.config.screenshot else None,
            screen=facts.spec(),
            ui=dump.tree.nodes if dump.tree is not None else [],
            ui_status=status,
            foreground=Foreground(
                app=self.profile.app_of(package), package=package, activity=activity
            ),
            keyboard_visible=keyboard,
            stable=stable,
            last_action_error=error,
            backend=self._backend,
        )
        self._last = obs
        return obs

    # ---- helpers
    async def _shell(self, command: str) -> str:
        """The ``Shell`` variants get: one ``adb shell`` command line."""
        if self._link is None:
            raise EnvUsageError("the env is closed")
        return await self._link.shell(command)

    def _check_open(self) -> None:
        if self._closed:
            raise EnvUsageError("the env is closed; make a new AndroidEnv")

    @staticmethod
    async def _within(work: Awaitable[_T], timeout_s: float, what: str) -> _T:
        try:
            return await asyncio.wait_for(work, timeout_s)
        except asyncio.TimeoutError as exc:
            raise DeviceTimeout(
                f"{what} did not finish within {timeout_s:g} s; the phone may be frozen, "
                "asleep or disconnected"
            ) from exc


_SYSTEM_PACKAGES = ("android", *app_catalog().system_ui.values())
"""Packages in front that are the system, not an app an episode opened."""

_LEFTOVERS: dict[str, list[str]] = {}
"""By serial: what the last episode on that phone could not put back."""


def _with_leftovers(message: str, serial: str | None) -> str:
    """A refused pose's message, naming what an earlier episode left on this phone."""
    left = _LEFTOVERS.get(serial or "")
    if not left:
        return message
    shown = "; ".join(left[:3]) + (f"; and {len(left) - 3} more" if left[3:] else "")
    return f"{message} — left on this phone by an earlier episode: {shown}"


class _UI(NamedTuple):
    dump: Dump
    foreground: tuple[str | None, str | None]
    keyboard: bool


def _spec_of(task: TaskInstance) -> TaskSpec:
    if task.spec is None:
        raise TaskUnsupported(f"{task.task_id} {NO_SPEC}")
    return task.spec


def _screenshot(frame: Frame) -> Screenshot:
    return Screenshot(format=frame.format, width=frame.width, height=frame.height, data=frame.data)


_DIALOG_IDS = frozenset({"android:id/alertTitle", "android:id/button1", "android:id/button2"})


def _is_system_dialog(node: UINode) -> bool:
    """A node of a dialog the system (package ``android``) shows over every app."""
    return node.package == "android" and node.resource_id in _DIALOG_IDS
