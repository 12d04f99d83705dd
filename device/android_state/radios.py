"""``AdbRadios``: the connected Wi-Fi network (``cmd wifi status``) and the paired Bluetooth
devices (``dumpsys bluetooth_manager``), each waited for with a condition poll bounded by
``wait_s``, never a fixed sleep."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bridge.errors import StateUnavailable
from device.android_state.settings import AdbSettings
from device.shell_output import UNKNOWN_SSID, WifiStatus, parse_bonded_devices, parse_wifi_status

__all__ = ["AdbRadios"]

_T = TypeVar("_T")


async def _poll(
    read: Callable[[], Awaitable[_T | None]], timeout_s: float, interval_s: float = 0.25
) -> _T | None:
    """``read()`` until it returns something other than None, for at most ``timeout_s``
    (the last result: None when the deadline passed first)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        value = await read()
        if value is not None or loop.time() >= deadline:
            return value
        await asyncio.sleep(min(interval_s, max(deadline - loop.time(), 0.0)))


class AdbRadios(AdbSettings):
    """:class:`bridge.android_state.RadiosState` over ``adb shell``; builds on
    :class:`~device.android_state.settings.AdbSettings` to turn Bluetooth on for a read."""

    async def _wifi_status(self) -> WifiStatus:
        status = parse_wifi_status(await self.shell("cmd wifi status"))
        if status is None:
            raise StateUnavailable(
                "this phone prints no `cmd wifi status` (it needs Android 11 or later), so "
                "the connected Wi-Fi network cannot be read"
            )
        return status

    async def wifi_ssid(self) -> str | None:
        """The Wi-Fi network the phone is connected to (None: off, or not connected within
        ``wait_s`` of finding Wi-Fi on)."""

        async def settled() -> WifiStatus | None:
            status = await self._wifi_status()
            return status if not status.enabled or status.ssid is not None else None

        status = await _poll(settled, self.wait_s)
        if status is None or status.ssid is None:
            return None
        if status.ssid == UNKNOWN_SSID:
            raise StateUnavailable(
                "the phone hides the Wi-Fi network's name from adb (<unknown ssid>): turn on "
                "Location (Settings > Location) so that `cmd wifi status` shows it, then retry"
            )
        return status.ssid

    async def _bonded(self) -> list[str] | None:
        return parse_bonded_devices(await self.shell("dumpsys bluetooth_manager"))

    async def bonded_devices(self) -> list[str]:
        """Names of the paired Bluetooth devices (the address where Android 16 hides the
        name). Android lists them only with Bluetooth on, so an off radio is turned on for
        the read (waiting up to ``wait_s``) and off again afterwards."""
        names = await self._bonded()
        if names is not None:
            return names
        was_off = await self.get_setting("global", "bluetooth_on") in (None, "0")
        if was_off:
            await self.put_setting("global", "bluetooth_on", "1")
        try:
            names = await _poll(self._bonded, self.wait_s)
        finally:
            if was_off:
                await self.put_setting("global", "bluetooth_on", "0")
        if names is None:
            raise StateUnavailable(
                "`dumpsys bluetooth_manager` lists no 'Bonded devices:' on this phone even "
                f"with Bluetooth on for {self.wait_s:g} s, so its paired devices cannot be read"
            )
        return names
