"""Carrying out an Action in any world, written once.

Every world — the simulator, the virtual phone, a phone — implements only the
:class:`Actuator` primitives: a tap, a double tap or a press of some duration at a device
pixel, a swipe along a pixel path over a duration, a key, typed text, launching an app,
reading the current tree and keyboard, letting time pass. Everything else is here, the same
for all of them:

* targets resolve against the observation the policy saw: a normalized point becomes the
  device pixel under it (:func:`bridge.coords.normalized_to_pixel` on that observation's
  screen), an element its bounds' centre (integer pixels in every world);
* a ``scroll`` becomes a drag inside the scrolled area (the largest scrollable node when no
  target is given) that holds still before lifting, so it never flings and moves the
  content by the finger's travel in every world;
* typing needs a focused field: the tree and keyboard of the observation the policy saw (or,
  after tapping the target, of the screen now) must show one;
* ``open_app`` takes the app ids of the catalogue (``bridge/apps.json``);
* the wording of every step error, from the typed results of the primitives only.

A step error is what a phone can tell the agent: a target that does not exist, a point off
the screen, nothing to type into, an app the phone does not have. What only a simulator
knows (the tap hit nothing, the list is already at its end) goes into the notes of the
executed action, which people read in replays and policies never see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, get_args

from bridge.actions import KeyName, Point, Target
from bridge.app_catalog import app_catalog
from bridge.coords import IntPoint, Size, normalized_to_pixel, pixel_to_normalized
from bridge.errors import CoordinateError, TargetError
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

__all__ = [
    "ALL_KEYS",
    "NOT_FOCUSED",
    "SCROLL_HOLD_MS",
    "SCROLL_MOVE_MS",
    "Actuator",
    "FocusState",
    "Launch",
    "LaunchStatus",
    "Outcome",
    "Performed",
    "Placement",
    "key_unavailable",
    "perform",
    "placement",
    "resolve",
    "scroll_area",
]

SCROLL_MOVE_MS = 300
"""How long a scroll's finger takes to travel."""
SCROLL_HOLD_MS = 300
"""How long it then holds still before lifting: the release speed is zero, so no world
flings (Android's velocity tracker forgets a pointer still for 40 ms)."""

ALL_KEYS: frozenset[KeyName] = frozenset(get_args(KeyName))
"""Every key an action may name; a phone has them all."""


def key_unavailable(key: KeyName, keys: frozenset[KeyName]) -> str:
    """The step error for a key this world does not have (said the same in every world)."""
    return f"the {key} key is not available here; this world has: {', '.join(sorted(keys))}"


NOT_FOCUSED = "no text field is focused: tap a text field (or give `type` a target) first"
"""The step error for typing with nothing to type into."""


@dataclass(frozen=True)
class Performed:
    """What a primitive did: the world's own command line, and notes for people."""

    command: str | None = None
    notes: Mapping[str, str] = field(default_factory=dict)
    """What only this world knows (a simulator's hit test: ``effect``, ``hit``); recorded
    in the executed action, never shown to a policy."""


class LaunchStatus(str, Enum):
    """How launching an app of the catalogue (``bridge/apps.json``) went."""

    LAUNCHED = "launched"
    NOT_INSTALLED = "not_installed"


@dataclass(frozen=True)
class Launch:
    """The typed result of launching an app."""

    status: LaunchStatus
    command: str | None = None
    package: str | None = None
    """The package the world looked for (None when it has no package for the app)."""


@dataclass(frozen=True)
class FocusState:
    """What the screen says about text input now: the tree (None when it cannot be read,
    e.g. a secure window) and whether the soft keyboard is shown."""

    nodes: Sequence[UINode] | None
    keyboard_visible: bool

    def can_type(self) -> bool:
        """Whether typed text has somewhere to go: a focused editable node or a keyboard
        (or a tree nobody can read, which cannot prove there is none)."""
        if self.nodes is None or self.keyboard_visible:
            return True
        return any(node.focused and node.editable for node in self.nodes)


