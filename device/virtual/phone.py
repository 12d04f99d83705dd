"""The virtual phone's device model: a simulator instance seen the way adbd sees a phone.

The adbd transport (``adbd.py``), the shell (``shell.py``), the sync service and the
uiautomator2 server (``u2server.py``) all act on one :class:`VirtualPhone`. It turns
device-level operations — a tap at device pixels, an Android keycode, ``settings put``, a
package to start — into changes of the simulator instance, and renders the instance for
``screencap`` and hierarchy dumps. Everything runs on the virtual phone's own event loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bridge.schema import UINode
from bridge.uitree import to_xml
from sim.instance import Instance
from sim.observe import foreground, tree_nodes
from sim.simulator import Simulator

__all__ = [
    "KEYCODES",
    "Perturbations",
    "ServiceStream",
    "TcpHandler",
    "VirtualPhone",
    "parse_setting",
]

KEYCODES: dict[int, str] = {
    3: "HOME",
    4: "BACK",
    24: "VOLUME_UP",
    25: "VOLUME_DOWN",
    26: "POWER",
    66: "ENTER",
    67: "DEL",
    82: "MENU",
    187: "APP_SWITCH",
    223: "SLEEP",
    224: "WAKEUP",
}
"""Android keycodes the virtual phone understands (others are accepted and ignored)."""

_KEY_ACTIONS = {
    "HOME": "home",
    "BACK": "back",
    "ENTER": "enter",
    "DEL": "delete",
    "VOLUME_UP": "volume_up",
    "VOLUME_DOWN": "volume_down",
    "POWER": "power",
    "APP_SWITCH": "recents",
}


class ServiceStream(Protocol):
    """One open adb stream (a ``shell:``, ``sync:`` or ``tcp:`` service) as a byte pipe."""

    async def read(self) -> bytes:
        """The next chunk the host sent; ``b""`` once the host closed the stream."""
        ...

    async def write(self, data: bytes) -> None:
        """Send ``data`` to the host (waits for the transport's flow control)."""
        ...

    async def close(self) -> None:
        """Close the stream; idempotent."""
        ...


TcpHandler = Callable[[ServiceStream], Awaitable[None]]
"""Serves one ``tcp:PORT`` stream (e.g. uiautomator2's HTTP server on 9008)."""


@dataclass
class Perturbations:
    """Reality-gap knobs, all off by default: what a real phone does that the sim does not."""

    latency_ms: float = 0.0
    """Extra delay before every input event takes effect (a busy phone)."""
    font_scale: float | None = None
    """System font scale forced at start (``settings put system font_scale``)."""


def parse_setting(value: str) -> Any:
    """A ``settings put`` value as stored: int or float when it reads as one, else text."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value


@dataclass
class VirtualPhone:
    """A simulator instance presented as an Android device (see the module docstring)."""

    sim: Simulator
    instance: Instance
    serial: str
    model: str = "23049RAD8C"
    brand: str = "Redmi"
    device: str = "marble"
    android_version: str = "14"
    sdk: int = 34
    perturbations: Perturbations = field(default_factory=Perturbations)
    clipboard: str = ""
    files: dict[str, bytes] = field(default_factory=dict)
    """The phone's writable files (``/data/local/tmp``, ``/sdcard``), by absolute path."""
    tcp_handlers: dict[int, TcpHandler] = field(default_factory=dict)
    """Device ports with a server listening (``tcp:PORT`` streams go there)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    # ---- geometry
    @property
    def width_px(self) -> int:
        """Screen width in pixels (``wm size``)."""
        return self.sim.config.profile.width_px

    @property
    def height_px(self) -> int:
        """Screen height in pixels."""
        return self.sim.config.profile.height_px

    @property
    def density(self) -> int:
        """Screen density in dpi (``wm density``)."""
        return self.sim.config.profile.density_dpi

    def on_screen(self, x: float, y: float) -> bool:
        """Whether a device-pixel point is on the display (events elsewhere are dropped)."""
        return 0 <= x < self.width_px and 0 <= y < self.height_px

    # ---- rendering
    async def _with_page(self, work: Callable[[Any], Awaitable[Any]]) -> Any:
        async with self.lock, self.sim.pool.page() as pooled:
            await pooled.show(self.instance)
            result = await work(pooled)
            await pooled.show(self.instance)
            return result

    async def _evaluate(self, script: str, arg: Any = None) -> Any:
        async def run(pooled: Any) -> Any:
            return await pooled.page.evaluate(script, arg)

        return await self._with_page(run)

    async def nodes(self) -> list[UINode]:
        """The UI tree as uiautomator would dump it."""
        raw = await self._evaluate("() => window.__mgb.treeJson()")
        return tree_nodes(json.loads(raw))

    async def hierarchy_xml(self) -> str:
        """The hierarchy in uiautomator2's XML format."""
        return to_xml(await self.nodes(), rotation=0)

    async def screenshot(self, image_format: str = "png", quality: int = 80) -> bytes:
        """The screen at device resolution (``screencap -p`` is PNG, u2 asks for JPEG)."""

        async def shoot(pooled: Any) -> bytes:
            return await pooled.screenshot(image_format, quality)

        return await self._with_page(shoot)

    # ---- input
    async def _delay(self) -> None:
        if self.perturbations.latency_ms > 0:
            await asyncio.sleep(self.perturbations.latency_ms / 1000)  # a simulated busy phone

    def _css(self, x: float, y: float) -> list[float]:
        dpr = self.sim.config.profile.dpr
        return [x / dpr, y / dpr]

    async def tap(self, x: float, y: float) -> None:
        """``input tap``: a tap at device pixels (off-screen taps are dropped, as on Android)."""
        await self._gesture("tap", x, y)

    async def long_press(self, x: float, y: float) -> None:
        """A touch held in place (``input swipe x y x y 1000`` or u2's long click)."""
        await self._gesture("longPress", x, y)

    async def _gesture(self, call: str, x: float, y: float) -> None:
        await self._delay()
        if self.on_screen(x, y):
            await self._evaluate(f"([x, y]) => window.__mgb.{call}(x, y)", self._css(x, y))

    async def swipe(self, x1: float, y1: float, x2: float, y2: float) -> None:
        """``input swipe``: a finger path in device pixels."""
        await self._delay()
        if not self.on_screen(x1, y1):
            return
        script = "([a, b, c, d]) => window.__mgb.swipe(a, b, c, d)"
        await self._evaluate(script, self._css(x1, y1) + self._css(x2, y2))

    async def keyevent(self, key: int | str) -> None:
        """``input keyevent``: a keycode number or name (``KEYCODE_`` optional)."""
        await self._delay()
        name = KEYCODES.get(key, str(key)) if isinstance(key, int) else key.upper()
        name = name.removeprefix("KEYCODE_")
        state, phone = self.instance.state, self.instance.phone
        if name in _KEY_ACTIONS:
            phone.key(state, _KEY_ACTIONS[name])
        elif name in ("WAKEUP", "SLEEP"):
            state.os.screen_on = name == "WAKEUP"
        else:
            return
        self.instance.changed()

    async def text(self, text: str) -> bool:
        """Commit ``text`` to the focused field (IME / paste); False when nothing is focused."""
        await self._delay()
        error = self.instance.phone.type_text(self.instance.state, text, clear=False)
        self.instance.changed()
        return error is None

    async def clear_text(self) -> None:
        """Empty the focused field (u2's ``clearInputText``)."""
        state = self.instance.state
        if state.ui.focus is not None:
            state.ui.fields[state.ui.focus] = ""
            self.instance.changed()

    # ---- apps
    def package_app(self, package: str) -> str | None:
        """Our app id for an Android package, None if not installed."""
        return next((a.id for a in self.sim.phone.apps.values() if a.package == package), None)

    def packages(self) -> list[str]:
        """Installed packages (``pm list packages``)."""
        ours = [app.package for app in self.sim.phone.apps.values()]
        return sorted({*ours, "com.android.launcher3", "com.android.systemui", "android"})

    async def start(self, package: str) -> bool:
        """Bring an app to the front (``am start`` / ``monkey -p``); False if not installed."""
        app_id = self.package_app(package)
        if app_id is None:
            return False
        self.instance.phone.launch(self.instance.state, app_id)
        self.instance.changed()
        return True

    async def force_stop(self, package: str) -> None:
        """``am force-stop``: drop the app's back stack; home if it was in front."""
        app_id = self.package_app(package)
        state = self.instance.state
        if app_id is None:
            return
        state.os.tasks = [task for task in state.os.tasks if task.app != app_id]
        if state.os.foreground == app_id:
            self.instance.phone.home(state)
        self.instance.changed()

    async def clear(self, package: str) -> bool:
        """``pm clear``: stop the app and drop its data (its overlay)."""
        app_id = self.package_app(package)
        if app_id is None:
            return False
        await self.force_stop(package)
        self.instance.state.apps.pop(app_id, None)
        self.instance.changed()
        return True

    def current_focus(self) -> tuple[str, str]:
        """The focused window's package and activity (full class name)."""
        fg = foreground(self.instance)
        package = fg.package or "com.android.launcher3"
        activity = fg.activity or ".Launcher"
        return package, (package + activity if activity.startswith(".") else activity)

    # ---- settings
    def settings_get(self, namespace: str, key: str) -> str:
        """``settings get``: the value as Android prints it, ``null`` when unset."""
        value = self.instance.state.os.settings.get(namespace, {}).get(key)
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "1" if value else "0"
        return str(value)

    def settings_put(self, namespace: str, key: str, value: str) -> None:
        """``settings put``: store the value (typed like the simulator's own)."""
        self.instance.state.os.settings.setdefault(namespace, {})[key] = parse_setting(value)
        self.instance.changed()
