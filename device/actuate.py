"""Carrying out a bridge Action on a phone, as the simulator does (``sim/actuate.py``).

Targets resolve against the observation the policy saw: a normalized point becomes the
device pixel under it (:func:`bridge.coords.normalized_to_pixel` on the screen size of that
observation, which already accounts for rotation), an element its bounds' centre. A target
that cannot be resolved (an unknown element id, a point off the screen) is an agent mistake:
the step comes back with an error and nothing is sent to the phone. Infrastructure failures
raise :class:`~device.errors.DeviceError` instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bridge.actions import Point, Target
from bridge.coords import IntPoint, Size, normalized_to_pixel, pixel_to_normalized
from bridge.errors import CoordinateError
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
    UIStatus,
    WaitAction,
)
from device.driver import AndroidDriver
from device.profiles import DeviceProfile

__all__ = ["NOT_FOCUSED", "SCROLL_MS", "Outcome", "TargetError", "perform", "resolve"]

SCROLL_MS = 500
"""Duration of a scroll's swipe: slow enough that the list does not fling far past it."""

NOT_FOCUSED = "no text field is focused: tap a text field (or give `type` a target) first"
"""The step error for typing with nothing to type into (the simulator's wording)."""


class TargetError(ValueError):
    """A target the agent gave that cannot be resolved (an agent mistake, not a crash)."""


@dataclass
class Outcome:
    """What performing one action did; ``touched`` when the phone was acted on."""

    executed: ExecutedAction
    error: str | None = None
    done: bool = False
    touched: bool = False


def _frame(seen: Observation) -> Size:
    return Size(seen.screen.width_px, seen.screen.height_px)


