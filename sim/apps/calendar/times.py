"""Calendar time: epoch milliseconds as CalendarContract stores them, and the days they fall on.

Timed events are instants (``dtstart``/``dtend`` in epoch ms, ``eventTimezone`` the phone's
zone, :data:`sim.state.TIME_ZONE`) shown in the phone's local time (UTC+8, no daylight
saving). All-day events are stored as Android stores them: at UTC midnight, ``dtend`` the
midnight after the last day, ``eventTimezone`` ``UTC``; their days are UTC dates, whatever
the phone's zone. Pure functions; "now" is always passed in (the instance's clock).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

from sim.state import SIM_UTC_OFFSET_HOURS

__all__ = [
    "DAY_MS",
    "HOUR_MS",
    "MINUTE_MS",
    "event_days",
    "local_datetime",
    "local_ms",
    "occurs_on",
    "parse_world_time",
    "utc_date",
    "utc_midnight_ms",
]

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
_EPOCH = datetime(1970, 1, 1)
_OFFSET = timedelta(hours=SIM_UTC_OFFSET_HOURS)


def local_ms(moment: datetime) -> int:
    """Epoch ms of a naive local wall time of the phone (UTC+8)."""
    return (moment - _OFFSET - _EPOCH) // timedelta(milliseconds=1)


def local_datetime(ms: int) -> datetime:
    """The phone's naive local wall time at epoch ``ms``."""
    return _EPOCH + _OFFSET + timedelta(milliseconds=ms)


def utc_midnight_ms(day: date) -> int:
    """Epoch ms of ``day`` 00:00 UTC (an all-day event's ``dtstart``)."""
    return (datetime(day.year, day.month, day.day) - _EPOCH) // timedelta(milliseconds=1)


def utc_date(ms: int) -> date:
    """The UTC date of epoch ``ms`` (an all-day event's day)."""
    return (_EPOCH + timedelta(milliseconds=ms)).date()


def parse_world_time(text: str) -> tuple[int, bool]:
    """A world-data time as ``(epoch ms, all_day)``.

    ``2026-05-12T10:00`` is a local wall time of the phone (UTC+8); ``2026-05-16`` is a
    date, stored at UTC midnight as an all-day event's bound.
    """
    if "T" in text:
        return local_ms(datetime.fromisoformat(text)), False
    return utc_midnight_ms(date.fromisoformat(text)), True


def event_days(event: Mapping[str, Any]) -> tuple[date, date]:
    """The first and last day (inclusive) an event occupies on the phone's calendar.

    All-day: the UTC dates from ``dtstart`` to the day before ``dtend``. Timed: local dates
    from the start to the end, an end at exactly midnight not reaching into that day.
    """
    start, end = int(event["dtstart"]), int(event["dtend"])
    if event.get("allDay"):
        first = utc_date(start)
        return first, max(first, utc_date(end - 1))
    first = local_datetime(start).date()
    return first, max(first, local_datetime(max(start, end - 1)).date())


def occurs_on(event: Mapping[str, Any], day: date) -> bool:
    """Whether ``event`` occupies ``day``."""
    first, last = event_days(event)
    return first <= day <= last
