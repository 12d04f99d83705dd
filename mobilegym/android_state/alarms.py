"""``MobileGymAlarms``: the next alarm clock, the soonest of MobileGym's AlarmManager
(``os.services.alarm_manager.alarms``, what its ``getNextAlarmClock()`` answers).

The Clock app registers its enabled alarms there whenever ``apps.clock.alarms`` changes (at
once), and MobileGym reschedules every alarm on its ``TIME_SET`` broadcast, which arrives a
moment after its clock moves. An alarm at or before now is one that broadcast has not yet
rescheduled (an alarm clock always lies ahead), so the read waits for it.
"""

from __future__ import annotations

from bridge.errors import StateUnavailable
from mobilegym.android_state.base import MobileGymStateBase

__all__ = ["MobileGymAlarms"]

_NEXT = """async (budgetMs) => {
  const read = () => ({
    now: window.__SIM_TIME__.now(),
    rings: Object.values(window.__SIM__.getState().os.services.alarm_manager.alarms || {})
      .map((a) => a.triggerAtMs),
  });
  const deadline = performance.now() + budgetMs;
  let seen = read();
  while (seen.rings.some((t) => !(t > seen.now)) && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    seen = read();
  }
  return seen;
}"""
_BUDGET_MS = 2000
"""How long a read waits for MobileGym to reschedule its alarms after its clock moved."""


class MobileGymAlarms(MobileGymStateBase):
    """:class:`bridge.android_state.AlarmsState` over MobileGym's AlarmManager."""

    async def next_alarm(self) -> int | None:
        """The soonest ``triggerAtMs`` (None: no alarm clock is set).

        Raises:
            StateUnavailable: an alarm stays at or before MobileGym's clock (not rescheduled
                within the budget), so the next one is unknown.
        """
        seen = await self.page.call(_NEXT, _BUDGET_MS)
        rings = [int(t) for t in seen["rings"]]
        now = int(seen["now"])
        if any(t <= now for t in rings):
            raise StateUnavailable(
                f"MobileGym's AlarmManager holds an alarm at or before its clock ({now}) "
                f"{_BUDGET_MS} ms after it moved, so its next alarm clock is unknown"
            )
        return min(rings, default=None)
