"""``AdbAlarms``: the user's next alarm, as ``dumpsys alarm`` reports it.

The phone's next alarm clock (under :data:`NEXT_ALARM_HEADER`) is any app's: a Xiaomi
phone's Security app sets alarm clocks of its own. The user's alarm is the Clock app's, so
the reader takes the pending alarms that carry an ``Alarm clock:`` block and keeps those of
the Clock app's package (:func:`parse_app_alarm_clocks`); a dump that shows no such block
at all falls back to the header's time."""

from __future__ import annotations

import re

from bridge.errors import StateUnavailable
from device.android_state.base import AdbStateBase

__all__ = ["NEXT_ALARM_HEADER", "AdbAlarms", "parse_app_alarm_clocks", "parse_next_alarm"]

NEXT_ALARM_HEADER = "Next alarm clock information:"
"""The ``dumpsys alarm`` section header AlarmManagerService prints (trailing space aside)."""
_ALARM_USER = re.compile(r"^\s*user:(?P<user>\d+)\s+pendingSend:\w+\s+time:(?P<ms>-?\d+)\b")
_PENDING = re.compile(
    r"^\s*\w+ #\d+: Alarm\{\w+ type \d+ origWhen (?P<ms>-?\d+) .*?(?P<package>[\w.]+)\}\s*$"
)
"""A pending alarm's first line: ``RTC_WAKEUP #0: Alarm{5b1e3a7 type 0 origWhen 1778…
window 0 exactAllowReason=policy_permission com.android.deskclock}``."""


def parse_next_alarm(output: str, user: int = 0) -> int | None:
    """The next alarm clock of ``user`` from ``dumpsys alarm``: the epoch ms of its
    ``time:<ms>`` under :data:`NEXT_ALARM_HEADER` (None when the section has no line for
    the user, or ``time:0``: no alarm clock is set).

    Raises:
        StateUnavailable: the dump has no such section (not AlarmManagerService's dump).
    """
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == NEXT_ALARM_HEADER), None)
    if start is None:
        first = next((line.strip() for line in lines if line.strip()), "nothing")
        raise StateUnavailable(
            f"`dumpsys alarm` printed no '{NEXT_ALARM_HEADER}' section (it begins: "
            f"{first[:80]!r}), so the next alarm cannot be read on this phone"
        )
    for line in lines[start + 1 :]:
        found = _ALARM_USER.match(line)
        if found is None:
            break
        if int(found["user"]) == user:
            ms = int(found["ms"])
            return ms if ms > 0 else None
    return None


def parse_app_alarm_clocks(output: str) -> dict[str, list[int]]:
    """Package -> the trigger times (epoch ms, sorted) of its pending alarms that are alarm
    clocks (an ``Alarm clock:`` block under the alarm), from ``dumpsys alarm``."""
    found: dict[str, list[int]] = {}
    current: tuple[str, int] | None = None
    for line in output.splitlines():
        pending = _PENDING.match(line)
        if pending is not None:
            current = (pending["package"], int(pending["ms"]))
        elif current is not None and line.strip() == "Alarm clock:":
            found.setdefault(current[0], []).append(current[1])
            current = None
    return {package: sorted(times) for package, times in found.items()}


class AdbAlarms(AdbStateBase):
    """:class:`bridge.android_state.AlarmsState` over ``adb shell dumpsys alarm``."""

    async def next_alarm(self) -> int | None:
        """The user's next alarm as epoch ms: the Clock app's next alarm clock in
        ``dumpsys alarm`` (:func:`parse_app_alarm_clocks`), or the phone's next alarm clock
        (:func:`parse_next_alarm`) when the dump shows no app's; None when none is set."""
        output = await self.shell("dumpsys alarm")
        by_app = parse_app_alarm_clocks(output)
        if not by_app:
            return parse_next_alarm(output)
        return min(by_app.get(self.clock_package, []), default=None)
