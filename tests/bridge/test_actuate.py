"""The one actuation path over a recording world: what reaches the primitives, what a
policy is told, and what a stroke is on Android."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bridge.actions import KeyName
from bridge.actuate import (
    ALL_KEYS,
    NOT_FOCUSED,
    SCROLL_HOLD_MS,
    SCROLL_MOVE_MS,
    FocusState,
    Launch,
    LaunchStatus,
    Performed,
    perform,
)
from bridge.coords import IntPoint
from bridge.gestures import classify_stroke
from bridge.schema import (
    BackendInfo,
    KeyAction,
    LongPressAction,
    Observation,
    OpenAppAction,
    Point,
    ScreenSpec,
    ScrollAction,
    SwipeAction,
    TapAction,
    Target,
    TypeAction,
    UINode,
)


class Recorder:
    """An in-memory world that records every primitive call."""

    def __init__(
        self,
        *,
        installed: bool = True,
        focused_after_tap: bool = True,
        keys: frozenset[KeyName] = ALL_KEYS,
    ) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.installed = installed
        self.focused_after_tap = focused_after_tap
        self.keys = keys

    async def tap(self, at: IntPoint) -> Performed:
        self.calls.append(("tap", at))
        return Performed(f"tap {at.x} {at.y}", {"hit": "x"})

    async def double_tap(self, at: IntPoint) -> Performed:
        self.calls.append(("double_tap", at))
        return Performed("double")

    async def press(self, at: IntPoint, duration_ms: int) -> Performed:
        self.calls.append(("press", at, duration_ms))
        return Performed("press")

    async def swipe(self, path: Sequence[IntPoint], duration_ms: int) -> Performed:
        self.calls.append(("swipe", tuple(path), duration_ms))
        return Performed("swipe")

    async def key(self, key: KeyName) -> Performed:
        self.calls.append(("key", key))
        return Performed(f"key {key}")

    async def type_text(self, text: str, *, clear: bool) -> Performed:
        self.calls.append(("type", text, clear))
        return Performed("type")

    async def launch(self, app: str) -> Launch:
        self.calls.append(("launch", app))
        if not self.installed:
            return Launch(LaunchStatus.NOT_INSTALLED, package="com.example.cam")
        return Launch(LaunchStatus.LAUNCHED, command=f"launch {app}")

    async def focus(self) -> FocusState:
        field = UINode(id=0, editable=True, focused=self.focused_after_tap, bounds_px=(0, 0, 9, 9))
        return FocusState([field], keyboard_visible=False)

    async def wait(self, seconds: float) -> Performed:
        self.calls.append(("wait", seconds))
        return Performed("wait")


def _seen(*nodes: UINode, keyboard: bool = False) -> Observation:
    return Observation(
        step=0,
        screen=ScreenSpec(width_px=1000, height_px=2000),
        ui=list(nodes),
        keyboard_visible=keyboard,
        backend=BackendInfo(kind="sim"),
    )


LIST = UINode(id=0, scrollable=True, bounds_px=(0, 200, 1000, 1800))
OFF = UINode(id=1, parent=0, clickable=True, bounds_px=(0, 1990, 1000, 2400))


@pytest.mark.asyncio
async def test_points_become_integer_pixels_and_elements_their_centres() -> None:
    world = Recorder()
    out = await perform(world, TapAction(target=Target.at(0.5, 0.25)), _seen(LIST))
    assert world.calls == [("tap", IntPoint(500, 500))] and out.error is None
    assert out.executed.point_px == (500.0, 500.0) and out.executed.notes == {"hit": "x"}
    await perform(world, TapAction(target=Target.node(0)), _seen(LIST))
    assert world.calls[-1] == ("tap", IntPoint(500, 1000))


@pytest.mark.asyncio
async def test_agent_mistakes_reach_no_primitive_and_are_worded_once() -> None:
    world = Recorder()
    missing = await perform(world, TapAction(target=Target.node(7)), _seen(LIST))
    assert missing.error == (
        "element 7 is not in the UI tree of the last observation (ids 0..0); "
        "target a listed element or a point"
    )
    off = await perform(world, TapAction(target=Target.node(1)), _seen(LIST, OFF))
    assert off.error is not None and "is off the 1000x2000 screen" in off.error
    typed = await perform(world, TypeAction(text="hi"), _seen(LIST))
    assert typed.error == NOT_FOCUSED
    unknown = await perform(world, OpenAppAction(app="kamera"), _seen(LIST))
    assert unknown.error is not None and unknown.error.startswith("no app 'kamera'")
    assert world.calls == []


@pytest.mark.asyncio
async def test_typing_checks_focus_where_the_text_would_go() -> None:
    world = Recorder()
    shown = await perform(world, TypeAction(text="hi", submit=True), _seen(LIST, keyboard=True))
    assert shown.error is None
    assert world.calls == [("type", "hi", False), ("key", "enter")]
    blind = Recorder(focused_after_tap=False)
    field = UINode(id=1, editable=True, bounds_px=(0, 300, 1000, 400))
    out = await perform(blind, TypeAction(text="hi", target=Target.node(1)), _seen(LIST, field))
    assert out.error == NOT_FOCUSED and blind.calls == [("tap", IntPoint(500, 350))]
    assert out.touched  # the tap happened: the screen may have changed


@pytest.mark.asyncio
async def test_a_scroll_is_a_drag_that_holds_still_before_lifting() -> None:
    world = Recorder()
    await perform(world, ScrollAction(direction="down"), _seen(LIST))
    kind, path, duration = world.calls[0]
    assert kind == "swipe" and duration == SCROLL_MOVE_MS + SCROLL_HOLD_MS
    assert isinstance(path, tuple) and path[1] == path[2] and path[0].y > path[1].y
    points = [(p.x, p.y) for p in path]
    assert classify_stroke(points, duration, density_dpi=440).kind == "drag"


@pytest.mark.asyncio
async def test_an_app_the_world_lacks_is_a_step_error() -> None:
    out = await perform(Recorder(installed=False), OpenAppAction(app="camera"), _seen(LIST))
    assert out.error == "app 'camera' (com.example.cam) is not installed on this phone"


@pytest.mark.asyncio
async def test_a_key_the_world_lacks_is_a_step_error_that_touches_nothing() -> None:
    world = Recorder(keys=frozenset({"back", "home"}))
    out = await perform(world, KeyAction(key="volume_up"), _seen(LIST))
    assert out.error == "the volume_up key is not available here; this world has: back, home"
    assert world.calls == [] and not out.touched
    assert (await perform(world, KeyAction(key="back"), _seen(LIST))).error is None
    assert world.calls == [("key", "back")]


@pytest.mark.asyncio
async def test_presses_and_swipes_keep_their_durations() -> None:
    world = Recorder()
    press = LongPressAction(target=Target.at(0.1, 0.1), duration_ms=200)
    await perform(world, press, _seen(LIST))
    swipe = SwipeAction(start=Point(x=0.5, y=0.8), end=Point(x=0.5, y=0.2), duration_ms=900)
    await perform(world, swipe, _seen(LIST))
    assert world.calls == [
        ("press", IntPoint(100, 200), 200),
        ("swipe", (IntPoint(500, 1600), IntPoint(500, 400)), 900),
    ]


@pytest.mark.parametrize(
    ("path", "duration_ms", "timeout_ms", "kind"),
    [
        ([(100, 100)], 200, 400, "tap"),
        ([(100, 100)], 600, 400, "long_press"),
        ([(100, 100)], 600, 1000, "tap"),  # the user chose a longer timeout
        ([(100, 100), (110, 105)], 600, 400, "long_press"),  # inside the 8 dp slop
        ([(500, 1600), (500, 1000)], 120, 400, "fling"),
        ([(500, 1600), (500, 1000)], 9000, 400, "drag"),  # 67 px/s < 137.5 px/s at 440 dpi
        ([(500, 1600), (500, 1000), (500, 1000)], 600, 400, "drag"),  # held before lifting
    ],
)
def test_strokes_are_classified_as_android_does(
    path: list[tuple[int, int]], duration_ms: int, timeout_ms: int, kind: str
) -> None:
    stroke = classify_stroke(path, duration_ms, density_dpi=440, long_press_timeout_ms=timeout_ms)
    assert stroke.kind == kind