class Actuator(Protocol):
    """The primitives a world implements (device pixels of the screen as displayed)."""

    async def tap(self, at: IntPoint) -> Performed:
        """A tap."""
        ...

    async def double_tap(self, at: IntPoint) -> Performed:
        """Two taps within the double-tap timeout."""
        ...

    async def press(self, at: IntPoint, duration_ms: int) -> Performed:
        """A touch held in place for ``duration_ms`` (a long press if long enough)."""
        ...

    async def swipe(self, path: Sequence[IntPoint], duration_ms: int) -> Performed:
        """A finger along ``path``, its points evenly spaced over ``duration_ms``."""
        ...

    async def key(self, key: KeyName) -> Performed:
        """A hardware or system key (one of :attr:`keys`)."""
        ...

    @property
    def keys(self) -> frozenset[KeyName]:
        """The keys this world has (:data:`ALL_KEYS` on a phone)."""
        ...

    async def type_text(self, text: str, *, clear: bool) -> Performed:
        """Commit ``text`` to the focused field (emptied first when ``clear``)."""
        ...

    async def launch(self, app: str) -> Launch:
        """Bring app id ``app`` (an id of the catalogue) to the front."""
        ...

    async def focus(self) -> FocusState:
        """The tree and keyboard now (after a tap that should have focused a field)."""
        ...

    async def wait(self, seconds: float) -> Performed:
        """Let ``seconds`` pass."""
        ...


