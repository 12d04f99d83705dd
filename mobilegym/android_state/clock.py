"""``MobileGymClock``: MobileGym's simulated clock (``__SIM_TIME__.now()``) in the zone its
page runs in (MobileGym has no zone of its own: its clock is the browser's ``Date``)."""

from __future__ import annotations

from mobilegym.android_state.base import MobileGymStateBase

__all__ = ["MobileGymClock"]


class MobileGymClock(MobileGymStateBase):
    """:class:`bridge.android_state.ClockState` of a MobileGym phone."""

    async def now(self) -> tuple[int, str]:
        """(MobileGym's simulated time in epoch ms, the page's time zone)."""
        return await self.page.clock(), self.timezone
