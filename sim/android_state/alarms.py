"""``SimAlarms``: the next alarm, the soonest of every app's
:meth:`sim.app.App.next_alarm_clock` (the Clock app's alarms; :func:`next_alarm_clock`,
which the virtual phone's ``dumpsys alarm`` prints)."""

from __future__ import annotations

from sim.android_state.base import SimStateBase
from sim.phone import Phone
from sim.state import TIME_ZONE, InstanceState

__all__ = ["SimAlarms", "next_alarm_clock"]


def alarm_clocks(phone: Phone, state: InstanceState) -> dict[str, int]:
    """App id -> epoch ms of the next alarm clock it has set after the instance's clock (the
    apps that have set one)."""
    now = state.os.clock_ms
    return {
        app.id: ring
        for app in phone.apps.values()
        if (ring := app.next_alarm_clock(state.apps.get(app.id) or {}, now, TIME_ZONE)) is not None
    }


def next_alarm_clock(phone: Phone, state: InstanceState) -> int | None:
    """Epoch ms of the soonest alarm clock any installed app has set after the instance's
    clock, None when none has: what AlarmManager holds as the next alarm clock."""
    return min(alarm_clocks(phone, state).values(), default=None)


class SimAlarms(SimStateBase):
    """:class:`bridge.android_state.AlarmsState` of the simulated phone."""

    async def next_alarm(self) -> int | None:
        """The Clock app's next ring (:func:`next_alarm_clock`)."""
        return next_alarm_clock(self.phone, self.state)