@dataclass
class Outcome:
    """What performing one action did; ``touched`` when the world was acted on."""

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
        CoordinateError: an element's centre outside the screen.
    """
    frame = _frame(seen)
    if target.point is not None:
        return normalized_to_pixel(target.point.x, target.point.y, frame), None
    assert target.element is not None
    node = seen.node(target.element)
    if node is None:
        ids = f"ids 0..{len(seen.ui) - 1}" if seen.ui else "the tree is empty"
        raise TargetError(
            f"element {target.element} is not in the UI tree of the last observation "
            f"({ids}); target a listed element or a point"
        )
    if node.area_px == 0:
        raise TargetError(f"element {target.element} has empty bounds {node.bounds_px}")
    left, top, right, bottom = node.bounds_px
    centre = IntPoint((left + right) // 2, (top + bottom) // 2)
    try:
        pixel_to_normalized(centre.x, centre.y, frame)
    except CoordinateError as exc:
        raise CoordinateError(
            f"element {target.element}'s centre {tuple(centre)} is off the {frame} screen; "
            "scroll it into view first"
        ) from exc
    return centre, node


def scroll_area(action: ScrollAction, seen: Observation) -> tuple[float, float, float, float]:
    """The normalized box to scroll: around the target point, the target element, else the
    largest scrollable node of ``seen`` (else the middle of the screen)."""
    node: UINode | None = None
    if action.target is not None and action.target.point is not None:
        p, half = action.target.point, 0.2
        return (max(0.0, p.x - half), max(0.0, p.y - half), min(1.0, p.x + half),
                min(1.0, p.y + half))  # fmt: skip
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


def _floats(point: IntPoint | None) -> tuple[float, float] | None:
    return None if point is None else (float(point.x), float(point.y))


def _executed(
    action: Action,
    done: Sequence[Performed] = (),
    *,
    point: IntPoint | None = None,
    end: IntPoint | None = None,
    node: UINode | None = None,
) -> ExecutedAction:
    commands = [p.command for p in done if p.command]
    notes: dict[str, str] = {}
    for performed in done:
        notes.update(performed.notes)
    return ExecutedAction(
        action=action,
        point_px=_floats(point),
        end_point_px=_floats(end),
        element=node,
        backend_command="; ".join(commands) or None,
        notes=notes,
    )


async def perform(world: Actuator, action: Action, seen: Observation) -> Outcome:
    """Do ``action`` in ``world``, its targets read on ``seen`` (what the policy saw).

    Agent mistakes come back as ``Outcome.error`` (nothing is done); failures of the world
    itself propagate as the world's :class:`~bridge.errors.EnvError`.
    """
    try:
        return await _perform(world, action, seen)
    except (TargetError, CoordinateError) as exc:
        return Outcome(_executed(action), error=str(exc))


async def _perform(world: Actuator, action: Action, seen: Observation) -> Outcome:
    if isinstance(action, TapAction | DoubleTapAction | LongPressAction):
        point, node = resolve(action.target, seen)
        if isinstance(action, TapAction):
            done = await world.tap(point)
        elif isinstance(action, DoubleTapAction):
            done = await world.double_tap(point)
        else:
            done = await world.press(point, action.duration_ms)
        return Outcome(_executed(action, [done], point=point, node=node), touched=True)
    if isinstance(action, SwipeAction | ScrollAction):
        return await _swipe(world, action, seen)
    if isinstance(action, TypeAction):
        return await _type(world, action, seen)
    if isinstance(action, KeyAction):
        if action.key not in world.keys:
            return Outcome(_executed(action), error=key_unavailable(action.key, world.keys))
        return Outcome(_executed(action, [await world.key(action.key)]), touched=True)
    if isinstance(action, OpenAppAction):
        return await _open_app(world, action)
    if isinstance(action, WaitAction):
        return Outcome(_executed(action, [await world.wait(action.seconds)]), touched=True)
    if isinstance(action, AnswerAction | FinishAction):
        return Outcome(_executed(action), done=True)
    raise TypeError(f"unsupported action {action!r}")


def _stroke(action: SwipeAction | ScrollAction, seen: Observation) -> tuple[IntPoint, IntPoint]:
    """Where a swipe or scroll starts and ends, in device pixels of ``seen``."""
    if isinstance(action, SwipeAction):
        return _px(action.start, seen), _px(action.end, seen)
    try:
        start, end = scroll_path(action.direction, scroll_area(action, seen), action.distance)
    except ValueError as exc:  # an area with nothing on screen to scroll
        raise TargetError(f"cannot scroll there: {exc}") from exc
    return _px(start, seen), _px(end, seen)


async def _swipe(world: Actuator, action: SwipeAction | ScrollAction, seen: Observation) -> Outcome:
    a, b = _stroke(action, seen)
    if isinstance(action, SwipeAction):
        done = await world.swipe([a, b], action.duration_ms)
    else:
        done = await world.swipe([a, b, b], SCROLL_MOVE_MS + SCROLL_HOLD_MS)
    return Outcome(_executed(action, [done], point=a, end=b), touched=True)


@dataclass(frozen=True)
class Placement:
    """Where an action will land on the screen of the observation it was chosen on: what
    :func:`perform` would touch, computed without acting (the console draws it first)."""

    point: IntPoint | None = None
    end: IntPoint | None = None
    node: UINode | None = None


def placement(action: Action, seen: Observation) -> Placement:
    """The pixels (and node) ``action`` would touch on ``seen``; empty for actions that
    touch no point (keys, apps, waits, answers).

    Raises:
        TargetError: the target is not on ``seen`` (the step would fail the same way).
        CoordinateError: an element's centre off the screen.
    """
    if isinstance(action, TapAction | DoubleTapAction | LongPressAction):
        point, node = resolve(action.target, seen)
        return Placement(point, None, node)
    if isinstance(action, SwipeAction | ScrollAction):
        return Placement(*_stroke(action, seen))
    if isinstance(action, TypeAction) and action.target is not None:
        point, node = resolve(action.target, seen)
        return Placement(point, None, node)
    return Placement()


async def _type(world: Actuator, action: TypeAction, seen: Observation) -> Outcome:
    done: list[Performed] = []
    point: IntPoint | None = None
    node: UINode | None = None
    if action.target is not None:
        point, node = resolve(action.target, seen)
        done.append(await world.tap(point))
        focus = await world.focus()
    else:
        readable = seen.ui_status in (UIStatus.OK, UIStatus.SECURE_WINDOW)
        focus = FocusState(seen.ui if readable else None, seen.keyboard_visible)
    if not focus.can_type():
        executed = _executed(action, done, point=point, node=node)
        return Outcome(executed, error=NOT_FOCUSED, touched=bool(done))
    done.append(await world.type_text(action.text, clear=action.clear))
    if action.submit:
        done.append(await world.key("enter"))
    return Outcome(_executed(action, done, point=point, node=node), touched=True)


async def _open_app(world: Actuator, action: OpenAppAction) -> Outcome:
    known = [app for app in app_catalog().ids() if app != "launcher"]
    if action.app not in known:
        error = f"no app {action.app!r}; open_app takes one of: {', '.join(known)}"
        return Outcome(_executed(action), error=error)
    launch = await world.launch(action.app)
    executed = _executed(action, [Performed(launch.command)])
    if launch.status is LaunchStatus.NOT_INSTALLED:
        package = f" ({launch.package})" if launch.package else ""
        error = f"app {action.app!r}{package} is not installed on this phone"
        return Outcome(executed, error=error)
    return Outcome(executed, touched=True)
