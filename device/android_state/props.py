"""``AdbProps``: system properties over ``getprop``."""

from __future__ import annotations

import shlex

from device.android_state.base import AdbStateBase

__all__ = ["AdbProps"]


class AdbProps(AdbStateBase):
    """:class:`bridge.android_state.PropsState` over ``adb shell getprop``."""

    async def getprop(self, key: str) -> str:
        """A system property as ``getprop KEY`` prints it ("" when unset)."""
        return (await self.shell(f"getprop {shlex.quote(key)}")).strip()
