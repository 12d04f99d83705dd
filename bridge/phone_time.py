"""Times on the phone's own clock: what a spec's :class:`~bridge.spec.clock.LocalTime` means on
a given phone, and epoch milliseconds as people say them.

A task names times relative to the phone's today ("the day after tomorrow at 14:00"), so it
means the same on a phone whose date and zone are not the simulator's; the judge reads
``now()`` from the world it judges and computes here. Zones are IANA names
(``Asia/Shanghai``), as ``persist.sys.timezone`` holds them; DST is the zone's own.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bridge.errors import EnvError

if TYPE_CHECKING:  # the spec's clock surface builds on this module
    from bridge.spec.clock import LocalTime, TimeAs

__all__ = [
    "START_CLOCK_MS",
    "START_TIME_ZONE",
    "local_clock",
    "local_ms",
    "next_time_ms",
    "say_time",
    "zone",
    "zone_gap_hours",
    "zone_time",
]

START_TIME_ZONE = "Asia/Shanghai"
"""The zone a simulated world's phone reads its clock in (UTC+8, no daylight saving, like the
reference Redmi phone in China): our simulator and a MobileGym build alike, so a pair of
cells in two simulated worlds starts on the same local day and hour."""
START_CLOCK_MS = 1_778_549_400_000
"""2026-05-12 09:30:00 in :data:`START_TIME_ZONE`: where a simulated world's clock starts
(a simulated world never reads the wall clock)."""

UTC = timezone.utc  # datetime.UTC is Python 3.11+; the project supports 3.10


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``; an unknown one is an :class:`EnvError` naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise EnvError(f"the phone's time zone {name!r} is not a known IANA zone") from exc


def local_ms(now_ms: int, zone_name: str, when: LocalTime, all_day: bool = False) -> int:
    """Epoch ms of ``when`` on a phone whose clock reads ``now_ms`` in ``zone_name``; for
    ``all_day``, the UTC midnight of that local day (Android's all-day ``dtstart``)."""
    tz = zone(zone_name)
    day = datetime.fromtimestamp(now_ms / 1000, tz).date() + timedelta(days=when.days)
    if all_day:
        return int(datetime.combine(day, time(), UTC).timestamp() * 1000)
    hour, minute = (int(part) for part in (when.at or "00:00").split(":"))
    return int(datetime.combine(day, time(hour, minute), tz).timestamp() * 1000)


def say_time(value_ms: object, zone_name: str, kind: TimeAs) -> str | None:
    """``value_ms`` (epoch ms, as a provider prints it) as ``2026-05-14`` or ``14:00`` in the
    phone's zone, or the UTC date; None for a value that is not a number."""
    try:
        ms = int(str(value_ms))
    except ValueError:
        return None
    moment = datetime.fromtimestamp(ms / 1000, UTC if kind == "utc_date" else zone(zone_name))
    return moment.strftime("%H:%M") if kind == "local_time" else moment.date().isoformat()


def next_time_ms(now_ms: int, zone_name: str, at: str, days: list[int] | None = None) -> int:
    """Epoch ms of the first moment strictly after ``now_ms`` the phone's wall clock reads
    ``at`` (``HH:MM``) on one of ``days`` (0 Monday … 6 Sunday; any day when empty): when an
    alarm set for ``at`` rings. A time a DST jump skips rings when the clock passes it."""
    tz = zone(zone_name)
    now = datetime.fromtimestamp(now_ms / 1000, tz)
    hour, minute = (int(part) for part in at.split(":"))
    for offset in range(8):
        day = now.date() + timedelta(days=offset)
        moment = datetime.combine(day, time(hour, minute), tz)
        ms = int(moment.timestamp() * 1000)
        if ms > now_ms and (not days or day.weekday() in days):
            return ms
    raise AssertionError("a week always holds one of the days")  # pragma: no cover


def local_clock(value_ms: int, zone_name: str) -> str:
    """The wall-clock time ``HH:MM`` of epoch ms ``value_ms`` in the zone."""
    return datetime.fromtimestamp(value_ms / 1000, zone(zone_name)).strftime("%H:%M")


def _offset_hours(moment: datetime, zone_name: str) -> float:
    offset = moment.astimezone(zone(zone_name)).utcoffset()
    return (offset or timedelta()).total_seconds() / 3600


def zone_gap_hours(now_ms: int, ahead: str, behind: str) -> float:
    """How many hours zone ``ahead``'s clocks are ahead of zone ``behind``'s at ``now_ms``."""
    moment = datetime.fromtimestamp(now_ms / 1000, UTC)
    return _offset_hours(moment, ahead) - _offset_hours(moment, behind)


def zone_time(now_ms: int, phone_zone: str, at: str, source_zone: str, to: str) -> str:
    """What a clock in ``to`` reads when one in ``source_zone`` reads ``at`` on the phone's
    today (in ``phone_zone``)."""
    today = datetime.fromtimestamp(now_ms / 1000, zone(phone_zone)).date()
    hour, minute = (int(part) for part in at.split(":"))
    moment = datetime.combine(today, time(hour, minute), zone(source_zone))
    return moment.astimezone(zone(to)).strftime("%H:%M")
