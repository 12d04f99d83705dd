"""Carrying out a bridge Action on a simulated phone.

Spatial actions (tap, long press, swipe, scroll) go through the page runtime, so the
browser's own hit-testing and layout decide what was touched; everything else (keys, text,
launching an app) changes the state directly. Element targets resolve against the tree of
the observation the policy saw, and the result records what was really done.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.actions import Point, Target
from bridge.gestures import scroll_path
from bridge.schema import (
    Action,
    AnswerAction,
    DoubleTapAction,
    ExecutedAction,
    FinishAction,
    KeyAction,
    LongPressAction,
    Observation,
    OpenAppAction,
    ScrollAction,
    SwipeAction,
    TapAction,
    TypeAction,
    UINode,
    WaitAction,
)
from sim.instance import Instance
from sim.pages import PooledPage, SimProfile
from sim.phone import UnknownApp

__all__ = ["Outcome", "TargetError", "perform"]


class TargetError(ValueError):
    """A target the agent gave that cannot be resolved (an agent mistake, not a crash)."""


@dataclass
class Outcome:
    """What performing one action did."""

    executed: ExecutedAction
    error: str | None = None
    done: bool = False


def _resolve(
    target: Target, seen: Observation | None, profile: SimProfile
) -> tuple[tuple[float, float], UINode | None]:
    """Device-pixel point of ``target`` and the node it named, if any."""
    if target.point is not None:
        x = min(target.point.x * profile.width_px, profile.width_px - 0.5)
        y = min(target.point.y * profile.height_px, profile.height_px - 0.5)
        return (x, y), None
    assert target.element is not None
    node = seen.node(target.element) if seen is not None else None
    if node is None:
        size = len(seen.ui) if seen is not None else 0
        raise TargetError(
            f"element {target.element} is not in the UI tree of the last observation "
            f"(ids 0..{size - 1}); target a listed element or a point"
        )
    if node.area_px == 0:
        raise TargetError(f"element {target.element} has empty bounds {node.bounds_px}")
    return node.center_px, node


def _css(point_px: tuple[float, float], profile: SimProfile) -> list[float]:
    return [point_px[0] / profile.dpr, point_px[1] / profile.dpr]


def _describe(result: dict[str, Any]) -> str | None:
    if result.get("posted"):
        return None
    reason = result.get("reason") or "nothing happened"
    return f"no effect: {reason}"


async def _touch(
    pooled: PooledPage, call: str, target: Target, seen: Observation | None, profile: SimProfile
) -> tuple[ExecutedAction | None, tuple[float, float], UINode | None, dict[str, Any]]:
    point, node = _resolve(target, seen, profile)
    result = await pooled.page.evaluate(
        f"([x, y]) => window.__mgb.{call}(x, y)", _css(point, profile)
    )
    return None, point, node, result


def _scroll_area(
    action: ScrollAction, seen: Observation | None, profile: SimProfile
) -> tuple[float, float, float, float]:
    """The normalized box to scroll: the target, else the largest scrollable node."""
    node: UINode | None = None
    if action.target is not None and action.target.element is not None:
        _, node = _resolve(action.target, seen, profile)
    elif action.target is not None and action.target.point is not None:
        p = action.target.point
        half = 0.2
        return (
            max(0.0, p.x - half),
            max(0.0, p.y - half),
            min(1.0, p.x + half),
            min(1.0, p.y + half),
        )
    elif seen is not None:
        scrollables = [n for n in seen.ui if n.scrollable and n.area_px > 0]
        node = max(scrollables, key=lambda n: n.area_px, default=None)
    if node is None:
        return (0.0, 0.2, 1.0, 0.8)
    left, top, right, bottom = node.bounds_px
    return (
        left / profile.width_px,
        top / profile.height_px,
        min(right / profile.width_px, 1.0),
        min(bottom / profile.height_px, 1.0),
    )


async def _swipe(
    pooled: PooledPage, start: Point, end: Point, profile: SimProfile
) -> tuple[dict[str, Any], tuple[float, float], tuple[float, float]]:
    a = (start.x * profile.width_px, start.y * profile.height_px)
    b = (end.x * profile.width_px, end.y * profile.height_px)
    result = await pooled.page.evaluate(
        "([x1, y1, x2, y2]) => window.__mgb.swipe(x1, y1, x2, y2)",
        _css(a, profile) + _css(b, profile),
    )
    return result, a, b


async def perform(
    pooled: PooledPage,
    instance: Instance,
    action: Action,
    seen: Observation | None,
    profile: SimProfile,
) -> Outcome:
    """Do ``action`` on ``instance`` through ``pooled`` (which shows the instance)."""
    try:
        return await _perform(pooled, instance, action, seen, profile)
    except TargetError as exc:
        return Outcome(ExecutedAction(action=action), error=str(exc))


async def _perform(
    pooled: PooledPage,
    instance: Instance,
    action: Action,
    seen: Observation | None,
    profile: SimProfile,
) -> Outcome:
    phone, state = instance.phone, instance.state
    if isinstance(action, TapAction | DoubleTapAction | LongPressAction):
        call = {"tap": "tap", "double_tap": "doubleTap", "long_press": "longPress"}[action.type]
        _, point, node, result = await _touch(pooled, call, action.target, seen, profile)
        executed = ExecutedAction(
            action=action, point_px=point, element=node, backend_command=f"runtime.{call}"
        )
        return Outcome(executed, error=_describe(result))
    if isinstance(action, SwipeAction):
        result, a, b = await _swipe(pooled, action.start, action.end, profile)
        return Outcome(
            ExecutedAction(
                action=action, point_px=a, end_point_px=b, backend_command="runtime.swipe"
            ),
            error=_describe(result),
        )
    if isinstance(action, ScrollAction):
        start, end = scroll_path(
            action.direction, _scroll_area(action, seen, profile), action.distance
        )
        result, a, b = await _swipe(pooled, start, end, profile)
        return Outcome(
            ExecutedAction(
                action=action, point_px=a, end_point_px=b, backend_command="runtime.swipe"
            ),
            error=_describe(result),
        )
    if isinstance(action, TypeAction):
        return await _type(pooled, instance, action, seen, profile)
    if isinstance(action, KeyAction):
        error = phone.key(state, action.key)
        instance.changed()
        return Outcome(ExecutedAction(action=action, backend_command=f"key {action.key}"), error)
    if isinstance(action, OpenAppAction):
        try:
            phone.launch(state, action.app)
        except UnknownApp as exc:
            return Outcome(ExecutedAction(action=action), error=str(exc))
        instance.changed()
        return Outcome(ExecutedAction(action=action, backend_command=f"launch {action.app}"))
    if isinstance(action, WaitAction):
        return Outcome(ExecutedAction(action=action, backend_command="wait"))
    if isinstance(action, AnswerAction | FinishAction):
        return Outcome(ExecutedAction(action=action), done=True)
    raise TypeError(f"unsupported action {action!r}")


async def _type(
    pooled: PooledPage,
    instance: Instance,
    action: TypeAction,
    seen: Observation | None,
    profile: SimProfile,
) -> Outcome:
    point: tuple[float, float] | None = None
    node: UINode | None = None
    if action.target is not None:
        _, point, node, _ = await _touch(pooled, "tap", action.target, seen, profile)
    error = instance.phone.type_text(instance.state, action.text, action.clear)
    if error is None and action.submit:
        error = instance.phone.key(instance.state, "enter")
    instance.changed()
    executed = ExecutedAction(
        action=action, point_px=point, element=node, backend_command="ime.commit_text"
    )
    return Outcome(executed, error=error)