def resolve(target: Target, seen: Observation) -> tuple[IntPoint, UINode | None]:
    """The device pixel a target means on the screen of ``seen``, and its node if any.

    Raises:
        TargetError: an element id not in ``seen.ui``, or with empty bounds.
        CoordinateError: a point or element centre outside the screen.
    """
    frame = _frame(seen)
    if target.point is not None:
        return normalized_to_pixel(target.point.x, target.point.y, frame), None
    assert target.element is not None
    node = seen.node(target.element)
    if node is None:
        raise TargetError(
            f"element {target.element} is not in the UI tree of the last observation "
            f"(ids 0..{len(seen.ui) - 1}); target a listed element or a point"
        )
    if node.area_px == 0:
        raise TargetError(f"element {target.element} has empty bounds {node.bounds_px}")
    left, top, right, bottom = node.bounds_px
    centre = IntPoint((left + right) // 2, (top + bottom) // 2)
    try:
        pixel_to_normalized(centre.x, centre.y, frame)
    except CoordinateError as exc:
        raise CoordinateError(
            f"element {target.element}'s centre {tuple(centre)} is off the {frame} screen "
            f"({exc}); scroll it into view first"
        ) from exc
    return centre, node


def _scroll_area(action: ScrollAction, seen: Observation) -> tuple[float, float, float, float]:
    """The normalized box to scroll: the target, else the largest scrollable node."""
    node: UINode | None = None
    if action.target is not None and action.target.point is not None:
        p, half = action.target.point, 0.2
        return (
            max(0.0, p.x - half),
            max(0.0, p.y - half),
            min(1.0, p.x + half),
            min(1.0, p.y + half),
        )
    if action.target is not None:
        _, node = resolve(action.target, seen)
    else:
        scrollables = [n for n in seen.ui if n.scrollable and n.area_px > 0]
        node = max(scrollables, key=lambda n: n.area_px, default=None)
    if node is None:
        return (0.0, 0.2, 1.0, 0.8)
    frame = _frame(seen)
    left, top, right, bottom = node.bounds_px
    box = (left / frame.width, top / frame.height, right / frame.width, bottom / frame.height)
    return (max(0.0, box[0]), max(0.0, box[1]), min(1.0, box[2]), min(1.0, box[3]))


def _px(point: Point, seen: Observation) -> IntPoint:
    return normalized_to_pixel(point.x, point.y, _frame(seen))


def _floats(point: IntPoint) -> tuple[float, float]:
    return (float(point.x), float(point.y))


async def perform(
    driver: AndroidDriver, action: Action, seen: Observation, profile: DeviceProfile
) -> Outcome:
    """Do ``action`` on the phone; agent mistakes come back as ``Outcome.error``."""
    try:
        return await _perform(driver, action, seen, profile)
    except (TargetError, CoordinateError) as exc:
        return Outcome(ExecutedAction(action=action), error=f"refused: {exc}")


async def _perform(
    driver: AndroidDriver, action: Action, seen: Observation, profile: DeviceProfile
) -> Outcome:
    if isinstance(action, TapAction | DoubleTapAction | LongPressAction):
        return await _touch(driver, action, seen)
    if isinstance(action, SwipeAction | ScrollAction):
        return await _swipe(driver, action, seen)
    if isinstance(action, TypeAction):
        return await _type(driver, action, seen)
    if isinstance(action, KeyAction):
        command = await driver.key(action.key)
        return Outcome(ExecutedAction(action=action, backend_command=command), touched=True)
    if isinstance(action, OpenAppAction):
        return await _open_app(driver, action, profile)
    if isinstance(action, WaitAction):
        await asyncio.sleep(action.seconds)  # the action itself is "let time pass"
        return Outcome(ExecutedAction(action=action, backend_command="wait"), touched=True)
    if isinstance(action, AnswerAction | FinishAction):
        return Outcome(ExecutedAction(action=action), done=True)
    raise TypeError(f"unsupported action {action!r}")


async def _touch(
    driver: AndroidDriver, action: TapAction | DoubleTapAction | LongPressAction, seen: Observation
) -> Outcome:
    point, node = resolve(action.target, seen)
    if isinstance(action, TapAction):
        command = await driver.tap(point.x, point.y)
    elif isinstance(action, DoubleTapAction):
        command = await driver.double_tap(point.x, point.y)
    else:
        command = await driver.long_press(point.x, point.y, action.duration_ms)
    executed = ExecutedAction(
        action=action, point_px=_floats(point), element=node, backend_command=command
    )
    return Outcome(executed, touched=True)


async def _swipe(
    driver: AndroidDriver, action: SwipeAction | ScrollAction, seen: Observation
) -> Outcome:
    if isinstance(action, SwipeAction):
        start, end, duration = action.start, action.end, action.duration_ms
    else:
        area = _scroll_area(action, seen)
        try:
            start, end = scroll_path(action.direction, area, action.distance)
        except ValueError as exc:  # an element with no on-screen area to scroll
            raise TargetError(f"cannot scroll there: {exc}") from exc
        duration = SCROLL_MS
    a, b = _px(start, seen), _px(end, seen)
    command = await driver.swipe(a.x, a.y, b.x, b.y, duration)
    executed = ExecutedAction(
        action=action, point_px=_floats(a), end_point_px=_floats(b), backend_command=command
    )
    return Outcome(executed, touched=True)


def _has_focused_field(nodes: list[UINode]) -> bool:
    return any(node.focused and node.editable for node in nodes)


async def _type(driver: AndroidDriver, action: TypeAction, seen: Observation) -> Outcome:
    commands: list[str] = []
    point: IntPoint | None = None
    node: UINode | None = None
    nodes, tree_ok = seen.ui, seen.ui_status in (UIStatus.OK, UIStatus.SECURE_WINDOW)
    if action.target is not None:
        point, node = resolve(action.target, seen)
        commands.append(await driver.tap(point.x, point.y))
        await driver.settle()
        dump = await driver.hierarchy()
        nodes, tree_ok = (dump.tree.nodes if dump.tree else []), dump.tree is not None
    executed = ExecutedAction(
        action=action,
        point_px=_floats(point) if point else None,
        element=node,
        backend_command="; ".join(commands) or None,
    )
    if tree_ok and not _has_focused_field(nodes) and not await driver.keyboard_visible():
        return Outcome(executed, error=NOT_FOCUSED, touched=bool(commands))
    if action.clear:
        commands.append(await driver.clear_text())
    commands.append(await driver.type_text(action.text))
    if action.submit:
        commands.append(await driver.key("enter"))
    executed = executed.model_copy(update={"backend_command": "; ".join(commands)})
    return Outcome(executed, touched=True)


async def _open_app(
    driver: AndroidDriver, action: OpenAppAction, profile: DeviceProfile
) -> Outcome:
    package = profile.package(action.app)
    if package is None:
        known = ", ".join(sorted(profile.apps))
        error = f"no app {action.app!r} on this phone (profile {profile.name}); known: {known}"
        return Outcome(ExecutedAction(action=action), error=error)
    if not await driver.installed(package):
        error = f"app {action.app!r} ({package}) is not installed on this phone"
        return Outcome(ExecutedAction(action=action), error=error)
    command = await driver.start_app(package)
    return Outcome(ExecutedAction(action=action, backend_command=command), touched=True)
