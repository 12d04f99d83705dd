"""``AdbClock``: the phone's clock (``date +%s``) and its time zone
(``persist.sys.timezone``)."""

from __future__ import annotations

from bridge.errors import StateUnavailable
from device.android_state.props import AdbProps
from device.errors import DeviceError

__all__ = ["AdbClock"]


class AdbClock(AdbProps):
    """:class:`bridge.android_state.ClockState` over ``adb shell``; builds on
    :class:`~device.android_state.props.AdbProps` for the time zone."""

    async def now(self) -> tuple[int, str]:
        """The phone's clock: (epoch milliseconds, time-zone id such as ``Asia/Shanghai``).

        ``date +%s`` has whole seconds only (``%N`` is missing from older toolbox/toybox
        builds), so the milliseconds are the second times 1000.
        """
        printed = (await self.shell("date +%s")).strip()
        if not printed.isdigit():
            raise DeviceError(f"`date +%s` printed {printed[:80]!r} instead of epoch seconds")
        zone = await self.getprop("persist.sys.timezone")
        if not zone:
            raise StateUnavailable(
                "the phone sets no persist.sys.timezone, so its time zone is unknown: pick "
                "one in Settings > System > Date & time"
            )
        return int(printed) * 1000, zone
