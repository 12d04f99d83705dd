"""A tiny deterministic in-memory world and scripted policies, for the bridge tests only.

The world is one screen: a counter and a "+" button. Tapping the button (by element id 2 or
by a point inside it) adds one; the task is to reach ``params["target"]`` and finish. Knobs
make the env crash or hang at a chosen step (hangs wait on an event nobody sets — no sleeps)
and make the policy emit invalid outputs or raise at a chosen call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Literal
from xml.sax.saxutils import quoteattr

import cv2
import numpy as np

from bridge.errors import EnvError, EnvUsageError, PolicyError
from bridge.records import TaskInstance
from bridge.schema import (
    Action,
    AnswerAction,
    BackendInfo,
    CheckResult,
    ExecutedAction,
    FinishAction,
    Observation,
    PolicyContext,
    PolicyOutput,
    Screenshot,
    ScreenSpec,
    StepResult,
    TapAction,
    Target,
    UINode,
    Verdict,
)

__all__ = [
    "BACKEND",
    "BUTTON",
    "CounterEnv",
    "ScriptedPolicy",
    "Tracker",
    "counter_task",
    "counter_tree_xml",
    "frame",
    "screen_observation",
]

BACKEND = BackendInfo(kind="sim", model="toy-counter")
SCREEN = ScreenSpec(width_px=108, height_px=240, density_dpi=160)
BUTTON = 2
"""Element id of the "+" button."""
_BUTTON_BOUNDS = (30, 150, 78, 198)


def counter_task(target: int = 3, *, max_steps: int = 10, seed: int = 0) -> TaskInstance:
    """The task "make the counter show ``target``"."""
    return TaskInstance(
        task_id="toy/Counter-v1",
        seed=seed,
        params={"target": target},
        instruction=f"Tap + until the counter shows {target}, then finish.",
        max_steps=max_steps,
    )


def frame(value: int, image_format: Literal["png", "jpeg"] = "png") -> Screenshot:
    """A tiny real image whose grey level encodes ``value``."""
    image = np.full((24, 12, 3), (value * 37) % 256, dtype=np.uint8)
    ok, encoded = cv2.imencode(".png" if image_format == "png" else ".jpg", image)
    assert ok
    return Screenshot(format=image_format, width=12, height=24, data=encoded.tobytes())


def counter_tree_xml(observation: Observation) -> str:
    """The observation's UI tree as uiautomator-style XML (nested by parent)."""

    def render(node: UINode) -> str:
        children = "".join(render(child) for child in observation.ui if child.parent == node.id)
        left, top, right, bottom = node.bounds_px
        attributes = {
            "index": str(node.index),
            "text": node.text,
            "class": node.class_name,
            "clickable": str(node.clickable).lower(),
            "bounds": f"[{left},{top}][{right},{bottom}]",
        }
        rendered = " ".join(f"{key}={quoteattr(value)}" for key, value in attributes.items())
        return f"<node {rendered}>{children}</node>"

    roots = "".join(render(node) for node in observation.ui if node.parent is None)
    return f"<?xml version='1.0' encoding='UTF-8' ?><hierarchy rotation=\"0\">{roots}</hierarchy>"


def screen_observation(
    counter: int,
    *,
    step: int = 0,
    image_format: Literal["png", "jpeg"] = "png",
    error: str | None = None,
) -> Observation:
    """What the counter screen looks like: a root, the value, and the "+" button."""
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 108, 240)),
        UINode(
            id=1,
            parent=0,
            index=0,
            class_name="android.widget.TextView",
            text=str(counter),
            bounds_px=(10, 40, 98, 90),
        ),
        UINode(
            id=2,
            parent=0,
            index=1,
            class_name="android.widget.Button",
            text="+",
            clickable=True,
            bounds_px=_BUTTON_BOUNDS,
        ),
    ]
    return Observation(
        step=step,
        screenshot=frame(counter, image_format),
        screen=SCREEN,
        ui=nodes,
        last_action_error=error,
        backend=BACKEND,
    )


class Tracker:
    """Counts envs that are alive (reset, not yet closed) across episodes.

    With ``hold_until``, a reset waits until that many envs have been alive at once, so a
    test sees the runner reach its concurrency bound instead of finishing episodes early.
    """

    def __init__(self, hold_until: int = 0) -> None:
        self.created = self.active = self.peak = self.closed = 0
        self.hold_until = hold_until
        self._changed = asyncio.Condition()

    async def enter(self) -> None:
        """An env was reset."""
        self.active += 1
        self.peak = max(self.peak, self.active)
        async with self._changed:
            self._changed.notify_all()
            await self._changed.wait_for(lambda: self.peak >= self.hold_until)

    def leave(self) -> None:
        """An env was closed."""
        self.active -= 1
        self.closed += 1


