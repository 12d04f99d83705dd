"""How the Calendar app writes an event's time, its reminders and its calendar's name.

Pure functions of a row and the language (and the 12/24-hour choice); the words come from
the app's strings and the shared date formats (:mod:`sim.pickers.formats`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from sim.app import AppContext
from sim.apps.calendar.model import NO_REMINDER
from sim.apps.calendar.times import event_days, local_datetime
from sim.pickers.formats import (
    date_header,
    date_long,
    date_medium,
    is_24_hour,
    time_range,
    time_text,
)

__all__ = [
    "calendar_label",
    "day_title",
    "event_title",
    "event_when",
    "reminder_label",
    "row_time",
    "row_when",
]

Row = Mapping[str, Any]


def event_title(ctx: AppContext, event: Row) -> str:
    """The event's title, ``(No title)`` when it has none (as AOSP shows an empty one)."""
    return str(event.get("title") or "").strip() or ctx.t("no_title")


def calendar_label(ctx: AppContext, calendar: Row | None) -> str:
    """A calendar's name in the current language (a world calendar's label, else
    ``calendar_displayName``)."""
    if calendar is None:
        return ""
    labels = calendar.get("labels") or {}
    return str(labels.get(ctx.lang) or calendar.get("calendar_displayName") or "")


def _clock(ctx: AppContext, ms: int) -> str:
    return time_text(local_datetime(ms), ctx.lang, is_24_hour(ctx.settings))


def row_time(ctx: AppContext, event: Row) -> str:
    """The time column of a list row: ``All day``, ``10:00 – 11:00``, or with dates when a
    timed event ends on another day (``May 18 22:00 – May 19 01:00``)."""
    if event["allDay"]:
        return ctx.t("all_day")
    start, end = local_datetime(event["dtstart"]), local_datetime(event["dtend"])
    first, last = _clock(ctx, event["dtstart"]), _clock(ctx, event["dtend"])
    if event_days(event)[0] != event_days(event)[1]:
        first = f"{date_header(start.date(), ctx.lang)} {first}"
        last = f"{date_header(end.date(), ctx.lang)} {last}"
    return time_range(first, last, ctx.lang)


def _dates(ctx: AppContext, event: Row, long: bool) -> str:
    first, last = event_days(event)
    write = date_long if long else date_medium
    if first == last:
        return write(first, ctx.lang)
    return time_range(date_medium(first, ctx.lang), date_medium(last, ctx.lang), ctx.lang)


def event_when(ctx: AppContext, event: Row) -> tuple[str, str]:
    """The event card's two "when" lines: the date(s), then ``All day`` or the times."""
    if event["allDay"]:
        return _dates(ctx, event, long=True), ctx.t("all_day")
    first, last = event_days(event)
    if first != last:
        start = f"{date_medium(first, ctx.lang)} {_clock(ctx, event['dtstart'])}"
        end = f"{date_medium(last, ctx.lang)} {_clock(ctx, event['dtend'])}"
        return time_range(start, end, ctx.lang), ""
    return date_long(first, ctx.lang), row_time(ctx, event)


def row_when(ctx: AppContext, event: Row) -> str:
    """A search result's summary: its date(s) and time, ``Tue, May 12, 2026 · 10:00 – 11:00``."""
    if event["allDay"] or event_days(event)[0] == event_days(event)[1]:
        return ctx.t("when_summary", date=_dates(ctx, event, long=False), time=row_time(ctx, event))
    return event_when(ctx, event)[0]


def day_title(ctx: AppContext, day: date, today: date) -> str:
    """A day's header: ``Today · Tue, May 12``, ``Tomorrow · …`` or ``Thu, May 14, 2026``."""
    if day == today:
        return ctx.t("today_header", date=date_header(day, ctx.lang))
    if day.toordinal() == today.toordinal() + 1:
        return ctx.t("tomorrow_header", date=date_header(day, ctx.lang))
    return date_medium(day, ctx.lang)


def reminder_label(ctx: AppContext, minutes: int) -> str:
    """``None``, ``At time of event``, ``10 minutes before``, ``1 hour before``, ``1 day
    before``."""
    if minutes == NO_REMINDER or minutes < 0:
        return ctx.t("reminder_none")
    if minutes == 0:
        return ctx.t("reminder_at_start")
    for unit, size in (("day", 1440), ("hour", 60)):
        if minutes % size == 0:
            count = minutes // size
            return ctx.t(f"reminder_{unit}" if count == 1 else f"reminder_{unit}s", n=count)
    return ctx.t("reminder_minute" if minutes == 1 else "reminder_minutes", n=minutes)
