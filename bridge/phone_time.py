"""Times on the phone's own clock: what a spec's :class:`~bridge.taskspec.LocalTime` means on
a given phone, and epoch milliseconds as people say them.

A task names times relative to the phone's today ("the day after tomorrow at 14:00"), so it
means the same on a phone whose date and zone are not the simulator's; the judge reads
``now()`` from the world it judges and computes here. Zones are IANA names
(``Asia/Shanghai``), as ``persist.sys.timezone`` holds them; DST is the zone's own.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bridge.errors import EnvError
from bridge.taskspec import LocalTime, TimeAs

__all__ = ["local_ms", "say_time", "zone"]


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
