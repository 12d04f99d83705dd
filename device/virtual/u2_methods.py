"""The JSON-RPC methods of the virtual phone's uiautomator2 server, over a VirtualPhone.

Each method takes the positional params uiautomator2 3.7.1 sends (protocols.md §2.4) and
returns a JSON-able value (pydantic models included). What the jar would throw is raised as
:class:`~device.virtual.u2_selectors.JavaException`; malformed params as :class:`InvalidParams`.
Gestures follow Android's input thresholds: a touch that moves less than the touch slop (8 dp)
is a tap, or a long press when held for the long-press timeout (400 ms). Each gesture call
returns only after the time androidx.test.uiautomator's InteractionController takes to inject
it (protocols.md §2.4.1): 5 ms per swipe step, 100 ms for a click, the given duration for a timed
click, 1.5 × the long-press timeout for a long click or before a drag moves; so its speed, and
with it what the screen makes of it (:func:`bridge.gestures.classify_stroke`), is the real one.
"""

from __future__ import annotations

import asyncio
import base64
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from bridge.gestures import TOUCH_SLOP_DP
from bridge.schema import UINode
from bridge.uitree import to_xml
from device.virtual.errors import InvalidParams, JavaException, ServerStopped
from device.virtual.phone import VirtualPhone
from device.virtual.u2_selectors import Bounds, ObjInfo, find, find_all, obj_info, parse_selector
from sim.actuate import long_press_timeout_ms

__all__ = [
    "DeviceInfo",
    "RpcMethod",
    "U2Service",
    "active_window",
    "limit_depth",
]

STEP_MS = 5
"""uiautomator sleeps 5 ms after each injected motion event (MOTION_EVENT_INJECTION_DELAY)."""
CLICK_MS = 100
"""How long a plain click holds (InteractionController.REGULAR_CLICK_LENGTH)."""
LONG_CLICK_FACTOR = 1.5
"""A long click holds this many long-press timeouts (LONG_PRESS_DURATION_MS)."""
WAIT_POLL_S = 0.1
"""How often ``waitForExists`` / ``waitUntilGone`` look at the tree again."""
NOT_FOUND = "androidx.test.uiautomator.UiObjectNotFoundException"

# UiDevice.pressKey names (the jar's AutomatorServiceImpl.pressKey) -> Android keycodes.
_KEYS = {"home": 3, "back": 4, "up": 19, "down": 20, "left": 21, "right": 22, "center": 23}
_KEYS |= {"volume_up": 24, "volume_down": 25, "power": 26, "camera": 27, "menu": 82}
_KEYS |= {"search": 84, "enter": 66, "delete": 67, "del": 67, "recent": 187, "volume_mute": 164}

RpcMethod = Callable[..., Awaitable[Any]]
"""A JSON-RPC method: a coroutine function taking the request's positional params."""