class CounterEnv:
    """The counter world; the knobs make it fail (EnvError) or hang at a chosen step index."""

    def __init__(
        self,
        *,
        fail_on_step: int | None = None,
        hang_on_step: int | None = None,
        fail_on_reset: bool = False,
        image_format: Literal["png", "jpeg"] = "png",
        tracker: Tracker | None = None,
    ) -> None:
        self.fail_on_step, self.hang_on_step = fail_on_step, hang_on_step
        self.fail_on_reset, self.image_format, self.tracker = fail_on_reset, image_format, tracker
        self.hanging = asyncio.Event()
        """Set when a step starts hanging (tests wait on it before cancelling)."""
        self.counter = self.target = self.steps = self.close_calls = 0
        self.actions: list[Action] = []
        self._closed = self._reset = False

    def _check_open(self) -> None:
        if self._closed:
            raise EnvUsageError("the toy env is closed")

    def _check_ready(self) -> None:
        self._check_open()
        if not self._reset:
            raise EnvUsageError("no episode: call reset(task) first")

    async def reset(self, task: TaskInstance) -> Observation:
        """Counter to 0, target from the task."""
        self._check_open()
        if self.fail_on_reset:
            raise EnvError("toy env could not start")
        if self.tracker is not None:
            await self.tracker.enter()
        self.counter, self.steps, self.target = 0, 0, int(str(task.params["target"]))
        self._reset = True
        return self._observe(None)

    async def step(self, action: Action) -> StepResult:
        """Apply ``action``; tap "+" to count, finish or answer to end."""
        self._check_ready()
        index, self.steps = self.steps, self.steps + 1
        if index == self.fail_on_step:
            raise EnvError(f"toy env crashed on step {index}")
        if index == self.hang_on_step:
            self.hanging.set()
            await asyncio.Event().wait()  # never set: only a timeout or a cancel ends this
        self.actions.append(action)
        error = self._apply(action)
        done = isinstance(action, (FinishAction, AnswerAction))
        return StepResult(
            observation=self._observe(error),
            executed=ExecutedAction(action=action),
            error=error,
            done=done,
        )

    async def verdict(self) -> Verdict:
        """Success when the counter equals the target."""
        self._check_ready()
        check = CheckResult(
            name="counter",
            expected=self.target,
            actual=self.counter,
            passed=self.counter == self.target,
        )
        return Verdict.from_checks([check])

    async def close(self) -> None:
        """Idempotent."""
        self.close_calls += 1
        if not self._closed and self.tracker is not None:
            self.tracker.leave()
        self._closed = True

    def _apply(self, action: Action) -> str | None:
        if not isinstance(action, TapAction):
            return None
        target = action.target
        if target.element is not None:
            if target.element > BUTTON:
                return f"no element {target.element} on screen"
            hit = target.element == BUTTON
        else:
            assert target.point is not None
            x, y = target.point.x * SCREEN.width_px, target.point.y * SCREEN.height_px
            left, top, right, bottom = _BUTTON_BOUNDS
            hit = left <= x <= right and top <= y <= bottom
        self.counter += int(hit)
        return None

    def _observe(self, error: str | None) -> Observation:
        return screen_observation(
            self.counter, step=self.steps, image_format=self.image_format, error=error
        )


class ScriptedPolicy:
    """Taps "+" ``taps`` times, then finishes (or answers the counter's value).

    ``invalid_at``: call indices that return an output without an action. ``raise_at``: the
    call index that raises ``error`` instead. ``seen`` keeps every observation acted on.
    """

    def __init__(
        self,
        taps: int = 3,
        *,
        invalid_at: Collection[int] = (),
        raise_at: int | None = None,
        error: BaseException | None = None,
        answer: bool = False,
        target: Target | None = None,
    ) -> None:
        self.taps, self.invalid_at, self.raise_at, self.answer = taps, invalid_at, raise_at, answer
        self.error = error if error is not None else PolicyError("toy policy endpoint is down")
        self.target = target or Target.node(BUTTON)
        self.seen: list[Observation] = []
        self.contexts: list[PolicyContext] = []
        self._tapped = 0

    @property
    def name(self) -> str:
        """The spec string of this policy."""
        return "toy-scripted"

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start over."""
        self.seen.clear()
        self.contexts.append(context)
        self._tapped = 0

    async def act(self, observation: Observation) -> PolicyOutput:
        """The next scripted output."""
        call = len(self.seen)
        self.seen.append(observation)
        if call == self.raise_at:
            raise self.error
        if call in self.invalid_at:
            return PolicyOutput(action=None, raw_text="???", error="no action in '???'")
        if self._tapped < self.taps:
            self._tapped += 1
            return PolicyOutput(action=TapAction(target=self.target), thought="tap +")
        if self.answer:
            return PolicyOutput(action=AnswerAction(fields={"value": int(observation.ui[1].text)}))
        return PolicyOutput(action=FinishAction(), thought="done")
