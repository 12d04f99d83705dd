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
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, TypeVar

import cv2
import numpy as np

from bridge.app_catalog import Component
from bridge.images import encode_image
from bridge.schema import UINode
from bridge.uitree import to_xml
from device.profiles import DeviceProfile, load_profile
from device.virtual.errors import SecurityRefused
from device.virtual.frames import FrameCache, RenderedFrame
from device.virtual.logbuffer import note_activity_start, observe_starts
from device.virtual.perturb import Perturbations, PopupSource, Transition
from device.virtual.vfs import PhoneFiles
from sim.actuate import PageTouch
from sim.device_props import DeviceIdentity
from sim.instance import Instance
from sim.observe import foreground, tree_nodes
from sim.settings_store import get_setting, put_setting
from sim.simulator import Simulator
from sim.skins import DEFAULT_SKIN, home_of, system_ui_of
from sim.state import InstanceState

__all__ = [
    "KEYCODES",
    "Perturbations",
    "ServiceStream",
    "TcpHandler",
    "VirtualPhone",
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

T = TypeVar("T")


def _scaled(image: np.ndarray, scale: float, screen_width: int) -> np.ndarray:
    """``image`` resized to ``scale`` of a ``screen_width``-pixel-wide screen (as is at 1)."""
    width = max(1, round(screen_width * min(scale, 1.0)))
    if image.shape[1] == width:
        return image
    height = max(1, round(image.shape[0] * width / image.shape[1]))
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


@dataclass
class VirtualPhone:
    """A simulator instance presented as an Android device (see the module docstring)."""

    sim: Simulator
    instance: Instance
    serial: str = ""
    """The serial number (``ro.serialno``); empty: the identity's."""
    identity: DeviceIdentity = field(default_factory=DeviceIdentity)
    """Model, brand, Android release … (``getprop``, the adb banner); its serial is
    :attr:`serial` when one is given."""
    perturbations: Perturbations = field(default_factory=Perturbations)
    clipboard: str = ""
    files: PhoneFiles = field(init=False, repr=False)
    """The phone's files (:mod:`device.virtual.vfs`): ``/sdcard`` is the instance's storage
    tree, ``/data/local/tmp`` the phone's own."""
    tcp_handlers: dict[int, TcpHandler] = field(default_factory=dict)
    """Device ports with a server listening (``tcp:PORT`` streams go there)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    popups: PopupSource = field(init=False, repr=False)
    """Decides the pop-ups (seeded by the instance's seed)."""
    transition: Transition | None = field(default=None, init=False, repr=False)
    """The animation screenshots show now, if any."""
    frames: FrameCache = field(default_factory=FrameCache, init=False, repr=False)
    """The frames rendered of the current screen (not rendered again while it stands)."""
    set_props: dict[str, str] = field(default_factory=dict)
    """System properties set on this phone (``setprop``, and the input switch of a phone
    made ready): kept across :meth:`reset_to`, as a phone's persistent properties are."""
    plays: DeviceProfile = field(init=False, repr=False)
    """The profile it plays (:attr:`Perturbations.profile`)."""

    def __post_init__(self) -> None:
        if self.serial:
            self.identity = replace(self.identity, serial=self.serial)
        self.serial = self.identity.serial
        self.files = PhoneFiles(
            lambda: self.instance.state.os.storage,
            lambda: self.instance.state.os.clock_ms,
            self.instance.changed,
        )
        knobs = self.perturbations
        self.plays = load_profile(knobs.profile)
        self.popups = PopupSource(self.instance.state.seed)
        if knobs.font_scale is not None or knobs.skin != DEFAULT_SKIN:
            self._look(self.instance.state)
            self.instance.changed()

    # ---- what it plays
    @property
    def skin(self) -> str:
        """The skin its screens are drawn in (its profile's)."""
        return self.plays.skin

    @property
    def home(self) -> Component:
        """The home screen's package and launcher activity."""
        return home_of(self.skin)

    @property
    def system_ui(self) -> str:
        """The System UI package."""
        return system_ui_of(self.skin)

    def input_allowed(self) -> bool:
        """Whether injected input and secure settings are allowed: always, unless its profile
        has an input switch (a Redmi's "USB debugging (Security settings)") that is off."""
        switch = self.plays.input_permission
        return switch is None or self.set_props.get(switch.prop) == "1"

    def make_ready(self) -> None:
        """Turn on what a run needs that its profile keeps off on a new phone (the input
        switch), as a person preparing the phone does."""
        switch = self.plays.input_permission
        if switch is not None:
            self.set_props[switch.prop] = "1"

    # ---- identity (shorthands of :attr:`identity`)
    @property
    def model(self) -> str:
        """``ro.product.model``."""
        return self.identity.model

    @property
    def brand(self) -> str:
        """``ro.product.brand``."""
        return self.identity.brand

    @property
    def device(self) -> str:
        """``ro.product.device`` (the code name)."""
        return self.identity.device

    @property
    def android_version(self) -> str:
        """``ro.build.version.release``."""
        return self.identity.android_version

    @property
    def sdk(self) -> int:
        """``ro.build.version.sdk``."""
        return self.identity.sdk

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

    async def nodes(self) -> list[UINode]:
        """The UI tree as uiautomator would dump it."""
        async with self.lock, self.sim.pool.page() as pooled:
            return tree_nodes(json.loads(await pooled.tree_of(self.instance)))

    async def hierarchy_xml(self) -> str:
        """The hierarchy in uiautomator2's XML format."""
        return to_xml(await self.nodes(), rotation=0)

    async def screenshot(
        self, image_format: Literal["png", "jpeg"] = "png", quality: int = 80, scale: float = 1.0
    ) -> bytes:
        """The screen at device resolution (``screencap -p`` is PNG, u2 asks for JPEG);
        mid-animation, the frame of the animation at this moment. ``scale`` below 1 gives a
        smaller frame, as uiautomator2's ``takeScreenshot(scale, quality)`` does: the full
        frame resized. A screen that has not changed since its last frame is not rendered
        again (:mod:`device.virtual.frames`)."""
        if self.transition is not None:
            frame = self._animated((await self._rendered("png")).pixels())
            if frame is not None:
                return encode_image(_scaled(frame, scale, self.width_px), image_format, quality)
        rendered = await self._rendered(image_format, quality)
        if scale >= 1:
            return rendered.data
        source = rendered.pixels_at_least(round(self.width_px * scale))
        return encode_image(_scaled(source, scale, self.width_px), image_format, quality)

    def animating(self) -> bool:
        """Whether screenshots show an animation now."""
        return self.transition is not None and not self.transition.done(time.monotonic())

    async def _rendered(
        self, image_format: Literal["png", "jpeg"], quality: int = 80
    ) -> RenderedFrame:
        """The screen's current frame in this format: the kept one, else rendered now."""
        instance = self.instance
        kept = self.frames.get(instance.id, instance.version, image_format, quality)
        if kept is not None:
            return kept

        async def shoot(pooled: Any) -> RenderedFrame:
            version = pooled.version  # what the page shows (the instance may move on)
            data = await pooled.screenshot(image_format, quality)
            return RenderedFrame(instance.id, version, image_format, quality, data)

        return self.frames.put(await self._with_page(shoot))

    def _animated(self, rendered: np.ndarray) -> np.ndarray | None:
        """The animation's frame over ``rendered`` now; None once it is over (forgotten)."""
        now = time.monotonic()
        if self.transition is not None and self.transition.done(now):
            self.transition = None
        return None if self.transition is None else self.transition.frame(rendered, now)

    async def _shown_frame(self) -> np.ndarray:
        """The pixels on the glass now: the rendered screen, or the animation's frame."""
        rendered = (await self._rendered("png")).pixels()
        animated = self._animated(rendered)
        return rendered if animated is None else animated

    # ---- input
    async def _input(self, event: Callable[[], Awaitable[T]]) -> T:
        """Run one input event inside the perturbations: the latency before it takes
        effect; a system pop-up now and then and the screen's animation after it.
        :class:`SecurityRefused` when the phone refuses injected input."""
        if not self.input_allowed():
            raise SecurityRefused(SecurityRefused.INJECT)
        knobs = self.perturbations
        if knobs.latency_ms > 0:
            await asyncio.sleep(knobs.latency_ms / 1000)  # a simulated busy phone
        before = await self._shown_frame() if knobs.animation_ms > 0 else None
        version, dialog_up = self.instance.version, self.instance.state.os.dialog is not None
        result = await observe_starts(self, event)
        if not dialog_up:
            self._maybe_popup()
        if before is not None and self.instance.version != version:
            self.transition = Transition(before, time.monotonic(), knobs.animation_ms / 1000)
        return result

    def _maybe_popup(self) -> None:
        if self.perturbations.popup_rate <= 0:  # every input event comes here: stop early
            return
        state = self.instance.state
        front = state.os.foreground
        app = self.sim.phone.app(front).label(state.os.lang) if front is not None else ""
        dialog = self.popups.roll(self.perturbations.popup_rate, state.os.lang, self.skin, app)
        if dialog is not None:
            state.os.dialog = dialog
            self.instance.changed()

    async def _touch(
        self, at: tuple[float, float], work: Callable[[PageTouch], Awaitable[object]]
    ) -> None:
        """One touch starting at device pixel ``at`` through the simulator's own
        (:class:`sim.actuate.PageTouch`), inside the perturbations; a touch that starts off
        the display reaches nothing, as on Android."""

        async def touch() -> None:
            if not self.on_screen(*at):
                return

            async def on_page(pooled: Any) -> object:
                return await work(PageTouch(pooled, self.instance, self.sim.config.profile))

            await self._with_page(on_page)

        await self._input(touch)

    async def tap(self, x: float, y: float) -> None:
        """``input tap``: a tap at device pixels (off-screen taps are dropped, as on Android)."""
        await self._touch((x, y), lambda touch: touch.gesture("tap", (x, y)))

    async def long_press(self, x: float, y: float) -> None:
        """A touch held in place (``input swipe x y x y 1000`` or u2's long click)."""
        await self._touch((x, y), lambda touch: touch.gesture("longPress", (x, y)))

    async def swipe(
        self, x1: float, y1: float, x2: float, y2: float, *, fling: bool = False
    ) -> None:
        """A finger path in device pixels that scrolls (a drag; ``fling``: released fast)."""
        await self._touch(
            (x1, y1), lambda touch: touch.gesture("swipe", (x1, y1), (x2, y2), fling=fling)
        )

    async def stroke(self, path: Sequence[tuple[float, float]], duration_ms: float) -> None:
        """One finger stroke (``input swipe``, uiautomator's clicks and swipes, injected
        events), its points evenly spaced over ``duration_ms``, classified as Android does
        (:meth:`sim.actuate.PageTouch.stroke`, this phone's long-press timeout); a stroke
        that starts off the display is dropped."""
        await self._touch(path[0], lambda touch: touch.stroke(path, duration_ms))

    async def keyevent(self, key: int | str) -> None:
        """``input keyevent``: a keycode number or name (``KEYCODE_`` optional)."""

        async def press() -> None:
            self._key(key)

        await self._input(press)

    def _key(self, key: int | str) -> None:
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

        async def commit() -> bool:
            error = self.instance.phone.type_text(self.instance.state, text, clear=False)
            self.instance.changed()
            return error is None

        return await self._input(commit)

    async def clear_text(self) -> None:
        """Empty the focused field (u2's ``clearInputText``)."""
        state = self.instance.state
        if state.ui.focus is not None:
            state.ui.fields[state.ui.focus] = ""
            self.instance.changed()

    # ---- apps
    def package_app(self, package: str) -> str | None:
        """Our app id for an Android package, None if not installed."""
        app = self.sim.phone.package_app(package, self.skin)
        return app.id if app is not None else None

    def packages(self) -> list[str]:
        """Installed packages (``pm list packages``)."""
        ours = [app.package_on(self.skin) for app in self.sim.phone.apps.values()]
        system = (self.home.package, self.system_ui, "android", *self.plays.handoff_packages)
        return sorted({*ours, *system})

    async def start(self, package: str) -> bool:
        """Bring an app to the front (``am start`` / ``monkey -p``); False if not installed."""
        app_id = self.package_app(package)
        if app_id is None:
            return False
        self.instance.phone.launch(self.instance.state, app_id)
        self.instance.changed()
        note_activity_start(self)
        return True

    async def reset_to(self, state: InstanceState) -> None:
        """Hold a copy of ``state`` from now on, as a phone restored to a backup would: what
        a paired run does before each phone episode, so that the phone starts from the very
        state its simulator twin starts from (the reality-gap knobs stay as they are)."""
        self.instance.state = state.model_copy(deep=True)
        self.instance.episode = None
        self.transition = None
        self.clipboard = ""
        self._look(self.instance.state)
        self.instance.changed()

    def _look(self, state: InstanceState) -> None:
        """The phone's own look on ``state``: its skin, and its larger text if it has it."""
        state.os.skin = self.skin
        if self.perturbations.font_scale is not None:
            state.os.text_zoom = self.perturbations.font_scale

    async def force_stop(self, package: str) -> None:
        """``am force-stop``: the app's back stack and screen state go; home if in front."""
        app_id = self.package_app(package)
        if app_id is None:
            return
        self.instance.phone.stop(self.instance.state, app_id)
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
        dialog = self.instance.state.os.dialog
        if dialog is not None and dialog.activity is not None:  # an activity takes the focus
            return dialog.package, dialog.activity
        fg = foreground(self.instance)
        home = self.home
        package = fg.package or home.package
        activity = fg.activity or home.activity
        return package, (package + activity if activity.startswith(".") else activity)

    # ---- settings
    def settings_get(self, namespace: str, key: str) -> str:
        """``settings get``: the value as Android prints it, ``null`` when unset."""
        text = get_setting(self.instance.state, namespace, key)
        return "null" if text is None else text

    def settings_put(self, namespace: str, key: str, value: str) -> None:
        """``settings put``: store the value (typed like the simulator's own), nothing else
        (as on Android, no service reacts); :class:`SecurityRefused` for the secure and
        global tables on a phone that refuses them."""
        if namespace in ("secure", "global") and not self.input_allowed():
            raise SecurityRefused(SecurityRefused.WRITE_SECURE)
        put_setting(self.instance.state, namespace, key, value)
        self.instance.changed()
