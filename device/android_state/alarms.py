"""``AdbAlarms``: the next alarm clock, as ``dumpsys alarm`` reports it under
:data:`NEXT_ALARM_HEADER`."""

from __future__ import annotations

import re

from bridge.errors import StateUnavailable
from device.android_state.base import AdbStateBase

__all__ = ["NEXT_ALARM_HEADER", "AdbAlarms", "parse_next_alarm"]

NEXT_ALARM_HEADER = "Next alarm clock information:"
"""The ``dumpsys alarm`` section header AlarmManagerService prints (trailing space aside)."""
_ALARM_USER = re.compile(r"^\s*user:(?P<user>\d+)\s+pendingSend:\w+\s+time:(?P<ms>-?\d+)\b")


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


class AdbAlarms(AdbStateBase):
    """:class:`bridge.android_state.AlarmsState` over ``adb shell dumpsys alarm``."""

    async def next_alarm(self) -> int | None:
        """The next alarm clock of the shell's user (0) as epoch ms, from ``dumpsys alarm``
        (:func:`parse_next_alarm`); None when no alarm clock is set."""
        return parse_next_alarm(await self.shell("dumpsys alarm"))