class DeviceInfo(BaseModel):
    """The jar's ``DeviceInfo`` (``deviceInfo``); field names are the JSON keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    currentPackageName: str
    displayWidth: int
    displayHeight: int
    displayRotation: int
    displaySizeDpX: int
    displaySizeDpY: int
    productName: str
    naturalOrientation: bool
    screenOn: bool
    sdkInt: int


@dataclass
class _Touch:
    """A finger put down by ``injectInputEvent`` and not lifted yet."""

    x: float
    y: float
    since: float
    travel: float = 0.0


# --------------------------------------------------------------------------- params


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidParams(f"{name} must be a number, not {value!r:.40}")
    return float(value)


def _integer(value: object, name: str) -> int:
    return int(_number(value, name))


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidParams(f"{name} must be a string, not {value!r:.40}")
    return value


def _center(box: Bounds) -> tuple[float, float]:
    return ((box.left + box.right) / 2, (box.top + box.bottom) / 2)


def _points(values: Sequence[object], name: str) -> list[float]:
    return [_number(value, name) for value in values]


# --------------------------------------------------------------------------- dumps


def _renumbered(nodes: Sequence[UINode], keep: Callable[[UINode], bool]) -> list[UINode]:
    """The kept nodes with ids 0..n-1 again (a node is kept only with its parent)."""
    new_ids: dict[int, int] = {}
    kept: list[UINode] = []
    for node in nodes:
        if not keep(node) or (node.parent is not None and node.parent not in new_ids):
            continue
        new_ids[node.id] = len(kept)
        parent = None if node.parent is None else new_ids[node.parent]
        kept.append(node.model_copy(update={"id": len(kept), "parent": parent}))
    return kept


def limit_depth(nodes: Sequence[UINode], max_depth: int) -> list[UINode]:
    """The tree cut below ``max_depth`` levels (window roots are level 1 and always kept)."""
    depth: dict[int, int] = {}
    for node in nodes:
        depth[node.id] = 1 if node.parent is None else depth.get(node.parent, 0) + 1
    return _renumbered(nodes, lambda node: depth[node.id] <= max(max_depth, 1))


def active_window(nodes: Sequence[UINode], package: str) -> list[UINode]:
    """Only the window(s) of ``package`` (``rootInActive``); every window if none is."""
    roots = {node.id for node in nodes if node.parent is None and node.package == package}
    if not roots:
        return list(nodes)
    root_of: dict[int, int] = {}
    for node in nodes:
        root_of[node.id] = node.id if node.parent is None else root_of.get(node.parent, -1)
    return _renumbered(nodes, lambda node: root_of[node.id] in roots)


# --------------------------------------------------------------------------- the service


class U2Service:
    """The methods of one running u2 server (one ``app_process`` of the jar) on a phone.

    Holds what the jar holds between calls: a finger that is down (``injectInputEvent``) and
    the toast ``clearLastToast`` dismissed.
    """

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self._touch: _Touch | None = None
        self._cleared_toast: str | None = None
        self.stopped = False
        """Set when the server stops: pending waits end and their connections drop."""

    def methods(self) -> dict[str, RpcMethod]:
        """JSON-RPC method name -> coroutine function taking the positional params."""
        return {
            "deviceInfo": self.device_info,
            "dumpWindowHierarchy": self.dump_window_hierarchy,
            "takeScreenshot": self.take_screenshot,
            "click": self.click,
            "longClick": self.long_click,
            "swipe": self.swipe,
            "swipePoints": self.swipe_points,
            "drag": self.drag,
            "injectInputEvent": self.inject_input_event,
            "pressKey": self.press_key,
            "pressKeyCode": self.press_key_code,
            "wakeUp": self.wake_up,
            "sleep": self.sleep,
            "openNotification": self.open_notification,
            "openQuickSettings": self.open_quick_settings,
            "setOrientation": self.set_orientation,
            "freezeRotation": self.nothing,
            "getLastTraversedText": self.nothing,
            "clearLastTraversedText": self.nothing,
            "getLastToast": self.get_last_toast,
            "clearLastToast": self.clear_last_toast,
            "setClipboard": self.set_clipboard,
            "getClipboard": self.get_clipboard,
            "pasteClipboard": self.paste_clipboard,
            "clearInputText": self.clear_input_text,
            "exist": self.exist,
            "waitForExists": self.wait_for_exists,
            "waitUntilGone": self.wait_until_gone,
            "objInfo": self.obj_info,
            "objInfoOfAllInstances": self.obj_info_of_all_instances,
            "count": self.count,
            "getText": self.get_text,
            "setText": self.set_text,
            "clearTextField": self.clear_text_field,
        }

    # ---- device
    async def device_info(self) -> DeviceInfo:
        """``deviceInfo``: screen facts in px and dp, the focused package, power state."""
        phone = self.phone
        scale = phone.density / 160
        return DeviceInfo(
            currentPackageName=phone.current_focus()[0],
            displayWidth=phone.width_px,
            displayHeight=phone.height_px,
            displayRotation=0,
            displaySizeDpX=round(phone.width_px / scale),
            displaySizeDpY=round(phone.height_px / scale),
            productName=phone.identity.device,
            naturalOrientation=True,
            screenOn=phone.instance.state.os.screen_on,
            sdkInt=phone.identity.sdk,
        )

    async def dump_window_hierarchy(
        self, compressed: object = False, max_depth: object = 50, root_in_active: object = False
    ) -> str:
        """``dumpWindowHierarchy [compressed, maxDepth(, rootInActive)]``: the XML, never empty."""
        nodes = await self.phone.nodes()
        if root_in_active is True:
            nodes = active_window(nodes, self.phone.current_focus()[0])
        if isinstance(max_depth, int) and not isinstance(max_depth, bool):
            nodes = limit_depth(nodes, max_depth)
        if not nodes:  # u2 retries an empty dump for seconds; a phone always has a window
            box = (0, 0, self.phone.width_px, self.phone.height_px)
            package = self.phone.current_focus()[0]
            root = UINode(
                id=0, class_name="android.widget.FrameLayout", package=package, bounds_px=box
            )
            nodes = [root]
        return to_xml(nodes, rotation=0)

    async def take_screenshot(self, *params: object) -> str:
        """``takeScreenshot [scale, quality]``: base64 JPEG in lines of 76 (Base64.DEFAULT)."""
        scale = 1.0 if not params else _number(params[0], "scale")
        if scale <= 0:
            raise InvalidParams(f"scale must be above 0, not {scale:g}")
        quality = 80 if len(params) < 2 else _integer(params[-1], "quality")
        jpeg = await self.phone.screenshot("jpeg", min(max(quality, 1), 100), min(scale, 1.0))
        return base64.encodebytes(jpeg).decode("ascii")

    async def set_orientation(self, direction: object) -> None:
        """``setOrientation``: the virtual phone's display is fixed in its natural rotation."""
        if str(direction).lower() not in ("natural", "n"):
            raise JavaException(
                "java.lang.UnsupportedOperationException",
                f"the virtual phone cannot rotate to {direction!r}; it stays natural (portrait)",
            )

    async def nothing(self, *params: object) -> None:
        """Methods that change nothing here (``freezeRotation``, traversed text)."""
        return None

    # ---- touch
    def _long_click_ms(self) -> float:
        return LONG_CLICK_FACTOR * long_press_timeout_ms(self.phone.instance.state.os.settings)

    async def _paced(
        self, path: Sequence[tuple[float, float]], duration_ms: float, gesture_ms: float
    ) -> None:
        """Inject ``path`` as one stroke of ``duration_ms`` (what decides its class) once the
        ``gesture_ms`` the jar spends injecting it have passed."""
        if self.stopped:
            raise ServerStopped
        await asyncio.sleep(gesture_ms / 1000)  # the time the real gesture takes to inject
        await self.phone.stroke(path, duration_ms)

    async def _touch_at(self, x: float, y: float, held_ms: float) -> None:
        await self._paced([(x, y)], held_ms, held_ms)

    def _slop(self) -> float:
        return TOUCH_SLOP_DP * self.phone.density / 160

    async def _stroke(self, points: Sequence[float], duration_ms: float) -> bool:
        """A finger path ``[x1, y1, x2, y2, …]`` over ``duration_ms``, one stroke."""
        if len(points) < 2:
            raise InvalidParams("a gesture needs at least one point")
        pairs = list(zip(points[::2], points[1::2], strict=False))
        await self._paced(pairs, duration_ms, duration_ms)
        return self.phone.on_screen(*pairs[0])

    async def click(self, *params: object) -> bool:
        """``click [x, y]``, ``click [x, y, ms]`` (a long click), ``click [selector(, corner)]``."""
        if params and isinstance(params[0], dict):
            return await self._click_selector(params, held_ms=CLICK_MS)
        if len(params) not in (2, 3):
            raise InvalidParams("click takes [x, y], [x, y, ms] or [selector]")
        x, y = _points(params[:2], "click point")
        held = max(_number(params[2], "duration"), 0) if len(params) == 3 else CLICK_MS
        await self._touch_at(x, y, held_ms=held)
        return self.phone.on_screen(x, y)

    async def long_click(self, *params: object) -> bool:
        """``longClick [selector(, corner)]``: held 1.5 long-press timeouts."""
        return await self._click_selector(params, held_ms=self._long_click_ms())

    async def _click_selector(self, params: Sequence[object], held_ms: float) -> bool:
        if not 1 <= len(params) <= 2:
            raise InvalidParams("expected [selector] or [selector, corner]")
        box = (await self._must_find(params[0]))[1].visibleBounds
        corner = str(params[1]).lower() if len(params) == 2 and params[1] else "center"
        x: float
        y: float
        if corner in ("tl", "topleft"):
            x, y = box.left + 5, box.top + 5
        elif corner in ("br", "bottomright"):
            x, y = box.right - 5, box.bottom - 5
        else:
            x, y = _center(box)
        await self._touch_at(x, y, held_ms=held_ms)
        return True

    async def swipe(self, fx: object, fy: object, tx: object, ty: object, steps: object) -> bool:
        """``swipe [fx, fy, tx, ty, steps]``: 5 ms per step (a step of 0 counts as 1)."""
        points = _points([fx, fy, tx, ty], "swipe point")
        return await self._stroke(points, max(_integer(steps, "steps"), 1) * STEP_MS)

    async def drag(self, sx: object, sy: object, ex: object, ey: object, steps: object) -> bool:
        """``drag [sx, sy, ex, ey, steps]``: a press held 1.5 long-press timeouts, the move
        (5 ms per step), then 100 ms at rest before the finger lifts (so it never flings)."""
        start = (_number(sx, "drag point"), _number(sy, "drag point"))
        end = (_number(ex, "drag point"), _number(ey, "drag point"))
        move_ms = max(_integer(steps, "steps"), 1) * STEP_MS
        hold_ms = self._long_click_ms()
        # the last segment is the rest before lifting: zero speed at release
        await self._paced([start, end, end], move_ms + CLICK_MS, hold_ms + move_ms + CLICK_MS)
        return self.phone.on_screen(*start)

    async def swipe_points(self, points: object, steps: object) -> bool:
        """``swipePoints [[x1, y1, x2, y2, …], steps]`` (``steps`` per segment).

        One stroke over the whole path (its last segment decides a fling); the simulator
        scrolls by the path's first-to-last travel.
        """
        if not isinstance(points, list) or len(points) % 2:
            raise InvalidParams("swipePoints takes a flat list [x1, y1, x2, y2, …]")
        path = _points(points, "swipe point")
        segments = max(len(path) // 2 - 1, 1)
        moves = max(_integer(steps, "steps") - 1, 0) * segments
        return await self._stroke(path, STEP_MS * (1 + moves))

    async def inject_input_event(
        self, action: object, x: object, y: object, meta: object = 0
    ) -> bool:
        """``injectInputEvent [action, x, y, meta]``: down (0), move (2), up (1), cancel (3).

        The gesture takes effect when the finger lifts: a down…up that stayed in the touch
        slop is a tap (a long press when held 400 ms), anything else a swipe down -> up.
        """
        kind = _integer(action, "action")
        point = (_number(x, "x"), _number(y, "y"))
        now = asyncio.get_running_loop().time()
        touch = self._touch
        if kind == 0:
            self._touch = _Touch(*point, since=now)
        elif kind == 2 and touch is not None:
            touch.travel = max(touch.travel, math.dist((touch.x, touch.y), point))
        elif kind == 1 and touch is not None:
            self._touch = None
            held_ms = (now - touch.since) * 1000
            if max(touch.travel, math.dist((touch.x, touch.y), point)) < self._slop():
                await self._touch_at(touch.x, touch.y, held_ms=held_ms)
            else:
                await self.phone.stroke([(touch.x, touch.y), point], held_ms)
        elif kind == 3:
            self._touch = None
        return True

    async def open_notification(self) -> bool:
        """``openNotification``: the notification shade, as UiAutomation's global action
        opens it (no injected touch)."""
        return self._shade(quick_settings=False)

    async def open_quick_settings(self) -> bool:
        """``openQuickSettings``: the quick settings in full (on HyperOS, its Control
        Center, which a pull at the middle of the screen would not open)."""
        return self._shade(quick_settings=True)

    def _shade(self, quick_settings: bool) -> bool:
        instance = self.phone.instance
        instance.phone.open_shade(instance.state, quick_settings=quick_settings)
        instance.changed()
        return True

    # ---- keys and power
    async def press_key(self, key: object) -> bool:
        """``pressKey [name]``: UiDevice's key names; False for a name it does not know."""
        code = _KEYS.get(_text(key, "key").lower())
        if code is None:
            return False
        await self.phone.keyevent(code)
        return True

    async def press_key_code(self, code: object, meta: object = 0) -> bool:
        """``pressKeyCode [code(, meta)]``."""
        await self.phone.keyevent(_integer(code, "keyCode"))
        return True

    async def wake_up(self) -> None:
        """``wakeUp``: turns the screen on if it is off."""
        await self.phone.keyevent("WAKEUP")

    async def sleep(self) -> None:
        """``sleep``: turns the screen off if it is on."""
        await self.phone.keyevent("SLEEP")

    # ---- toasts, clipboard, text
    async def get_last_toast(self) -> str | None:
        """``getLastToast``: the toast on screen, unless ``clearLastToast`` dismissed it."""
        toast = self.phone.instance.state.ui.toast
        if toast is None:
            self._cleared_toast = None
        return None if toast == self._cleared_toast else toast

    async def clear_last_toast(self) -> None:
        """``clearLastToast``: forget the current toast (the screen keeps showing it)."""
        self._cleared_toast = self.phone.instance.state.ui.toast

    async def set_clipboard(self, label: object, text: object) -> None:
        """``setClipboard [label, text]``."""
        self.phone.clipboard = _text(text, "text")

    async def get_clipboard(self) -> str:
        """``getClipboard``: exactly what was set (u2's send_keys checks the round trip)."""
        return self.phone.clipboard

    async def paste_clipboard(self) -> None:
        """``pasteClipboard``: Ctrl+V into the focused field (nothing when none is)."""
        await self.phone.text(self.phone.clipboard)

    async def clear_input_text(self) -> None:
        """``clearInputText``: empty the focused field."""
        await self.phone.clear_text()

    # ---- selectors
    async def _must_find(self, raw: object) -> tuple[UINode, ObjInfo]:
        """The node a selector resolves to and its ObjInfo; UiObjectNotFoundException if none."""
        selector = parse_selector(raw)
        nodes = await self.phone.nodes()
        node = find(nodes, selector)
        if node is None:
            raise JavaException(NOT_FOUND, selector.describe())
        return node, obj_info(node, nodes, (self.phone.width_px, self.phone.height_px))

    async def exist(self, selector: object) -> bool:
        """``exist [selector]``."""
        return find(await self.phone.nodes(), parse_selector(selector)) is not None

    async def _wait(self, raw: object, timeout_ms: object, present: bool) -> bool:
        selector = parse_selector(raw)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(_number(timeout_ms, "timeout"), 0) / 1000
        while True:
            if self.stopped:
                raise ServerStopped
            if (find(await self.phone.nodes(), selector) is not None) == present:
                return True
            left = deadline - loop.time()
            if left <= 0:
                return False
            await asyncio.sleep(min(WAIT_POLL_S, left))  # polling the tree for a condition

    async def wait_for_exists(self, selector: object, timeout_ms: object = 0) -> bool:
        """``waitForExists [selector, timeout_ms]``: True once it is there, False at timeout."""
        return await self._wait(selector, timeout_ms, present=True)

    async def wait_until_gone(self, selector: object, timeout_ms: object = 0) -> bool:
        """``waitUntilGone [selector, timeout_ms]``: True once it is gone, False at timeout."""
        return await self._wait(selector, timeout_ms, present=False)

    async def obj_info(self, selector: object) -> ObjInfo:
        """``objInfo [selector]``; UiObjectNotFoundException when nothing matches."""
        return (await self._must_find(selector))[1]

    async def obj_info_of_all_instances(self, selector: object) -> list[ObjInfo]:
        """``objInfoOfAllInstances [selector]``: every instance, in order."""
        nodes = await self.phone.nodes()
        screen = (self.phone.width_px, self.phone.height_px)
        return [obj_info(n, nodes, screen) for n in find_all(nodes, parse_selector(selector))]

    async def count(self, selector: object) -> int:
        """``count [selector]``."""
        return len(find_all(await self.phone.nodes(), parse_selector(selector)))

    async def get_text(self, selector: object) -> str:
        """``getText [selector]``."""
        return (await self._must_find(selector))[0].text

    async def set_text(self, selector: object, text: object) -> bool:
        """``setText [selector, text]``: click the field to focus it, then replace its text."""
        value = _text(text, "text")
        node, info = await self._must_find(selector)
        await self.phone.tap(*_center(info.visibleBounds))
        if not node.editable:
            return False
        await self.phone.clear_text()
        return await self.phone.text(value)

    async def clear_text_field(self, selector: object) -> None:
        """``clearTextField [selector]``: focus the field and empty it."""
        node, info = await self._must_find(selector)
        await self.phone.tap(*_center(info.visibleBounds))
        if node.editable:
            await self.phone.clear_text()
