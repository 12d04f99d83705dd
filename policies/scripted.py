"""The scripted policy: executes a plan by finding each step's node in the current UI tree.

It sees only what a phone also gives (the observation), so a plan written for the simulator
runs unchanged on a device whose screens match. When a step's node is not on screen it
scrolls the largest list to look for it, down and then, from the end, up, and gives up
(``finish`` with ``abort``) when the list stops moving at its top.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from bridge.actions import (
    Action,
    AnswerAction,
    AnswerValue,
    FinishAction,
    KeyAction,
    LongPressAction,
    OpenAppAction,
    Point,
    ScrollAction,
    TapAction,
    Target,
    TypeAction,
    WaitAction,
)
from bridge.plans import (
    AnswerStep,
    EachStep,
    FinishStep,
    KeyStep,
    LongPressStep,
    NoteStep,
    OpenAppStep,
    Plan,
    PlanStep,
    ScrollStep,
    Selector,
    SwitchStep,
    TapStep,
    TypeStep,
    WaitStep,
)
from bridge.schema import Observation, PolicyContext, PolicyOutput, UINode

__all__ = ["PlanPolicy"]

_MAX_SCROLLS = 12


def _largest_scrollable(observation: Observation) -> UINode | None:
    scrollables = [n for n in observation.ui if n.scrollable and n.area_px > 0]
    return max(scrollables, key=lambda n: n.area_px, default=None)


def _signature(observation: Observation) -> tuple[tuple[str, tuple[int, int, int, int]], ...]:
    return tuple((n.text, n.bounds_px) for n in observation.ui)


class PlanPolicy:
    """A Policy that follows a fixed plan; ``plan_for`` builds one per episode if given."""

    def __init__(
        self,
        plan: Plan | None = None,
        plan_for: Callable[[str, PolicyContext], Plan] | None = None,
        name: str = "scripted",
    ) -> None:
        if (plan is None) == (plan_for is None):
            raise ValueError("give exactly one of plan or plan_for")
        self._fixed = plan
        self._plan_for = plan_for
        self._name = name
        self._plan: Plan = []
        self._index = 0
        self._scrolls = 0
        self._direction: Literal["down", "up"] = "down"
        self._last: tuple[object, ...] | None = None
        self._notes: dict[str, list[str]] = {}

    @property
    def name(self) -> str:
        """The policy spec."""
        return self._name

    async def reset(self, instruction: str, context: PolicyContext) -> None:
        """Start the plan from its first step."""
        if self._fixed is not None:
            self._plan = list(self._fixed)
        elif self._plan_for is not None:  # __init__ takes exactly one of the two
            self._plan = self._plan_for(instruction, context)
        self._index = 0
        self._scrolls = 0
        self._direction = "down"
        self._last = None
        self._notes = {}

    async def act(self, observation: Observation) -> PolicyOutput:
        """The next action of the plan for ``observation``."""
        while self._index < len(self._plan):
            step = self._plan[self._index]
            if isinstance(step, NoteStep):
                self._notes[step.key] = step.collect(observation.ui)
                self._index += 1
            elif isinstance(step, EachStep):  # unrolled in place over what the notes saw
                self._plan[self._index : self._index + 1] = step.expand(self._notes)
            elif isinstance(step, SwitchStep) and _already(step, observation):
                self._advance()  # the switch is as wanted: nothing to tap
            else:
                break
        if self._index >= len(self._plan):
            return PolicyOutput(action=FinishAction(status="success"), thought="plan complete")
        step = self._plan[self._index]
        action, thought = self._action(step, observation)
        return PolicyOutput(action=action, thought=thought)

    def _advance(self) -> None:
        self._index += 1
        self._scrolls = 0
        self._direction = "down"
        self._last = None

    def _action(self, step: PlanStep, obs: Observation) -> tuple[Action, str]:
        if isinstance(step, SwitchStep):  # not as wanted (act() passed it over otherwise)
            if step.on.find(obs.ui) is not None and step.state(obs.ui) is None:
                message = f"{step.on.model_dump(exclude_defaults=True)} holds no switch"
                return FinishAction(status="abort", message=message), message
            return self._on_node(TapStep(on=step.on, scroll=step.scroll), obs)
        if isinstance(step, TapStep | LongPressStep | TypeStep):
            return self._on_node(step, obs)
        self._advance()
        return self._simple(step), f"plan step {self._index}: {step.type}"

    def _simple(self, step: PlanStep) -> Action:
        """The action of a step that needs no node."""
        if isinstance(step, KeyStep):
            return KeyAction(key=step.key)
        if isinstance(step, OpenAppStep):
            return OpenAppAction(app=step.app)
        if isinstance(step, ScrollStep):
            return ScrollAction(direction=step.direction)
        if isinstance(step, WaitStep):
            return WaitAction(seconds=step.seconds)
        if isinstance(step, AnswerStep):
            return AnswerAction(fields=self._answer(step))
        if isinstance(step, FinishStep):
            return FinishAction(status=step.status)
        raise KeyError(type(step))  # notes and repeats are consumed in act()

    def _answer(self, step: AnswerStep) -> dict[str, AnswerValue]:
        """The step's fields, those it reads taken from the notes made on screen."""
        read = {name: recall.value(self._notes) for name, recall in step.read.items()}
        return {**step.fields, **read}

    def _on_node(
        self, step: TapStep | LongPressStep | TypeStep, obs: Observation
    ) -> tuple[Action, str]:
        if isinstance(step, TypeStep):
            if step.into is None:
                self._advance()
                return TypeAction(text=step.text, clear=step.clear, submit=step.submit), "type"
            selector = step.into
        else:
            selector = step.on
        node = selector.find(obs.ui)
        if node is None:
            return self._search(step, selector, obs)
        self._advance()
        target = Target.node(node.id)
        if isinstance(step, TypeStep):
            action: Action = TypeAction(
                text=step.text, target=target, clear=step.clear, submit=step.submit
            )
        elif isinstance(step, LongPressStep):
            action = LongPressAction(target=target)
        elif step.at is not None:
            action = TapAction(target=Target(point=_inside(node, step.at, obs)))
        else:
            action = TapAction(target=target)
        return action, f"{step.type} {selector.model_dump(exclude_defaults=True)}"

    def _search(
        self, step: TapStep | LongPressStep | TypeStep, wanted: Selector, obs: Observation
    ) -> tuple[Action, str]:
        scrollable = _largest_scrollable(obs)
        can_scroll = getattr(step, "scroll", True) and scrollable is not None
        signature = _signature(obs)
        stuck = self._last is not None and signature == self._last
        if stuck and self._direction == "down":  # the end of the list: look above too
            self._direction, stuck = "up", False
        if not can_scroll or stuck or self._scrolls >= _MAX_SCROLLS:
            message = f"could not find {wanted.model_dump(exclude_defaults=True)} on screen"
            return FinishAction(status="abort", message=message), message
        self._scrolls += 1
        self._last = signature
        assert scrollable is not None
        target = Target.node(scrollable.id)
        return ScrollAction(direction=self._direction, target=target), "scroll to find"


def _already(step: SwitchStep, obs: Observation) -> bool:
    """Whether the step's switch is on screen and already in the state it asks for."""
    return step.state(obs.ui) == step.to


def _inside(node: UINode, at: tuple[float, float], obs: Observation) -> Point:
    left, top, right, bottom = node.bounds_px
    x = (left + at[0] * (right - left - 1)) / obs.screen.width_px
    y = (top + at[1] * (bottom - top - 1)) / obs.screen.height_px
    return Point(x=min(max(x, 0.0), 1.0), y=min(max(y, 0.0), 1.0))
