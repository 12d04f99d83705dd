"""``SimClock``: the clock, ``state.os.clock_ms`` in :data:`sim.state.TIME_ZONE`."""

from __future__ import annotations

from sim.android_state.base import SimStateBase
from sim.state import TIME_ZONE

__all__ = ["SimClock"]


class SimClock(SimStateBase):
    """:class:`bridge.android_state.ClockState` of the simulated phone."""

    async def now(self) -> tuple[int, str]:
        """(``state.os.clock_ms``, :data:`sim.state.TIME_ZONE`)."""
        return self.state.os.clock_ms, TIME_ZONE
