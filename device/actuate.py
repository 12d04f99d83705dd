"""A phone's actuation primitives (:class:`bridge.actuate.Actuator`) over an AndroidDriver.

Everything an action means — target resolution, scroll areas, step errors — is
:func:`bridge.actuate.perform`, shared with the simulator; this module only maps its
primitives onto the driver (``input``, uiautomator2, ``monkey``). The phone itself decides
what a stroke is (a 200 ms press is a tap there, as on every Android); failures of the phone
raise :class:`~device.errors.DeviceError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bridge.actions import KeyName
from bridge.actuate import ALL_KEYS, FocusState, Launch, LaunchStatus, Performed
from bridge.coords import IntPoint
from device.driver import AndroidDriver
from device.profiles import DeviceProfile

__all__ = ["PhoneActuator"]


class PhoneActuator:
    """The primitives on one phone (device pixels of the current orientation)."""

    def __init__(self, driver: AndroidDriver, profile: DeviceProfile) -> None:
        self.driver = driver
        self.profile = profile

    async def tap(self, at: IntPoint) -> Performed:
        """``input tap``."""
        return Performed(await self.driver.tap(at.x, at.y))

    async def double_tap(self, at: IntPoint) -> Performed:
        """Two taps within the double-tap timeout (uiautomator2's injected events)."""
        return Performed(await self.driver.double_tap(at.x, at.y))

    async def press(self, at: IntPoint, duration_ms: int) -> Performed:
        """A touch held for ``duration_ms`` (``input swipe x y x y ms``)."""
        return Performed(await self.driver.long_press(at.x, at.y, duration_ms))

    async def swipe(self, path: Sequence[IntPoint], duration_ms: int) -> Performed:
        """A finger path: ``input swipe`` for a straight one, uiautomator2 for more points."""
        return Performed(await self.driver.swipe_path([(p.x, p.y) for p in path], duration_ms))

    @property
    def keys(self) -> frozenset[KeyName]:
        """Every key (a phone has them all)."""
        return ALL_KEYS

    async def key(self, key: KeyName) -> Performed:
        """``input keyevent``."""
        return Performed(await self.driver.key(key))

    async def type_text(self, text: str, *, clear: bool) -> Performed:
        """Clear the focused field if asked, then type (``input text`` or the clipboard)."""
        commands = [await self.driver.clear_text()] if clear else []
        commands.append(await self.driver.type_text(text))
        return Performed("; ".join(commands))

    async def launch(self, app: str) -> Launch:
        """Start the app's launcher activity, if the phone has it."""
        package = self.profile.package(app)
        if package is None or not await self.driver.installed(package):
            return Launch(LaunchStatus.NOT_INSTALLED, package=package)
        command = await self.driver.start_app(package)
        return Launch(LaunchStatus.LAUNCHED, command=command, package=package)

    async def focus(self) -> FocusState:
        """After the screen settles: the hierarchy and whether the keyboard shows."""
        await self.driver.settle()
        dump = await self.driver.hierarchy()
        keyboard = await self.driver.keyboard_visible()
        return FocusState(dump.tree.nodes if dump.tree is not None else None, keyboard)

    async def wait(self, seconds: float) -> Performed:
        """Let ``seconds`` pass on the phone."""
        await asyncio.sleep(seconds)  # the action itself is "let time pass"
        return Performed("wait")
